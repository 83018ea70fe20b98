"""Tagger model directories: ``save_tagger`` / ``load_tagger`` (the layout of ``models.persistence``:
``model.keras``, ``vocabulary.json`` — a ``TaggingVocabulary`` — and ``training.json``), saved atomically."""

from __future__ import annotations

import os
import pathlib

from elmo_keras.models.persistence import read_model_dir, save_model_dir
from elmo_keras.tagging.encoding import TaggingVocabulary
from elmo_keras.tagging.sequence_tagger import SequenceTagger
from elmo_keras.tagging.training import TaggerConfig


def save_tagger(model: SequenceTagger, directory: str | os.PathLike) -> pathlib.Path:
    """Write a trained tagger (``train_multitask_tagger`` / ``train_taglm``) as a model directory.

    Args:
        model: the tagger, with the ``vocabulary``, ``config`` and ``training_summary`` training sets.
        directory: where to write (created if needed; a model saved there before is replaced in one step).

    Returns:
        The directory's path.
    """
    return save_model_dir(model, directory)


def load_tagger(directory: str | os.PathLike) -> SequenceTagger:
    """Load a directory written by ``save_tagger``: a ``MultiTaskTagger`` or a ``TagLM`` with its vocabulary,
    ready for inference (the optimizer state is not restored; train a new tagger to train further).

    Args:
        directory: a directory written by ``save_tagger``.

    Raises:
        FileNotFoundError: the directory or one of its files is missing.
        ValueError: a file is corrupted, or the files do not belong together (each named, with a fix).
    """
    return read_model_dir(directory, SequenceTagger, TaggerConfig, vocabulary_class=TaggingVocabulary, compile=False)
