"""The explorer's default biLM, shipped with the package so that a first launch needs no training.

``tools/build_default_model.py`` builds it reproducibly (the ``toy`` preset, seed 0, float32) into
``elmo_keras/data/default_model``; ``tests/test_default_model.py`` loads it with the current code and checks its
perplexity and sense separation. On first launch ``install_default_model`` copies it into the models directory as
``toy``; where the package holds no default model (a trimmed install), the frame trains one instead.
"""

from __future__ import annotations

import os
import pathlib
import shutil
from importlib import resources

from elmo_keras.explorer.model_store import DEFAULT_MODEL_NAME, ModelRef, find_model
from elmo_keras.models.persistence import MODEL_FILE, SUMMARY_FILE, VOCABULARY_FILE
from elmo_keras.safe_files import staging_directory

SHIPPED_FILES = (MODEL_FILE, VOCABULARY_FILE, SUMMARY_FILE)


def shipped_default_model() -> pathlib.Path | None:
    """The shipped model's directory, or None when the package holds no complete one."""
    directory = pathlib.Path(str(resources.files("elmo_keras.data") / "default_model"))
    return directory if all((directory / name).is_file() for name in SHIPPED_FILES) else None


def install_default_model(models_dir: str | os.PathLike) -> ModelRef | None:
    """Copy the shipped model into ``models_dir`` as ``toy`` unless a model of that name is there already.

    The copy is made in a hidden sibling and renamed into place in one step, so an interrupted copy never
    leaves a half model behind, and a ``toy`` saved meanwhile (another session training it) is kept.

    Returns:
        The installed model's ``ModelRef``; None without a shipped model or when ``toy`` already exists.
    """
    source = shipped_default_model()
    target = pathlib.Path(models_dir) / DEFAULT_MODEL_NAME
    if source is None or target.exists():
        return None
    staging = staging_directory(target)
    try:
        for name in SHIPPED_FILES:
            shutil.copyfile(source / name, staging / name)
        os.rename(staging, target)  # atomic; refuses (OSError) if a non-empty `toy` appeared meanwhile
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        if not target.exists():
            raise
        return None
    info = find_model(models_dir, DEFAULT_MODEL_NAME)
    return None if info is None else info.ref
