"""``precision=`` of inference (``ElmoEmbedder``, ``embed_file``, ``layer_embeddings``): float32 or bfloat16 matmuls.

- ``"float32"``: every operation in float32.
- ``"bfloat16"``: the biLM's matmuls and the character CNN's convolutions take bfloat16 inputs and weights (the weights
  cast once per call, never per time step, or kept as bfloat16 copies: below) and accumulate in float32, each product
  rounded once to bfloat16; LSTM states, gates' nonlinearities, clipping, residuals and the vectors returned stay
  float32 (``layers.matmul_dtype``). The vectors differ from float32's by rounding only: per-token cosine ≥ 0.9999
  (``tests/test_inference_precision.py``).
- ``"auto"``: bfloat16 where all of these hold, else float32:

  1. TensorFlow on a CPU with native bfloat16 arithmetic (AVX512-BF16 or AMX) and no GPU in use
     (``_backend.has_native_bfloat16_inference``); emulated bfloat16 is slower than float32.
  2. A model of at least ``BFLOAT16_MIN_MACS_PER_TOKEN`` multiply-adds per token
     (``inference_plan.macs_per_token``): ELMo's published sizes (small: 22 M, original: 102 M) use bfloat16; the
     models of tests and lectures (the bilm-tf test models: 0.2 M, the toy presets: about 2 M) stay float32.
     bfloat16 measured faster at every size down to the test models (``benchmarks/bf16_inference.py``,
     docs/speed.md), so the threshold is not a speed crossover: it keeps small models, whose batches take
     milliseconds either way, exactly comparable with the original ELMo (1e-5).

An ``ElmoEmbedder`` that loads its own weights keeps bfloat16 copies of its kernels, made once (matrices stored
transposed, the layout oneDNN's bfloat16 matmul reads fastest: ``layers.matmul_dtype.keep_narrowed_kernels``), so that
one short sentence pays no cast either: bfloat16 is then as fast as float32 or faster at one sentence too
(docs/speed.md). A biLM passed as ``bilm=`` may still change, so its kernels are cast at every call. On JAX and PyTorch
``"bfloat16"`` runs through the same ``keras.ops`` casts (the same rounding, unmeasured for speed) and ``"auto"`` is
float32. ``precision`` is independent of ``execution``: every mode honours it, but XLA's CPU compiler gains nothing from
bfloat16, so with bfloat16 ``execution="auto"`` keeps to the graph (``execution_with``).
"""

from __future__ import annotations

from elmo_keras._backend import has_native_bfloat16_inference
from elmo_keras.models.bilm.inference_plan import AUTO, macs_per_token

PRECISIONS = (AUTO, "float32", "bfloat16")
BFLOAT16_MIN_MACS_PER_TOKEN = 10e6  # between the toy presets (about 2 M) and ELMo-small (22 M)


def check_precision(precision: str) -> str:
    """``precision`` checked to be one of ``PRECISIONS`` (a ValueError naming the value and the choices otherwise)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, received {precision!r}")
    return precision


def inference_matmul_dtype(bilm, precision: str) -> str | None:
    """The ``matmul_dtype`` a ``BiLM``'s inference calls run with for ``precision`` (see the module docstring).

    Args:
        bilm: the ``BiLM`` (its sizes decide ``"auto"``).
        precision: ``"auto"``, ``"float32"`` or ``"bfloat16"``.

    Returns:
        ``"bfloat16"``, or None for float32 (the biLM's own compute dtype).

    Raises:
        ValueError: an unknown ``precision``.
    """
    check_precision(precision)
    if precision == AUTO:
        pays = has_native_bfloat16_inference() and macs_per_token(bilm) >= BFLOAT16_MIN_MACS_PER_TOKEN
        precision = "bfloat16" if pays else "float32"
    return "bfloat16" if precision == "bfloat16" else None


def execution_with(execution: str, matmul_dtype: str | None) -> str:
    """``execution`` as it runs with ``matmul_dtype``: ``"auto"`` keeps to the graph with bfloat16 matmuls, where
    XLA's CPU compiler gains nothing from them (``inference_plan`` weighs XLA's float32 speed); otherwise as is."""
    return "graph" if execution == AUTO and matmul_dtype is not None else execution
