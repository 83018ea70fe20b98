"""Loading ``.keras`` files of this package's classes: ``elmo_keras.load_model(path)``.

Keras finds a custom class (a ``BiLanguageModel``, a ``CRF``, a tagger) in its registry of custom objects, which the
module defining the class fills with its ``@keras.saving.register_keras_serializable`` decorator when it is imported;
Keras never imports a module outside Keras itself. ``import elmo_keras`` is lazy (it imports none of the modules), so
``load_model`` first imports every module of the package that registers a class (``serializable_modules``: found by
reading the package's sources for the decorator, so a new class needs no list kept by hand), then calls
``keras.saving.load_model``. Importing the class's module yourself (``import elmo_keras.layers.crf``, or using any
name from it) works as well, as for any Keras library.
"""

from __future__ import annotations

import importlib
import pathlib

_DECORATOR = "register_keras_serializable"
_PACKAGE = pathlib.Path(__file__).resolve().parent
_FOUND: list[str] = []


def serializable_modules() -> list[str]:
    """The modules of the package that register a Keras class (sorted; read once from the sources)."""
    if not _FOUND:
        for path in sorted(_PACKAGE.rglob("*.py")):
            if path.name != "_registration.py" and _DECORATOR in path.read_text(encoding="utf-8"):
                parts = path.relative_to(_PACKAGE.parent).with_suffix("").parts
                _FOUND.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return list(_FOUND)


def register_serializable_classes() -> None:
    """Import every module that registers a Keras class (each once; cheap once Keras is loaded)."""
    for name in serializable_modules():
        importlib.import_module(name)


def load_model(path, *, compile: bool = True, safe_mode: bool = True, custom_objects: dict | None = None):
    """``keras.saving.load_model(path, ...)`` with every ``elmo_keras`` class registered first.

    Args:
        path: a ``.keras`` file (any model or layer of this package, or your own model using them).
        compile, safe_mode, custom_objects: as ``keras.saving.load_model``. ``safe_mode`` stays True unless you trust
            the file: it refuses Python lambdas, which would run code.

    Returns:
        The loaded Keras model.
    """
    register_serializable_classes()
    from elmo_keras._quiet import keras  # noqa: PLC0415 (Keras on first use: importing this module stays cheap)

    return keras.saving.load_model(path, compile=compile, safe_mode=safe_mode, custom_objects=custom_objects)
