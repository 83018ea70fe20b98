"""A ``Seq2Seq`` model directory (``model.keras``, ``vocabulary.json``, ``training.json``: the biLM's layout)."""

from __future__ import annotations

import pathlib

from elmo_keras.models.persistence import read_model_dir, save_model_dir
from elmo_keras.models.seq2seq.config import Seq2SeqConfig
from elmo_keras.models.seq2seq.model import Seq2Seq


def save_seq2seq(model: Seq2Seq, directory) -> pathlib.Path:
    """Write ``model.keras``, ``vocabulary.json`` and ``training.json`` into ``directory`` (created if needed)."""
    return save_model_dir(model, directory)


def load_seq2seq(directory) -> Seq2Seq:
    """Load a directory written by ``save_seq2seq``; a missing or mismatched file is an error naming it."""
    return read_model_dir(directory, Seq2Seq, Seq2SeqConfig)
