"""Stateless inference for a trained ``BiLanguageModel``, compiled once per model and reused for every batch.

Calling a Keras model eagerly runs the LSTM time loop op by op from Python; here the forward pass is traced
once as a graph with symbolic batch and time axes (``_backend.compile_for_inference``), so embedding the
whole corpus or scoring held-out sentences costs one trace plus fast calls. The compiled functions are kept
per model (weakly: they go when the model goes). A ``stateful`` biLM runs eagerly, as it must.
"""

from __future__ import annotations

import weakref

import numpy as np
from keras import ops

from elmo_keras._backend import compile_for_inference

_COMPILED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _compiled(model, fn, inputs):
    """``fn(model, x)`` as a function of ``x``, compiled once per model and function.

    The compiled function reaches the model through a weak reference: a strong one, held by the cache
    entry's value, would keep every model that ever ran inference alive.
    """
    if getattr(model.bilm, "stateful", False):
        return lambda x: fn(model, x)
    functions = _COMPILED.setdefault(model, {})
    if fn not in functions:
        model_ref = weakref.ref(model)
        functions[fn] = compile_for_inference(lambda x: fn(model_ref(), x), "graph", np.shape(inputs))
    return functions[fn]


def _activations(model, x):
    return ops.stack(model.bilm(x, training=False)["activations"])


def _logits(model, x):
    outputs = model(x, training=False)
    return outputs["forward_logits"], outputs["backward_logits"]


def bilm_activations(model, inputs) -> np.ndarray:
    """All layers of ``model.bilm`` on ``inputs`` (ids with boundaries, as ``encode_for_lm`` makes them).

    Returns:
        float32 `(num_layers, batch, time, 2 * dim)`; padded positions are zero.
    """
    return np.asarray(_compiled(model, _activations, inputs)(inputs))


def lm_logits(model, inputs) -> tuple[np.ndarray, np.ndarray]:
    """``(forward_logits, backward_logits)`` of the language model, each `(batch, time, vocab)`."""
    forward, backward = _compiled(model, _logits, inputs)(inputs)
    return np.asarray(forward), np.asarray(backward)
