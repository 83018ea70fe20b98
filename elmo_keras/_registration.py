"""The package's Keras classes found by ``keras.saving.load_model`` although ``import elmo_keras`` is lazy.

Keras finds a custom class (a ``BiLanguageModel``, a ``CRF``, a tagger) in its registry of custom objects, which
the module defining the class fills with its ``@register_keras_serializable`` decorator; Keras never imports a
module outside Keras itself. With the lazy top-level package, ``import elmo_keras;
keras.saving.load_model("tagger.keras")`` would fail with "Could not locate class". So ``import elmo_keras`` makes
the registry a ``dict`` that, asked for a name of this package it lacks, first imports the modules listed here
(``register_serializable_classes``). It is installed once Keras is loaded: at once if it already is, else right
after Keras' own first import, whoever makes it. Registering by importing at that moment instead would import this
package's modules while one of them may be half-imported (the one whose ``from keras import ops`` loaded Keras).
"""

from __future__ import annotations

import importlib

# every module with a @keras.saving.register_keras_serializable class, by name: the packages import none of them
# (tests/test_registration.py keeps the list whole)
SERIALIZABLE_MODULES = (
    "elmo_keras.analysis.gradient_study.cells",
    "elmo_keras.analysis.gradient_study.models",
    "elmo_keras.layers.bilm",
    "elmo_keras.layers.char_cnn",
    "elmo_keras.layers.crf",
    "elmo_keras.layers.elmo",
    "elmo_keras.layers.elmo_character_ids",
    "elmo_keras.layers.highway",
    "elmo_keras.layers.lstm_stack",
    "elmo_keras.layers.projected_lstm_cell",
    "elmo_keras.layers.scalar_mix",
    "elmo_keras.layers.word_embedding",
    "elmo_keras.models.bilm.language_model",
    "elmo_keras.models.classifiers.cnn",
    "elmo_keras.models.classifiers.ngram_filters",
    "elmo_keras.models.classifiers.rnn",
    "elmo_keras.models.dialogue.hred",
    "elmo_keras.models.dialogue.vhred",
    "elmo_keras.models.optimizer",
    "elmo_keras.models.seq2seq.model",
    "elmo_keras.tagging.layers",
    "elmo_keras.tagging.multitask",
    "elmo_keras.tagging.taglm",
)


def register_serializable_classes() -> None:
    """Import every module that registers a Keras class (each once; cheap once Keras is loaded)."""
    for name in SERIALIZABLE_MODULES:
        importlib.import_module(name)
