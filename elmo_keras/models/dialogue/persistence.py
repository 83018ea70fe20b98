"""An HRED / VHRED model directory (``model.keras``, ``vocabulary.json``, ``training.json``: the biLM's layout,
written atomically by ``models.persistence.save_model_dir``)."""

from __future__ import annotations

import pathlib

from elmo_keras.models.dialogue.config import DialogueConfig
from elmo_keras.models.dialogue.hred import HRED
from elmo_keras.models.persistence import read_model_dir, save_model_dir


def save_dialogue_model(model: HRED, directory) -> pathlib.Path:
    """Write ``model`` (an ``HRED`` or ``VHRED`` with its vocabulary) into ``directory``, replacing what was there in
    one step.

    Raises:
        ValueError, FileExistsError: as ``models.persistence.save_model_dir`` (no vocabulary, non-finite weights, a
            file or a foreign directory at ``directory``).
    """
    return save_model_dir(model, directory)


def load_dialogue_model(directory, kind: str | None = None) -> HRED:
    """Load a directory written by ``save_dialogue_model``, with ``vocabulary``, ``config`` and ``training_summary``.

    Args:
        directory: the model directory.
        kind: ``"hred"`` or ``"vhred"`` to insist on one; None accepts either.

    Raises:
        FileNotFoundError: the directory or one of its files is missing (named).
        ValueError: a file is corrupted, does not match the model, or holds the other kind (named, with a fix).
    """
    model = read_model_dir(directory, HRED, DialogueConfig, compile=False)
    found = type(model).__name__.lower()
    if kind is not None and found != kind:
        raise ValueError(f"{directory} holds a {type(model).__name__}, not a {kind.upper()}: point at the other "
                         "directory, or retrain it")
    return model
