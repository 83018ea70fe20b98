"""Every layer's vectors of a batch of token lists: the one embedding call under ``ElmoEmbedder``,
``layer_embeddings`` and the explorer (``embedding.jobs`` cuts their sentences into batches).

The biLM's forward pass is compiled once per biLM and execution mode (``models.bilm.compiled``): ``"graph"`` traces
one graph for every shape, ``"xla"`` compiles once per padded shape, ``"eager"`` runs the time loop from Python. With
a ``tf.distribute`` strategy each batch's rows are split across its replicas, in one graph.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from elmo_keras._backend import compiles_per_shape
from elmo_keras._quiet import ops
from elmo_keras.models.bilm.compiled import compiled, padded_for_compilation
from elmo_keras.text.batching import SentenceIds
from elmo_keras.text.char_ids import trim_character_padding


def _activations(bilm, x, matmul_dtype=None):
    return ops.stack(bilm(x, training=False, matmul_dtype=matmul_dtype)["activations"])  # (layers, B, T, 2 * dim)


@functools.cache
def _activations_in(matmul_dtype):
    """``_activations`` with the matmuls in ``matmul_dtype`` (``layers.matmul_dtype``): one function per dtype, so
    that ``compiled`` compiles and keeps each apart."""
    return _activations if matmul_dtype is None else functools.partial(_activations, matmul_dtype=matmul_dtype)


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
            the rest and the result in float32 (``BiLM``'s call argument; ``embedding.precision`` chooses it).

    Returns:
        float32 `(num_layers, batch, time, 2 * dim)`; padded positions are zero.
    """
    activations = compiled(bilm, _activations_in(matmul_dtype), execution, inputs, strategy)
    return ops.convert_to_numpy(activations(inputs))


def embed_token_lists(bilm, sentence_ids: SentenceIds, sentences: Sequence[Sequence[str]],
                      execution: str = "graph", time_bucket: int = 1, strategy=None,
                      rows: int | None = None, matmul_dtype=None) -> list[np.ndarray]:
    """Every layer's vectors for each sentence, boundaries added for the biLM and removed from the result.

    Args:
        bilm: a built ``BiLM``.
        sentence_ids: how sentences become its input (``text.batching.sentence_ids(bilm.token_input, ...)``).
        sentences: non-empty token lists, embedded as one batch.
        execution: ``"graph"``, ``"xla"`` or ``"eager"``. Where it compiles per shape (``"xla"``; JAX) the batch is
            also padded to ``rows`` rows (padding rows are masked), so that few shapes get compiled.
        time_bucket: pad the time axis to a multiple of this (int ≥ 1).
        strategy: split the batch across this strategy's replicas (``bilm_activations``). Defaults to None.
        rows: int ≥ ``len(sentences)``, the rows a mode that compiles per shape pads the batch to. Defaults to None
            (the next power of two).
        matmul_dtype: as for ``bilm_activations``. Defaults to None.

    Returns:
        One float32 array `(num_layers, len(sentence), 2 * dim)` per sentence.
    """
    longest = max(len(sentence) for sentence in sentences) + 2
    inputs = padded_for_compilation(sentence_ids(sentences, math.ceil(longest / time_bucket) * time_bucket),
                                    execution, rows)
    if bilm.token_input == "char" and not compiles_per_shape(execution):  # a path traced once for every shape
        inputs = trim_character_padding(inputs, bilm.token_encoder.widest_filter)
    activations = bilm_activations(bilm, inputs, execution, strategy, matmul_dtype)  # (layers, B, T, 2 * dim)
    return [np.ascontiguousarray(activations[:, row, 1 : len(sentence) + 1], dtype=np.float32)
            for row, sentence in enumerate(sentences)]
