"""A biLM's stateless forward pass compiled once per biLM (or model) and reused for every batch.

Calling a Keras layer eagerly runs the LSTM time loop op by op from Python; here a function of the biLM is traced
once as a graph with symbolic batch and time axes (``_backend.compile_for_inference``; ``"xla"`` compiles once per
shape instead), so that a whole corpus costs one trace plus fast calls. The compiled functions are kept per owner,
function, execution mode and strategy, weakly: they go when the owner goes. A ``stateful`` biLM runs eagerly, as it
must. Embedding goes through here (``embedding.inference``); so does held-out perplexity (``lm_logits``).
"""

from __future__ import annotations

import weakref

import numpy as np

from elmo_keras._backend import compile_for_inference, compiles_per_shape, padded_time, replicated_inference
from elmo_keras._quiet import ops

# owner (a BiLM or a BiLanguageModel) → {(function, execution, strategy): compiled function}
_COMPILED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def compiled(owner, fn, execution: str, sample, strategy=None):
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


def padded_for_compilation(inputs: np.ndarray, execution: str, rows: int | None = None) -> np.ndarray:
    """``inputs`` `(batch, time, ...)` padded with empty rows to ``rows`` (None: a power of two) and with padding
    steps (``_backend.padded_time``) where ``execution`` compiles once per shape, so that few shapes get compiled;
    padding is masked, so the real rows and steps come out the same."""
    if not compiles_per_shape(execution):
        return inputs
    batch, steps = inputs.shape[:2]
    target = (1 << (batch - 1).bit_length()) if rows is None else max(rows, batch)
    padding = [(0, target - batch), (0, padded_time(steps) - steps)]
    return np.pad(inputs, padding + [(0, 0)] * (inputs.ndim - 2))


def _logits(model, x):
    outputs = model(x, training=False)
    return outputs["forward_logits"], outputs["backward_logits"]


def lm_logits(model, inputs) -> tuple[np.ndarray, np.ndarray]:
    """``(forward_logits, backward_logits)`` of a ``BiLanguageModel`` on ``inputs`` (ids with boundaries,
    ``text.batching.sentence_ids``), each float32 `(batch, time, vocab)`, through a graph compiled once per model (on
    JAX once per padded shape)."""
    rows, steps = np.shape(inputs)[:2]
    padded = padded_for_compilation(np.asarray(inputs), "graph")
    forward, backward = compiled(model, _logits, "graph", padded)(padded)
    return ops.convert_to_numpy(forward)[:rows, :steps], ops.convert_to_numpy(backward)[:rows, :steps]
