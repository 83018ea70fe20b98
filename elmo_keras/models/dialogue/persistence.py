"""An HRED / VHRED model directory (``model.keras``, ``vocabulary.json``, ``training.json``: the biLM's layout,
written atomically by ``models.persistence.save_model_dir``).

The one spelling is ``model.save(directory)`` and ``HRED.from_preset(directory)`` / ``VHRED.from_preset(directory)``
(``models.model_directory``); ``save_dialogue_model`` and ``load_dialogue_model`` are their aliases, kept because
rounds 1–3 published them."""

from __future__ import annotations

import pathlib

from elmo_keras.models.dialogue.hred import HRED


def save_dialogue_model(model: HRED, directory) -> pathlib.Path:
    """Alias of ``model.save(directory)``: ``model`` (an ``HRED`` or ``VHRED`` with its vocabulary) into
    ``directory``, replacing what was there in one step.

    Raises:
        ValueError, FileExistsError: as ``models.persistence.save_model_dir`` (no vocabulary, non-finite weights, a
            file or a foreign directory at ``directory``).
    """
    return model.save(directory)


def load_dialogue_model(directory, kind: str | None = None) -> HRED:
    """``HRED.from_preset(directory)``, insisting on ``kind``: a directory written by ``model.save``, with
    ``vocabulary``, ``config`` and ``training_summary``.

    Args:
        directory: the model directory.
        kind: ``"hred"`` or ``"vhred"`` to insist on one; None accepts either.

    Raises:
        FileNotFoundError: the directory or one of its files is missing (named).
        ValueError: a file is corrupted, does not match the model, or holds the other kind (named, with a fix).
    """
    model = HRED.from_preset(directory)
    found = type(model).__name__.lower()
    if kind is not None and found != kind:
        raise ValueError(f"{directory} holds a {type(model).__name__}, not a {kind.upper()}: point at the other "
                         "directory, or retrain it")
    return model
