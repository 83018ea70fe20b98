"""``load_bilm``: a ``BiLanguageModel`` back from its model directory (``models.persistence`` does the reading)."""

from __future__ import annotations

import os

from elmo_keras.models.bilm.language_model import BiLanguageModel
from elmo_keras.models.bilm.presets import BiLMConfig
from elmo_keras.models.persistence import read_model_dir


def load_bilm(directory: str | os.PathLike):
    """Load a model directory written by ``BiLanguageModel.save(dir)`` / ``python -m elmo_keras train``.

    Args:
        directory: the model directory (``model.keras``, ``vocabulary.json``, optional ``training.json``).

    Returns:
        The ``BiLanguageModel``, compiled, with ``vocabulary``, ``training_summary`` and ``config`` (a
        ``BiLMConfig``, or None when ``training.json`` has none) set.

    Raises:
        FileNotFoundError: the directory or one of its files is missing (the message names it).
        ValueError: a file is corrupted or is not what it should be, or ``training.json``'s config disagrees with
            ``model.keras`` (the message names the file, the field and how to fix it).
    """
    return read_model_dir(directory, BiLanguageModel, BiLMConfig)
