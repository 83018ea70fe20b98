"""Stateless inference for biLMs, compiled once per biLM and reused for every batch: the one embedding path.

``ElmoEmbedder``, ``analysis.layer_embeddings`` and the explorer all embed token lists through
``embed_token_lists``; held-out perplexity goes through ``lm_logits``. Calling a Keras layer eagerly runs the
LSTM time loop op by op from Python; here the forward pass is traced once as a graph with symbolic batch and
time axes (``_backend.compile_for_inference``; ``"xla"`` compiles once per shape instead), so embedding a whole
corpus costs one trace plus fast calls. The compiled functions are kept per biLM (or model) and execution mode,
weakly: they go when the biLM goes. A ``stateful`` biLM runs eagerly, as it must. With a ``tf.distribute`` strategy
each batch's rows are split across its replicas, in one graph.
"""

from __future__ import annotations

import functools
import math
import weakref
from collections.abc import Sequence

import numpy as np

from elmo_keras._backend import compile_for_inference, compiles_per_shape, padded_time, replicated_inference
from elmo_keras._quiet import ops
from elmo_keras.text.batching import SentenceIds
from elmo_keras.text.char_ids import trim_character_padding

EXECUTION_MODES = ("graph", "xla", "eager")
# owner (a BiLM or a BiLanguageModel) → {(function, execution): compiled function}
_COMPILED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _compiled(owner, fn, execution: str, sample, strategy=None):
    """``fn(owner, x)`` as a function of ``x``, compiled once per owner, function, execution mode and strategy.

    With a ``strategy`` (``distribution.inference_strategy``; ``"graph"`` execution only) the rows of ``x`` are
    split across its replicas (``_backend.replicated_inference``); ``fn``'s output must hold the rows on axis 1.
    ``sample``: the ids the function is first called on (their shape fixes the ``"graph"`` signature's trailing
    axes; an unbuilt owner is built on one row of them, eagerly). The compiled function reaches its owner through a
    weak reference: a strong one, held by the cache entry's value, would keep every biLM that ever ran inference
    alive.
    """
    bilm = getattr(owner, "bilm", owner)
    if strategy is None and (execution == "eager" or bilm.stateful):
        return lambda x: fn(owner, x)
    functions = _COMPILED.setdefault(owner, {})
    key = (fn, execution, strategy)
    if key not in functions:
        _build_eagerly(owner, fn, sample)
        owner_ref = weakref.ref(owner)
        functions[key] = (compile_for_inference(lambda x: fn(owner_ref(), x), execution, np.shape(sample),
                                                owner.variables)
                          if strategy is None else
                          replicated_inference(lambda x: fn(owner_ref(), x), strategy, np.shape(sample), 1))
    return functions[key]


def _build_eagerly(owner, fn, sample) -> None:
    """Run ``fn`` once, eagerly, on one row of ``sample`` where ``owner`` has not been built: a model that creates
    its weights inside a compiled trace (``jax.jit``) would leave them as tracers, and the next shape would fail."""
    if not owner.built or not owner.variables:
        fn(owner, sample[:1])


def _activations(bilm, x, matmul_dtype=None):
    return ops.stack(bilm(x, training=False, matmul_dtype=matmul_dtype)["activations"])  # (layers, B, T, 2 * dim)


@functools.cache
def _activations_in(matmul_dtype):
    """``_activations`` with the matmuls in ``matmul_dtype`` (``layers.matmul_dtype``): one function per dtype, so
    that ``_compiled`` compiles and keeps each apart."""
    return _activations if matmul_dtype is None else functools.partial(_activations, matmul_dtype=matmul_dtype)


def _logits(model, x):
    outputs = model(x, training=False)
    return outputs["forward_logits"], outputs["backward_logits"]


