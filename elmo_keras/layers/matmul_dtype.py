"""Matmuls in a narrower dtype than the rest of a layer, for inference: the ``matmul_dtype`` call argument.

``BiLM``, ``LSTMStack``, ``CharCNN`` and ``Highway`` take ``matmul_dtype=None`` (their compute dtype) or
``"bfloat16"``: each call casts the layer's kernels to it once (never once per time step) and every product
``x · W`` rounds its float32 input to bfloat16, multiplies (the matmul accumulates in float32: oneDNN on CPUs with
AVX512-BF16 or AMX), rounds the product once to bfloat16 (the engines' bfloat16 matmuls return bfloat16) and hands
it back as float32. Biases, LSTM states, gates' nonlinearities, clipping, residuals and outputs stay in the compute
dtype, so only the matmul inputs and products are rounded (8 significant bits, a relative error of at most 2⁻⁹
each). ``ElmoEmbedder(precision=...)`` chooses it; training uses mixed dtype policies instead.
"""

from __future__ import annotations

from keras import ops

from elmo_keras._quiet import keras

MATMUL_DTYPES = ("float32", "bfloat16")


def check_matmul_dtype(matmul_dtype, training=None) -> None:
    """Raise a ``ValueError`` for a ``matmul_dtype`` other than None or one of ``MATMUL_DTYPES``, or for one given
    with ``training=True`` (the narrowed matmuls are for inference; train with ``dtype="mixed_bfloat16"``)."""
    if matmul_dtype is None:
        return
    if matmul_dtype not in MATMUL_DTYPES:
        raise ValueError(f"matmul_dtype must be None or one of {MATMUL_DTYPES}, received {matmul_dtype!r}")
    if training:
        raise ValueError(f"matmul_dtype={matmul_dtype!r} is for inference; train in bfloat16 with a mixed dtype "
                         "policy instead (dtype='mixed_bfloat16', or training_precision for a biLM)")


def kernel_for(variable, matmul_dtype, compute_dtype):
    """A layer's kernel as the tensor its products read: cast to ``matmul_dtype``, else to ``compute_dtype``."""
    return ops.cast(variable.value, matmul_dtype or compute_dtype)


def narrow_matmul(x, kernel):
    """``x · kernel``, `(..., in) · (..., in, out) → (..., out)`, with ``x`` cast to ``kernel``'s dtype and the result
    left in it (a bfloat16 product of float32 accumulation, rounded once to bfloat16)."""
    kernel_dtype = keras.backend.standardize_dtype(kernel.dtype)
    if keras.backend.standardize_dtype(x.dtype) != kernel_dtype:
        x = ops.cast(x, kernel_dtype)
    return ops.matmul(x, kernel)


def product(x, kernel):
    """``x · kernel``, `(..., in) · (..., in, out) → (..., out)`, run in ``kernel``'s dtype and returned in ``x``'s.

    With a bfloat16 ``kernel`` and a float32 ``x``, ``x`` is rounded to bfloat16 for the matmul (which accumulates
    in float32) and the product comes back as float32. With equal dtypes it is a plain ``ops.matmul``.
    """
    return ops.cast(narrow_matmul(x, kernel), x.dtype)
