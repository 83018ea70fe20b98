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
import shutil
import zipfile

import numpy as np

from elmo_keras._quiet import keras
from elmo_keras._registration import load_model
from elmo_keras.models.directory_files import MODEL_DIR_ENTRIES, MODEL_FILE, SUMMARY_FILE, VOCABULARY_FILE
from elmo_keras.models.legacy_files import loadable_keras_file
from elmo_keras.safe_files import entries_other_than, replace_directory, staging_directory
from elmo_keras.text.vocabulary import Vocabulary

# Keras's deserialization errors: "... config={...}. Exception encountered: <cause>" and
# "Could not locate class 'X'. ... Full object config: {...}"
KERAS_CAUSE_MARKER = "Exception encountered: "
KERAS_CONFIG_DUMP_MARKER = "Full object config:"
# the model attributes that fix the weights, checked against training.json's config (a biLM class declares its own,
# CONTEXTUALIZER and ARCHITECTURE_FIELDS, beside the token encoder's: token_input, embedding_dim and, for characters,
# char_filters and n_highway)
ARCHITECTURE_FIELDS_OF_SEQ2SEQ = ("cell", "embedding_dim", "units", "num_layers")


def save_model_dir(model, directory: str | os.PathLike) -> pathlib.Path:
    """Write ``model`` into ``directory`` (created if needed), replacing a model saved there before in one step.

    Args:
        model: a ``keras.Model`` carrying ``vocabulary``, ``training_summary`` and ``config`` (an object with
            ``to_dict()``, or None), as ``train_bilm`` and ``train_seq2seq`` leave them.
        directory: the model directory to write.

    Returns:
        ``directory`` as a ``pathlib.Path``.

    The three files are written into a hidden sibling directory, which then replaces ``directory`` in one
    rename (``safe_files.replace_directory``): an interruption at any point leaves the previous model complete
    (or the new one), never a new ``model.keras`` beside an old vocabulary. A symlink ``directory`` keeps
    pointing where it did.

    Raises:
        ValueError: the model has no vocabulary, or a weight holding NaN or inf (whatever was saved before stays).
        FileExistsError: ``directory`` is a file, or a directory holding files that are not part of a model
            directory (saving replaces the whole directory, so they would be lost).
    """
    if getattr(model, "vocabulary", None) is None:
        raise ValueError("the model has no vocabulary; train it with train_bilm / train_seq2seq "
                         "or set model.vocabulary")
    nonfinite = first_nonfinite_weight(model)
    if nonfinite is not None:
        raise ValueError(f"the model has {nonfinite}; it is not saved (it would embed everything as NaN): retrain it "
                         "with a lower learning rate")
    directory = pathlib.Path(directory)
    check_save_target(directory)
    staging = staging_directory(directory)
    try:
        keras.Model.save(model, staging / MODEL_FILE)
        model.vocabulary.save(staging / VOCABULARY_FILE)
        summary = dict(getattr(model, "training_summary", None) or {})
        config = getattr(model, "config", None)
        if config is not None:
            summary["config"] = config.to_dict()
        with open(staging / SUMMARY_FILE, "w", encoding="utf-8") as handle:
            json.dump(summary, handle, indent=1)
        replace_directory(staging, directory)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return directory


def check_save_target(directory: str | os.PathLike) -> None:
    """Check that ``save_model_dir`` may replace ``directory``: it is absent, or a directory holding at most the
    files of a model directory (``MODEL_DIR_ENTRIES``).

    Raises:
        FileExistsError: naming the file, or the foreign entries found in the directory.
    """
    directory = pathlib.Path(directory)
    if directory.exists() and not directory.is_dir():
        raise FileExistsError(f"{directory} is an existing file, not a model directory; choose another name or "
                              "remove the file")
    foreign = entries_other_than(directory, MODEL_DIR_ENTRIES)
    if foreign:
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
        raise FileExistsError(
            f"{directory} holds {shown}, which {'is' if len(foreign) == 1 else 'are'} not part of a model directory; "
            "saving replaces the whole directory, so choose a new or empty directory, or move them out first"
        )


