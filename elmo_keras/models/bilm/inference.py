"""Stateless inference for biLMs, compiled once per biLM and reused for every batch: the one embedding path.

``ElmoEmbedder``, ``analysis.layer_embeddings`` and the explorer all embed token lists through
``embed_token_lists``; held-out perplexity goes through ``lm_logits``. Calling a Keras layer eagerly runs the
LSTM time loop op by op from Python; here the forward pass is traced once as a graph with symbolic batch and
time axes (``_backend.compile_for_inference``; ``"xla"`` compiles once per shape instead), so embedding a whole
corpus costs one trace plus fast calls. The compiled functions are kept per biLM (or model) and execution mode,
weakly: they go when the biLM goes. A ``stateful`` biLM runs eagerly, as it must.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Sequence

import numpy as np
from keras import ops

from elmo_keras._backend import compile_for_inference, compiles_per_shape, padded_time
from elmo_keras.text.batching import SentenceIds

EXECUTION_MODES = ("graph", "xla", "eager")
# owner (a BiLM or a BiLanguageModel) → {(function, execution): compiled function}
_COMPILED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _compiled(owner, fn, execution: str, input_shape: tuple):
    """``fn(owner, x)`` as a function of ``x``, compiled once per owner, function and execution mode.

    The compiled function reaches its owner through a weak reference: a strong one, held by the cache entry's
    value, would keep every biLM that ever ran inference alive.
    """
    bilm = getattr(owner, "bilm", owner)
    if execution == "eager" or bilm.stateful:
        return lambda x: fn(owner, x)
    functions = _COMPILED.setdefault(owner, {})
    if (fn, execution) not in functions:
        owner_ref = weakref.ref(owner)
        functions[(fn, execution)] = compile_for_inference(lambda x: fn(owner_ref(), x), execution, input_shape,
                                                           owner.variables)
    return functions[(fn, execution)]


def _activations(bilm, x):
    return ops.stack(bilm(x, training=False)["activations"])  # (layers, B, T, 2 * dim)


def _logits(model, x):
    outputs = model(x, training=False)
    return outputs["forward_logits"], outputs["backward_logits"]


def bilm_activations(bilm, inputs, execution: str = "graph") -> np.ndarray:
    """All layers of a built ``BiLM`` on ``inputs``: ids with boundaries (``text.batching.sentence_ids``).

    Args:
        bilm: a built ``BiLM``.
        inputs: int32 word ids `(batch, time)` or character ids `(batch, time, 50)`, as ``bilm.token_input``.
        execution: ``"graph"`` (default), ``"xla"`` or ``"eager"``.

    Returns:
        float32 `(num_layers, batch, time, 2 * dim)`; padded positions are zero.
    """
    return ops.convert_to_numpy(_compiled(bilm, _activations, execution, np.shape(inputs))(inputs))


def embed_token_lists(bilm, sentence_ids: SentenceIds, sentences: Sequence[Sequence[str]],
                      execution: str = "graph", time_bucket: int = 1) -> list[np.ndarray]:
    """Every layer's vectors for each sentence, boundaries added for the biLM and removed from the result.

    Args:
        bilm: a built ``BiLM``.
        sentence_ids: how sentences become its input (``text.batching.sentence_ids(bilm.token_input, ...)``).
        sentences: non-empty token lists, embedded as one batch.
        execution: ``"graph"``, ``"xla"`` or ``"eager"``. Where it compiles per shape (``"xla"``; JAX) the batch
            is also padded to a power of two rows (padding rows are masked), so that few shapes get compiled.
        time_bucket: pad the time axis to a multiple of this (int ≥ 1).

    Returns:
        One float32 array `(num_layers, len(sentence), 2 * dim)` per sentence.
    """
    longest = max(len(sentence) for sentence in sentences) + 2
    inputs = _padded_for_compilation(sentence_ids(sentences, math.ceil(longest / time_bucket) * time_bucket),
                                     execution)
    activations = bilm_activations(bilm, inputs, execution)  # (layers, B, T, 2 * dim)
    return [np.ascontiguousarray(activations[:, row, 1 : len(sentence) + 1], dtype=np.float32)
            for row, sentence in enumerate(sentences)]


def lm_logits(model, inputs) -> tuple[np.ndarray, np.ndarray]:
    """``(forward_logits, backward_logits)`` of a ``BiLanguageModel`` on ``inputs`` (as ``bilm_activations``),
    each float32 `(batch, time, vocab)`, through a graph compiled once per model (on JAX once per padded shape)."""
    rows, steps = np.shape(inputs)[:2]
    padded = _padded_for_compilation(np.asarray(inputs), "graph")
    forward, backward = _compiled(model, _logits, "graph", np.shape(padded))(padded)
    return ops.convert_to_numpy(forward)[:rows, :steps], ops.convert_to_numpy(backward)[:rows, :steps]


def _padded_for_compilation(inputs: np.ndarray, execution: str) -> np.ndarray:
    """``inputs`` `(batch, time, ...)` padded with empty rows to a power of two and with padding steps
    (``_backend.padded_time``) where ``execution`` compiles once per shape, so that few shapes get compiled;
    padding is masked, so the real rows and steps come out the same."""
    if not compiles_per_shape(execution):
        return inputs
    rows, steps = inputs.shape[:2]
    padding = [(0, (1 << (rows - 1).bit_length()) - rows), (0, padded_time(steps) - steps)]
    return np.pad(inputs, padding + [(0, 0)] * (inputs.ndim - 2))
