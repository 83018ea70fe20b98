"""Tagger model directories (``model.keras``, ``vocabulary.json`` — a ``TaggingVocabulary`` — and ``training.json``:
the layout of ``models.persistence``), written atomically.

The one spelling is ``tagger.save(directory)`` and ``SequenceTagger.from_preset(directory)``
(``models.model_directory``; ``MultiTaskTagger.from_preset`` / ``TagLM.from_preset`` insist on their class);
``save_tagger`` and ``load_tagger`` are their one-line aliases, kept because rounds 1–3 published them."""

from __future__ import annotations

import os
import pathlib

from elmo_keras.tagging.sequence_tagger import SequenceTagger


def save_tagger(model: SequenceTagger, directory: str | os.PathLike) -> pathlib.Path:
    """Alias of ``model.save(directory)``: a trained tagger (``train_multitask_tagger`` / ``train_taglm``) with its
    vocabulary and config into ``directory`` (created if needed; a model saved there before is replaced in one step).

    Raises:
        ValueError, FileExistsError: as ``models.persistence.save_model_dir`` (no vocabulary, non-finite
            weights, a file or a foreign directory at ``directory``).
    """
    return model.save(directory)


def load_tagger(directory: str | os.PathLike) -> SequenceTagger:
    """Alias of ``SequenceTagger.from_preset(directory)``: a ``MultiTaskTagger`` or a ``TagLM`` written by
    ``model.save`` / ``save_tagger``, with its vocabulary, ready for inference (the optimizer state is not restored;
    train a new tagger to train further).

    Raises:
        FileNotFoundError: the directory or one of its files is missing (named).
        ValueError: a file is corrupted, or the files do not belong together (each named, with a fix).
    """
    return SequenceTagger.from_preset(directory)
