"""A ``Seq2Seq`` model directory (``model.keras``, ``vocabulary.json``, ``training.json``: the biLM's layout)."""

from __future__ import annotations

import pathlib

from elmo_keras.models.persistence import read_model_dir, save_model_dir
from elmo_keras.models.seq2seq.config import Seq2SeqConfig
from elmo_keras.models.seq2seq.model import Seq2Seq


def save_seq2seq(model: Seq2Seq, directory) -> pathlib.Path:
    """Write ``model.keras``, ``vocabulary.json`` and ``training.json`` into ``directory`` (created if needed).

    Raises:
        ValueError, FileExistsError: as ``models.persistence.save_model_dir`` (no vocabulary, non-finite
            weights, a file or a foreign directory at ``directory``).
    """
    return save_model_dir(model, directory)


def load_seq2seq(directory) -> Seq2Seq:
    """Load a directory written by ``save_seq2seq``, with ``vocabulary``, ``config`` and ``training_summary`` set.

    Raises:
        FileNotFoundError: the directory or one of its files is missing (named).
        ValueError: a file is corrupted or does not match the model (named, with how to fix it).
    """
    return read_model_dir(directory, Seq2Seq, Seq2SeqConfig)
