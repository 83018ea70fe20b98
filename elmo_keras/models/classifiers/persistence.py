"""Classifier model directories (``model.keras``, ``vocabulary.json``, ``training.json``: the layout of
``models.persistence``), written atomically.

The one spelling is ``model.save(directory)`` and ``TextClassifier.from_preset(directory)``
(``models.model_directory``); ``save_classifier`` and ``load_classifier`` are their one-line aliases, kept because
rounds 1–3 published them."""

from __future__ import annotations

import os
import pathlib

from elmo_keras.models.classifiers.base import TextClassifier


def save_classifier(model: TextClassifier, directory: str | os.PathLike) -> pathlib.Path:
    """Alias of ``model.save(directory)``: a trained classifier and its vocabulary into ``directory``.

    A model saved there before is replaced in one step (``models.persistence.save_model_dir``).

    Raises:
        ValueError, FileExistsError: as ``save_model_dir`` (no vocabulary, non-finite weights, a file or a foreign
            directory at ``directory``).
    """
    return model.save(directory)


def load_classifier(directory: str | os.PathLike) -> TextClassifier:
    """Alias of ``TextClassifier.from_preset(directory)``: a directory written by ``model.save``, ready for
    inference (no optimizer state).

    Raises:
        FileNotFoundError: the directory or one of its files is missing (named).
        ValueError: a file is corrupted or the files do not belong together (named, with how to fix it).
    """
    return TextClassifier.from_preset(directory)
