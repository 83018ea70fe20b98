"""Classifier model directories (``model.keras``, ``vocabulary.json``, ``training.json``: the layout of
``models.persistence``), written atomically."""

from __future__ import annotations

import os
import pathlib

from elmo_keras.models.classifiers.base import TextClassifier
from elmo_keras.models.classifiers.config import ClassifierConfig
from elmo_keras.models.persistence import read_model_dir, save_model_dir


def save_classifier(model: TextClassifier, directory: str | os.PathLike) -> pathlib.Path:
    """Write a trained classifier (``train_text_classifier``) and its vocabulary into ``directory``.

    A model saved there before is replaced in one step (``models.persistence.save_model_dir``).

    Raises:
        ValueError, FileExistsError: as ``save_model_dir`` (no vocabulary, non-finite weights, a file or a foreign
            directory at ``directory``).
    """
    return save_model_dir(model, directory)


def load_classifier(directory: str | os.PathLike) -> TextClassifier:
    """Load a directory written by ``save_classifier``, ready for inference (no optimizer state).

    Raises:
        FileNotFoundError: the directory or one of its files is missing (named).
        ValueError: a file is corrupted or the files do not belong together (named, with how to fix it).
    """
    return read_model_dir(directory, TextClassifier, ClassifierConfig, compile=False)