def bilm_activations(bilm, inputs, execution: str = "graph", strategy=None, matmul_dtype=None) -> np.ndarray:
    """All layers of a built ``BiLM`` on ``inputs``: ids with boundaries (``text.batching.sentence_ids``).

    Args:
        bilm: a built ``BiLM``.
        inputs: int32 word ids `(batch, time)` or character ids `(batch, time, 50)`, as ``bilm.token_input``.
        execution: ``"graph"`` (default), ``"xla"`` or ``"eager"``.
        strategy: a ``tf.distribute.Strategy`` (``distribution.inference_strategy``) whose replicas each run an
            equal part of the batch's rows, with ``"graph"`` execution and a stateless ``bilm``. Defaults to None
            (one device).
        matmul_dtype: None (the biLM's compute dtype) or ``"bfloat16"``: the matmuls and convolutions in bfloat16,
            the rest and the result in float32 (``BiLM``'s call argument; ``inference_precision`` chooses it).

    Returns:
        float32 `(num_layers, batch, time, 2 * dim)`; padded positions are zero.
    """
    activations = _compiled(bilm, _activations_in(matmul_dtype), execution, inputs, strategy)
    return ops.convert_to_numpy(activations(inputs))


def embed_token_lists(bilm, sentence_ids: SentenceIds, sentences: Sequence[Sequence[str]],
                      execution: str = "graph", time_bucket: int = 1, strategy=None,
                      rows: int | None = None, matmul_dtype=None) -> list[np.ndarray]:
    """Every layer's vectors for each sentence, boundaries added for the biLM and removed from the result.

    Args:
        bilm: a built ``BiLM``.
        sentence_ids: how sentences become its input (``text.batching.sentence_ids(bilm.token_input, ...)``).
        sentences: non-empty token lists, embedded as one batch.
        execution: ``"graph"``, ``"xla"`` or ``"eager"`` (``inference_plan`` chooses for ``"auto"``). Where it
            compiles per shape (``"xla"``; JAX) the batch is also padded to ``rows`` rows (padding rows are
            masked), so that few shapes get compiled.
        time_bucket: pad the time axis to a multiple of this (int ≥ 1).
        strategy: split the batch across this strategy's replicas (``bilm_activations``). Defaults to None.
        rows: int ≥ ``len(sentences)``, the rows a mode that compiles per shape pads the batch to. Defaults to None
            (the next power of two).
        matmul_dtype: as for ``bilm_activations``. Defaults to None.

    Returns:
        One float32 array `(num_layers, len(sentence), 2 * dim)` per sentence.
    """
    longest = max(len(sentence) for sentence in sentences) + 2
    inputs = _padded_for_compilation(sentence_ids(sentences, math.ceil(longest / time_bucket) * time_bucket),
                                     execution, rows)
    if bilm.token_input == "char" and not compiles_per_shape(execution):  # a path traced once for every shape
        inputs = trim_character_padding(inputs, bilm.token_encoder.widest_filter)
    activations = bilm_activations(bilm, inputs, execution, strategy, matmul_dtype)  # (layers, B, T, 2 * dim)
    return [np.ascontiguousarray(activations[:, row, 1 : len(sentence) + 1], dtype=np.float32)
            for row, sentence in enumerate(sentences)]


def lm_logits(model, inputs) -> tuple[np.ndarray, np.ndarray]:
    """``(forward_logits, backward_logits)`` of a ``BiLanguageModel`` on ``inputs`` (as ``bilm_activations``),
    each float32 `(batch, time, vocab)`, through a graph compiled once per model (on JAX once per padded shape)."""
    rows, steps = np.shape(inputs)[:2]
    padded = _padded_for_compilation(np.asarray(inputs), "graph")
    forward, backward = _compiled(model, _logits, "graph", padded)(padded)
    return ops.convert_to_numpy(forward)[:rows, :steps], ops.convert_to_numpy(backward)[:rows, :steps]


def _padded_for_compilation(inputs: np.ndarray, execution: str, rows: int | None = None) -> np.ndarray:
    """``inputs`` `(batch, time, ...)` padded with empty rows to ``rows`` (None: a power of two) and with padding
    steps (``_backend.padded_time``) where ``execution`` compiles once per shape, so that few shapes get compiled;
    padding is masked, so the real rows and steps come out the same."""
    if not compiles_per_shape(execution):
        return inputs
    batch, steps = inputs.shape[:2]
    target = (1 << (batch - 1).bit_length()) if rows is None else max(rows, batch)
    padding = [(0, target - batch), (0, padded_time(steps) - steps)]
    return np.pad(inputs, padding + [(0, 0)] * (inputs.ndim - 2))
