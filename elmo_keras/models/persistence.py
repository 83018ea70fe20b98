"""Model directories (weights + vocabulary + config), shared by ``BiLanguageModel`` and ``Seq2Seq``.

Layout of a model directory::

    model.keras        the Keras model (architecture + weights)
    vocabulary.json    the word vocabulary (``Vocabulary.save``)
    training.json      the config, seed, corpus size, history and scores
"""

from __future__ import annotations

import json
import os
import pathlib
import zipfile

from elmo_keras._quiet import keras
from elmo_keras.text.vocabulary import Vocabulary

MODEL_FILE = "model.keras"
VOCABULARY_FILE = "vocabulary.json"
SUMMARY_FILE = "training.json"


def save_model_dir(model, directory: str | os.PathLike) -> pathlib.Path:
    """Write ``model`` into ``directory`` (created if needed).

    ``model`` is a ``keras.Model`` carrying ``vocabulary``, ``training_summary`` and ``config`` (an object with
    ``to_dict()``, or None), as ``train_bilm`` and ``train_seq2seq`` leave them.
    """
    if getattr(model, "vocabulary", None) is None:
        raise ValueError("the model has no vocabulary; train it with train_bilm / train_seq2seq or set model.vocabulary")
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    tmp = directory / (MODEL_FILE + ".tmp.keras")
    keras.Model.save(model, tmp)  # write then rename: a crash never leaves a half-written model.keras
    os.replace(tmp, directory / MODEL_FILE)
    model.vocabulary.save(directory / VOCABULARY_FILE)
    summary = dict(getattr(model, "training_summary", None) or {})
    config = getattr(model, "config", None)
    if config is not None:
        summary["config"] = config.to_dict()
    with open(directory / SUMMARY_FILE, "w", encoding="utf-8") as handle:
        json.dump(summary, handle, indent=1)
    return directory


def read_model_dir(directory: str | os.PathLike, model_class: type, config_class: type):
    """Load a model directory and check it holds a ``model_class`` matching its vocabulary.

    Returns the model with ``vocabulary``, ``training_summary`` and ``config`` (``config_class.from_dict``, or
    None when ``training.json`` has none) set.

    Raises:
        FileNotFoundError: the directory or one of its files is missing (the message names it).
        ValueError: a file is corrupted or is not what it should be (the message names it).
    """
    directory = pathlib.Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"model directory not found: {directory}")
    for name in (MODEL_FILE, VOCABULARY_FILE):
        if not (directory / name).is_file():
            raise FileNotFoundError(f"{directory / name} is missing: is {directory} a model directory saved by elmo_keras?")
    vocabulary = Vocabulary.load(directory / VOCABULARY_FILE)
    try:
        model = keras.saving.load_model(directory / MODEL_FILE)
    except (zipfile.BadZipFile, OSError, ValueError, KeyError) as error:
        raise ValueError(f"{directory / MODEL_FILE} is corrupted or not an elmo_keras model: {error}") from None
    if not isinstance(model, model_class):
        raise ValueError(f"{directory / MODEL_FILE} holds a {type(model).__name__}, not a {model_class.__name__}")
    if model.vocab_size != len(vocabulary):
        raise ValueError(
            f"{directory / VOCABULARY_FILE} has {len(vocabulary)} tokens but the model predicts {model.vocab_size}"
        )
    summary = {}
    if (directory / SUMMARY_FILE).is_file():
        try:
            summary = json.loads((directory / SUMMARY_FILE).read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ValueError(f"{directory / SUMMARY_FILE} is corrupted: {error}") from None
    model.vocabulary = vocabulary
    model.training_summary = summary
    model.config = config_class.from_dict(summary["config"]) if "config" in summary else None
    return model


def load_bilm(directory: str | os.PathLike):
    """Load a model directory written by ``BiLanguageModel.save(dir)`` / ``python -m elmo_keras train``.

    Raises:
        FileNotFoundError: the directory or one of its files is missing (the message names it).
        ValueError: a file is corrupted or is not what it should be (the message names it).
    """
    from elmo_keras.models.bilm_lm import BiLanguageModel
    from elmo_keras.models.presets import BiLMConfig

    return read_model_dir(directory, BiLanguageModel, BiLMConfig)
