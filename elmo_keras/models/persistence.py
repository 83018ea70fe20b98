"""Save a trained ``BiLanguageModel`` as a directory (weights + vocabulary + config) and load it back.

Layout of a model directory::

    model.keras        the Keras model (architecture + weights)
    vocabulary.json    the word vocabulary (``Vocabulary.save``)
    training.json      the BiLMConfig, seed, corpus size, history and perplexities
"""

from __future__ import annotations

import json
import os
import pathlib
import zipfile

from elmo_keras._quiet import keras
from elmo_keras.models.bilm_lm import BiLanguageModel
from elmo_keras.models.presets import BiLMConfig
from elmo_keras.text.vocabulary import Vocabulary

MODEL_FILE = "model.keras"
VOCABULARY_FILE = "vocabulary.json"
SUMMARY_FILE = "training.json"


def save_model_dir(model: BiLanguageModel, directory: str | os.PathLike) -> pathlib.Path:
    """Write ``model`` (which must carry ``vocabulary``) into ``directory`` (created if needed)."""
    if model.vocabulary is None:
        raise ValueError("the model has no vocabulary; train it with train_bilm or set model.vocabulary first")
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    tmp = directory / (MODEL_FILE + ".tmp.keras")
    keras.Model.save(model, tmp)  # write then rename: a crash never leaves a half-written model.keras
    os.replace(tmp, directory / MODEL_FILE)
    model.vocabulary.save(directory / VOCABULARY_FILE)
    summary = dict(model.training_summary or {})
    config = getattr(model, "config", None)
    if isinstance(config, BiLMConfig):
        summary["config"] = config.to_dict()
    with open(directory / SUMMARY_FILE, "w", encoding="utf-8") as handle:
        json.dump(summary, handle, indent=1)
    return directory


def load_bilm(directory: str | os.PathLike) -> BiLanguageModel:
    """Load a model directory written by ``BiLanguageModel.save(dir)`` / ``python -m elmo_keras train``.

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
    if not isinstance(model, BiLanguageModel):
        raise ValueError(f"{directory / MODEL_FILE} holds a {type(model).__name__}, not a BiLanguageModel")
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
    model.config = BiLMConfig.from_dict(summary["config"]) if "config" in summary else None
    return model