def read_model_dir(directory: str | os.PathLike, model_class: type, config_class: type,
                   vocabulary_class: type = Vocabulary, compile: bool = True):
    """Load a model directory and check it holds a ``model_class`` matching its vocabulary and its config.

    Args:
        directory: the model directory.
        model_class: the class ``model.keras`` must hold (``BiLanguageModel``, ``Seq2Seq``, a tagger).
        config_class: a ``DictConfig`` class for ``training.json``'s ``"config"``.
        vocabulary_class: what ``vocabulary.json`` holds (a class with ``load(path)`` and ``len``). Defaults to
            ``Vocabulary``.
        compile: bool, restore the training configuration and optimizer state (False: for inference only).
            Defaults to True.

    Returns:
        The model with ``vocabulary``, ``training_summary`` and ``config`` (``config_class.from_dict``, or None
        when ``training.json`` has none) set.

    Raises:
        FileNotFoundError: the directory or one of its files is missing (the message names it).
        ValueError: a file is corrupted or is not what it should be, or ``training.json``'s config disagrees with
            the architecture of ``model.keras`` (the message names the file, the field and how to fix it).
    """
    directory = pathlib.Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"model directory not found: {directory}")
    for name in (MODEL_FILE, VOCABULARY_FILE):
        path = directory / name
        if path.is_dir():
            raise FileNotFoundError(
                f"{path} is a directory, not a file: is {directory} a model directory saved by elmo_keras?"
            )
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing: is {directory} a model directory saved by elmo_keras?")
    vocabulary = _load_vocabulary(directory / VOCABULARY_FILE, vocabulary_class)
    model = _load_keras_model(directory / MODEL_FILE, compile=compile)
    if not isinstance(model, model_class):
        raise ValueError(f"{directory / MODEL_FILE} holds a {type(model).__name__}, not a {model_class.__name__}")
    nonfinite = first_nonfinite_weight(model)
    if nonfinite is not None:
        raise ValueError(f"{directory / MODEL_FILE} has {nonfinite}: the model diverged while it was trained and "
                         "would embed everything as NaN; retrain it with a lower learning rate")
    if model.vocab_size != len(vocabulary):
        raise ValueError(
            f"{directory / VOCABULARY_FILE} has {len(vocabulary)} tokens but the model predicts {model.vocab_size}: "
            f"the vocabulary and {MODEL_FILE} come from different models; restore the vocabulary saved with the "
            "model, or retrain it"
        )
    summary = _read_summary(directory / SUMMARY_FILE)
    config = _config_from_summary(summary, config_class, directory / SUMMARY_FILE)
    if config is not None:
        check_config_matches_model(config, model, directory / SUMMARY_FILE, directory / MODEL_FILE)
    model.vocabulary = vocabulary
    model.training_summary = summary
    model.config = config
    return model


def first_nonfinite_weight(model) -> str | None:
    """``"N non-finite value(s) (NaN or inf) in 'layer/variable'"`` for the first weight of ``model`` holding
    NaN or inf, or None if every weight is finite."""
    return first_nonfinite_value(model.weights,
                                 (np.asarray(keras.ops.convert_to_numpy(variable)) for variable in model.weights))


def first_nonfinite_value(variables, values) -> str | None:
    """``first_nonfinite_weight`` over values already read: ``values`` are the NumPy values of ``variables``, in
    order (an iterable, read only up to the first non-finite one)."""
    for variable, value in zip(variables, values):
        bad = int(value.size - np.count_nonzero(np.isfinite(value)))
        if bad:
            return f"{bad} non-finite value(s) (NaN or inf) in {variable.path!r}"
    return None


def check_config_matches_model(config, model, summary_path, model_path) -> None:
    """Compare the architecture fields of ``config`` (from ``training.json``) with the loaded ``model``.

    Args:
        config: the configuration read from ``training.json``; only fields it has are compared.
        model: the loaded model.
        summary_path, model_path: the two files, named in the error.

    Raises:
        ValueError: naming both files and every field that differs (``units = 999 in training.json but 16 in
            model.keras``).
    """
    saved = _architecture_of(model)
    differences = [
        f"{field} = {getattr(config, field)!r} in {SUMMARY_FILE} but {value!r} in {MODEL_FILE}"
        for field, value in saved.items()
        if hasattr(config, field) and _comparable(getattr(config, field)) != _comparable(value)
    ]
    if differences:
        raise ValueError(
            f"{summary_path}: 'config' does not describe the model in {model_path}: {'; '.join(differences)}. "
            f"{SUMMARY_FILE} was edited or belongs to another model: fix those fields, remove 'config' from it, "
            "or save the model again from the session that trained it"
        )


