"""``load_bilm``: alias of ``BiLanguageModel.from_preset(directory)``, kept because rounds 1–3 published it."""

from __future__ import annotations

import os

from elmo_keras.models.bilm.language_model import BiLanguageModel


def load_bilm(directory: str | os.PathLike):
    """Alias of ``BiLanguageModel.from_preset(directory)`` (a model directory written by ``model.save(dir)`` / the
    ``train`` command), kept because rounds 1–3 published it."""
    return BiLanguageModel.from_preset(directory)
