"""The package's Keras classes found by ``keras.saving.load_model`` although ``import elmo_keras`` is lazy.

Keras finds a custom class (a ``BiLanguageModel``, a ``CRF``, a tagger) in its registry of custom objects, which
the module defining the class fills with its ``@register_keras_serializable`` decorator; Keras never imports a
module outside Keras itself. With the lazy top-level package, ``import elmo_keras;
keras.saving.load_model("tagger.keras")`` would fail with "Could not locate class". So the registry becomes a
``dict`` that, asked for a name of this package it lacks, first imports the modules that register them. It is
installed once Keras is loaded: at once if it already is, else right after Keras' own first import, whoever makes
it. Registering by importing at that moment instead would import this package's modules while one of them may be
half-imported (the one whose ``from keras import ops`` loaded Keras).
"""

from __future__ import annotations

import importlib

from elmo_keras._first_import import around_first_import

# every module with a @keras.saving.register_keras_serializable class (tests/test_registration.py keeps the list whole)
SERIALIZABLE_MODULES = (
    "elmo_keras.analysis.gradient_cells",
    "elmo_keras.analysis.gradient_models",
    "elmo_keras.layers",
    "elmo_keras.models.bilm_lm",
    "elmo_keras.models.classifiers",
    "elmo_keras.models.dialogue",
    "elmo_keras.models.optimizer",
    "elmo_keras.models.seq2seq",
    "elmo_keras.tagging",
)


def register_serializable_classes() -> None:
    """Import every module that registers a Keras class (each once; cheap once Keras is loaded)."""
    for name in SERIALIZABLE_MODULES:
        importlib.import_module(name)


PACKAGE_PREFIX = "elmo_keras>"


class _RegisteringOnLookup(dict):
    """Keras' registry of custom objects, importing this package's registering modules on a miss for its names."""

    def __contains__(self, name):
        if isinstance(name, str) and name.startswith(PACKAGE_PREFIX) and not dict.__contains__(self, name):
            register_serializable_classes()
        return dict.__contains__(self, name)

    def __missing__(self, name):
        if isinstance(name, str) and name.startswith(PACKAGE_PREFIX):
            register_serializable_classes()
            if dict.__contains__(self, name):
                return dict.__getitem__(self, name)
        raise KeyError(name)


def _install_in_keras() -> None:
    """Swap Keras' registry for a ``_RegisteringOnLookup`` holding the same entries."""
    from keras.src.saving import object_registration  # here: Keras is loaded by now; its registry is not public

    registry = object_registration.GLOBAL_CUSTOM_OBJECTS
    if not isinstance(registry, _RegisteringOnLookup):
        object_registration.GLOBAL_CUSTOM_OBJECTS = _RegisteringOnLookup(registry)


def _then_install(exec_module, module):
    exec_module(module)
    _install_in_keras()


def install() -> None:
    """Install the registry now if Keras is loaded, else when it is."""
    if not around_first_import("keras", _then_install):
        _install_in_keras()
