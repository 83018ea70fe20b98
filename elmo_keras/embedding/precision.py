"""``precision=`` of embedding (``ElmoEmbedder``, ``embed_file``, ``layer_embeddings``): float32 or bfloat16 matmuls.

- ``"float32"``: every operation in float32.
- ``"bfloat16"``: the biLM's matmuls and the character CNN's convolutions take bfloat16 inputs and weights (the weights
  cast once per call, never per time step, or kept as bfloat16 copies: below) and accumulate in float32, each product
  rounded once to bfloat16; LSTM states, gates' nonlinearities, clipping, residuals and the vectors returned stay
  float32 (``layers.matmul_dtype``). The vectors differ from float32's by rounding only: per-token cosine ≥ 0.9999
  (``tests/embedding/test_inference_precision.py``).
- ``"auto"``: bfloat16 where all of these hold, else float32 (always float32 for a biLM whose ``matmul_dtypes`` lack
  bfloat16, a ``TransformerBiLM``):

  1. TensorFlow on a CPU with native bfloat16 arithmetic (AVX512-BF16 or AMX) and no GPU in use
     (``_backend.has_native_bfloat16_inference``); emulated bfloat16 is slower than float32.
  2. A model of at least ``BFLOAT16_MIN_MACS_PER_TOKEN`` multiply-adds per token
     (``macs_per_token``): ELMo's published sizes (small: 22 M, original: 102 M) use bfloat16; the
     models of tests and lectures (the bilm-tf test models: 0.2 M, the toy presets: about 2 M) stay float32.
     bfloat16 measured faster at every size down to the test models (``benchmarks/bf16_inference.py``,
     docs/speed.md), so the threshold is not a speed crossover: it keeps small models, whose batches take
     milliseconds either way, exactly comparable with the original ELMo (1e-5).

An ``ElmoEmbedder`` that loads its own weights keeps bfloat16 copies of its kernels, made once (matrices stored
transposed, the layout oneDNN's bfloat16 matmul reads fastest: ``layers.matmul_dtype.keep_narrowed_kernels``), so that
one short sentence pays no cast either: bfloat16 is then as fast as float32 or faster at one sentence too
(docs/speed.md). A biLM passed as ``bilm=`` may still change, so its kernels are cast at every call. On JAX and PyTorch
``"bfloat16"`` runs through the same ``keras.ops`` casts (the same rounding, unmeasured for speed) and ``"auto"`` is
float32. ``precision`` is independent of ``execution``: every mode honours it (XLA's CPU compiler gains nothing from
bfloat16: docs/speed.md).
"""

from __future__ import annotations

from elmo_keras._backend import has_native_bfloat16_inference
from elmo_keras.embedding.choices import AUTO, check_precision

BFLOAT16_MIN_MACS_PER_TOKEN = 10e6  # between the toy presets (about 2 M) and ELMo-small (22 M)


def inference_matmul_dtype(bilm, precision: str) -> str | None:
    """The ``matmul_dtype`` a ``BiLM``'s inference calls run with for ``precision`` (see the module docstring).

    Args:
        bilm: the ``BiLM`` (its sizes decide ``"auto"``).
        precision: ``"auto"``, ``"float32"`` or ``"bfloat16"``.

    Returns:
        ``"bfloat16"``, or None for float32 (the biLM's own compute dtype).

    Raises:
        ValueError: an unknown ``precision``, or ``"bfloat16"`` for a biLM without bfloat16 matmuls (its
            ``matmul_dtypes``: a ``TransformerBiLM``).
    """
    check_precision(precision)
    narrows = "bfloat16" in bilm.matmul_dtypes  # an LSTM BiLM does; a TransformerBiLM runs in its compute dtype
    if precision == AUTO:
        pays = narrows and has_native_bfloat16_inference() and macs_per_token(bilm) >= BFLOAT16_MIN_MACS_PER_TOKEN
        precision = "bfloat16" if pays else "float32"
    if precision == "bfloat16" and not narrows:
        raise ValueError(f"precision='bfloat16' needs a biLM with bfloat16 matmuls; a {type(bilm).__name__} runs "
                         "them in its compute dtype: use precision='float32' or 'auto'")
    return "bfloat16" if precision == "bfloat16" else None


def macs_per_token(bilm) -> float:
    """The multiply-adds per token of a ``BiLM``'s forward pass (``macs_per_token_parts``, summed)."""
    return sum(macs_per_token_parts(bilm))


def macs_per_token_parts(bilm) -> tuple[float, float]:
    """``(encoder, recurrence)``: the multiply-adds per token of a ``BiLM``'s forward pass in its token encoder (a
    character CNN: each kernel at every position of the token's characters, highway and projection; a word
    embedding's lookup counts nothing) and in its LSTM stacks (per direction and layer the input, recurrent and
    projection matrices). ``benchmarks/inference_paths.py`` reports each part's speed."""
    encoder = bilm.token_encoder
    encoder_macs = 0.0
    if hasattr(encoder, "num_filters"):  # a CharCNN
        chars, dim, filters = encoder.max_characters_per_token, encoder.embedding_dim, encoder.num_filters
        encoder_macs += sum(count * width * dim * (chars - width + 1) for width, count in encoder.filters)
        encoder_macs += encoder.n_highway * filters * 2 * filters + filters * encoder.projection_dim
    units = bilm.units
    width = bilm.projection_dim or units
    token_dim = bilm.output_dim // 2
    recurrence_macs = 0.0
    for layer in range(bilm.num_layers):
        inputs = token_dim if layer == 0 else width
        recurrence_macs += 2 * ((inputs + width) * 4 * units + (units * width if bilm.projection_dim else 0))
    return encoder_macs, recurrence_macs