def _architecture_of(model) -> dict:
    """The config fields that determine ``model``'s weights, read from the loaded model itself."""
    if hasattr(model, "architecture"):  # taggers say it themselves
        return model.architecture()
    bilm = getattr(model, "bilm", None)
    if bilm is None:  # Seq2Seq
        return {name: getattr(model, name) for name in ARCHITECTURE_FIELDS_OF_SEQ2SEQ}
    token_encoder = bilm.token_encoder
    architecture = {
        "token_input": model.token_input,
        "embedding_dim": token_encoder.embedding_dim,
        "contextualizer": bilm.CONTEXTUALIZER,
        **{name: getattr(bilm, name) for name in bilm.ARCHITECTURE_FIELDS},
    }
    if model.token_input == "char":
        architecture.update(char_filters=token_encoder.filters, n_highway=token_encoder.n_highway)
    return architecture


def _comparable(value):
    """Lists and tuples (``char_filters``) compare equal whatever their nesting type."""
    return tuple(_comparable(item) for item in value) if isinstance(value, (list, tuple)) else value


def _load_vocabulary(path: pathlib.Path, vocabulary_class: type = Vocabulary):
    try:
        return vocabulary_class.load(path)
    except ValueError as error:
        problem = str(error) if str(path) in str(error) else f"{path}: {error}"
        raise ValueError(f"{problem}; restore the {VOCABULARY_FILE} saved with the model, or retrain it") from None


def _load_keras_model(path: pathlib.Path, compile: bool = True):
    """``elmo_keras.load_model(path)`` (every class registered) with every failure a ``ValueError`` naming the file."""
    problem = f"{path} is corrupted or not an elmo_keras model"
    hint = "retrain the model, or save it again from the session that trained it"
    if not zipfile.is_zipfile(path):  # Keras would say "File not found" here
        raise ValueError(f"{problem}: it is not a .keras (zip) archive (truncated or overwritten?); {hint}")
    try:
        with loadable_keras_file(path) as loadable:
            return load_model(loadable, compile=compile)
    except TypeError as error:  # Keras turns any failure of a from_config / __init__ into a TypeError + config dump
        raise ValueError(f"{problem}: its saved config cannot rebuild the model: {_innermost_keras_error(error)}; "
                         f"{hint}") from None
    except (zipfile.BadZipFile, OSError, ValueError, KeyError) as error:
        raise ValueError(f"{problem}: {error}; {hint}") from None


def _innermost_keras_error(error: Exception) -> str:
    """The original message inside Keras's deserialization error, without Keras's dump of the whole config."""
    message = str(error)
    if KERAS_CAUSE_MARKER in message:
        message = message.rsplit(KERAS_CAUSE_MARKER, 1)[1]
    return message.split(KERAS_CONFIG_DUMP_MARKER, 1)[0].strip()


def _read_summary(path: pathlib.Path) -> dict:
    """``training.json`` as a dict ({} when the file is absent: it is optional)."""
    if not path.is_file():
        return {}
    hint = f"fix it, or delete {path.name} (the model loads without it)"
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path} is corrupted: {error}; {hint}") from None
    if not isinstance(summary, dict):
        raise ValueError(f"{path} must hold a JSON object (the training summary), "
                         f"found a {type(summary).__name__}; {hint}")
    return summary


def _config_from_summary(summary: dict, config_class: type, path: pathlib.Path):
    """``config_class.from_dict(summary["config"])``, or None without a ``"config"``."""
    if "config" not in summary:
        return None
    hint = "fix the field, or remove 'config' from the file (the model loads without it)"
    data = summary["config"]
    if not isinstance(data, dict):
        raise ValueError(f"{path}: 'config' must be a JSON object, found a {type(data).__name__}; {hint}")
    try:
        return config_class.from_dict(data)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{path}: 'config' is not a valid {config_class.__name__}: {error}; {hint}") from None
