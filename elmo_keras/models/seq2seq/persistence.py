"""A ``Seq2Seq`` model directory (``model.keras``, ``vocabulary.json``, ``training.json``: the biLM's layout).

The one spelling is ``model.save(directory)`` and ``Seq2Seq.from_preset(directory)`` (``models.model_directory``);
``save_seq2seq`` and ``load_seq2seq`` are their one-line aliases, kept because rounds 1–3 published them."""

from __future__ import annotations

import pathlib

from elmo_keras.models.seq2seq.model import Seq2Seq


def save_seq2seq(model: Seq2Seq, directory) -> pathlib.Path:
    """Alias of ``model.save(directory)``: ``model.keras``, ``vocabulary.json`` and ``training.json`` into
    ``directory`` (created if needed).

    Raises:
        ValueError, FileExistsError: as ``models.persistence.save_model_dir`` (no vocabulary, non-finite
            weights, a file or a foreign directory at ``directory``).
    """
    return model.save(directory)


def load_seq2seq(directory) -> Seq2Seq:
    """Alias of ``Seq2Seq.from_preset(directory)``: a directory written by ``model.save`` / ``save_seq2seq``, with
    ``vocabulary``, ``config`` and ``training_summary`` set.

    Raises:
        FileNotFoundError: the directory or one of its files is missing (named).
        ValueError: a file is corrupted or does not match the model (named, with how to fix it).
    """
    return Seq2Seq.from_preset(directory)
