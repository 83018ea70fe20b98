"""The explorer's models, shipped with the package so that no page trains before it can show something.

``tools/build_shipped_models.py`` builds them reproducibly (fixed seeds) into ``elmo_keras/data/shipped_models``,
one directory per model under the name it takes in the models directory: the ``toy`` biLM (the ``toy`` preset,
seed 0, float32), the ``transformer-toy`` biLM (the transformer's toy size, seed 0, float32), the decoding page's
seq2seq model and the tagging page's two taggers. ``tests/project/test_shipped_models.py``
loads each with the current code and checks what it must show. ``install_shipped_model`` copies one into the
models directory when it is missing there; where the package holds none (a trimmed install), the page trains it.
"""

from __future__ import annotations

import os
import pathlib
import shutil
from importlib import resources

from elmo_keras.explorer.model_store import (
    CLASSIFIERS_DIR_NAME,
    DEFAULT_MODEL_NAME,
    DIALOGUE_DIR_NAME,
    GRADIENTS_DIR_NAME,
    SEQ2SEQ_DIR_NAME,
    TAGGER_DIR_NAME,
    TAGLM_DIR_NAME,
    TRANSFORMER_MODEL_NAME,
)
from elmo_keras.explorer.result_cache import RESULTS_DIR_NAME
from elmo_keras.models.directory_files import MODEL_FILE
from elmo_keras.safe_files import staging_directory

SHIPPED_NAMES = (DEFAULT_MODEL_NAME, TRANSFORMER_MODEL_NAME, SEQ2SEQ_DIR_NAME, TAGGER_DIR_NAME, TAGLM_DIR_NAME,
                 CLASSIFIERS_DIR_NAME, DIALOGUE_DIR_NAME, GRADIENTS_DIR_NAME)
SHIPPED_RESULTS = "results"  # results computed from the shipped models (``result_cache``'s layout), copied along


def shipped_models_directory() -> pathlib.Path:
    """``elmo_keras/data/shipped_models`` inside the installed package."""
    return pathlib.Path(str(resources.files("elmo_keras.data") / "shipped_models"))


def shipped_model(name: str) -> pathlib.Path | None:
    """The shipped directory called ``name``, or None when the package holds no complete one: a model directory
    (its ``model.keras``), a page's set of model directories (the dialogue page's ``hred`` and ``vhred``: each
    with its ``model.keras``) or a page's ``.keras`` files (the gradients page's ``rnn.keras`` and ``lstm.keras``)."""
    directory = shipped_models_directory() / name
    if (directory / MODEL_FILE).is_file():
        return directory
    parts = sorted(directory.iterdir()) if directory.is_dir() else []
    models = [path for path in parts if path.is_dir()]
    if models and all((path / MODEL_FILE).is_file() for path in models):
        return directory
    return directory if not models and any(path.suffix == ".keras" for path in parts) else None


def install_shipped_model(models_dir: str | os.PathLike, name: str) -> bool:
    """Copy the shipped model ``name`` into ``models_dir`` unless a model of that name is there already.

    The copy is made in a hidden sibling and renamed into place in one step, so an interrupted copy never leaves
    half a model behind, and a model saved under that name meanwhile (another session training it) is kept.

    Returns:
        True when the model was installed now; False without a shipped model or when ``name`` already exists.
    """
    source = shipped_model(name)
    target = pathlib.Path(models_dir) / name
    if source is None or target.exists():
        return False
    staging = staging_directory(target)
    try:
        shutil.copytree(source, staging, dirs_exist_ok=True)
        os.rename(staging, target)  # atomic; refuses (OSError) if a non-empty directory appeared meanwhile
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        if not target.exists():
            raise
        return False
    install_shipped_results(models_dir)
    return True


def install_shipped_results(models_dir: str | os.PathLike) -> int:
    """Copy the shipped results (e.g. the layer-weights report of the ``toy`` biLM on the built-in corpus) into
    ``models_dir``'s results, keeping any file already there. Returns how many were copied."""
    source = shipped_models_directory() / SHIPPED_RESULTS
    copied = 0
    for path in sorted(source.glob("*/*.json")) if source.is_dir() else []:
        target = pathlib.Path(models_dir) / RESULTS_DIR_NAME / path.parent.name / path.name
        if target.exists():
            continue
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)  # a result is read whole or recomputed (``result_cache``)
            copied += 1
        except OSError:
            break  # results only save time: a models directory that takes none still works
    return copied
