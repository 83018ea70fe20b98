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

import weakref

from elmo_keras._backend import compiled_functions_take_variables_as_constants
from elmo_keras._quiet import keras, ops

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


# id(float32 kernel) → (dtype, its narrowed copy, a weak reference to the kernel): ``keep_narrowed_kernels``
_NARROWED_COPIES: dict[int, tuple] = {}


class TransposedKernel:
    """A matrix kernel `(in, out)` held as its transpose `(out, in)`: how ``keep_narrowed_kernels`` stores a
    bfloat16 copy, because oneDNN's bfloat16 matmul reads that layout faster (docs/speed.md, "Transposed bfloat16
    kernels"; float32 is the other way round). ``narrow_matmul`` multiplies by it as
    ``x · transpose(t)``, a transpose that TensorFlow's graph optimiser folds into the matmul (the speed of
    ``transpose_b``). ``dtype`` and ``shape`` are those of the kernel it stands for."""

    def __init__(self, transposed):
        self.transposed = transposed  # (out, in)

    @property
    def dtype(self):
        return self.transposed.dtype

    @property
    def shape(self) -> tuple:
        return tuple(reversed(tuple(self.transposed.shape)))


def matrix(kernel):
    """``kernel`` as a tensor `(..., in, out)`: a ``TransposedKernel`` transposed back, anything else as is (for the
    few places that stack kernels instead of multiplying by them)."""
    return ops.transpose(kernel.transposed) if isinstance(kernel, TransposedKernel) else kernel


def kernel_for(variable, matmul_dtype, compute_dtype):
    """A layer's kernel as its products read it: cast to ``matmul_dtype`` — or its kept copy
    (``keep_narrowed_kernels``; a matrix as a ``TransposedKernel``) — else cast to ``compute_dtype``."""
    if matmul_dtype is not None:
        kept = _NARROWED_COPIES.get(id(variable))
        if kept is not None and kept[0] == matmul_dtype and kept[2]() is variable:
            copy = kept[1].value
            return TransposedKernel(copy) if len(variable.shape) == 2 else copy
    return ops.cast(variable.value, matmul_dtype or compute_dtype)


def keep_narrowed_kernels(layer, matmul_dtype) -> int:
    """Make ``matmul_dtype`` copies of ``layer``'s kernels once, which ``kernel_for`` then reads instead of casting
    the float32 kernels at every call (matrices stored transposed: ``TransposedKernel``). Only for weights that will
    not change: a later change to a kernel is not seen by its copy (``ElmoEmbedder`` keeps copies of the biLM it
    loads itself, and marks it non-trainable). The copies go when their kernels go. On JAX none are kept (a
    compiled function would take them as constants); the vectors are the same with or without them.

    Args:
        layer: a built Keras layer (its floating-point weights of rank ≥ 2 are the kernels).
        matmul_dtype: ``"bfloat16"`` (one of ``MATMUL_DTYPES``); None keeps nothing.

    Returns:
        The bytes the copies hold (0 where none are kept).
    """
    check_matmul_dtype(matmul_dtype)
    if matmul_dtype is None or compiled_functions_take_variables_as_constants():
        return 0
    kept_bytes = 0
    for variable in layer.weights:
        dtype = keras.backend.standardize_dtype(variable.dtype)
        if len(variable.shape) < 2 or "float" not in dtype or dtype == matmul_dtype:
            continue
        narrowed = ops.cast(variable.value, matmul_dtype)
        copy = keras.Variable(ops.transpose(narrowed) if len(variable.shape) == 2 else narrowed, dtype=matmul_dtype,
                              trainable=False, name=f"{variable.name}_{matmul_dtype}")
        key = id(variable)
        _NARROWED_COPIES[key] = (matmul_dtype, copy, weakref.ref(variable))
        weakref.finalize(variable, _NARROWED_COPIES.pop, key, None)
        bits = int("".join(filter(str.isdigit, matmul_dtype)))
        kept_bytes += int(ops.size(copy)) * bits // 8
    return kept_bytes


def narrow_matmul(x, kernel):
    """``x · kernel``, `(..., in) · (..., in, out) → (..., out)` (``kernel`` a tensor or a ``TransposedKernel``),
    with ``x`` cast to ``kernel``'s dtype and the result left in it (a bfloat16 product of float32 accumulation,
    rounded once to bfloat16)."""
    kernel_dtype = keras.backend.standardize_dtype(kernel.dtype)
    if keras.backend.standardize_dtype(x.dtype) != kernel_dtype:
        x = ops.cast(x, kernel_dtype)
    return ops.matmul(x, matrix(kernel))  # a TransposedKernel's transpose is folded into the matmul


def product(x, kernel):
    """``x · kernel``, `(..., in) · (..., in, out) → (..., out)`, run in ``kernel``'s dtype and returned in ``x``'s.

    With a bfloat16 ``kernel`` and a float32 ``x``, ``x`` is rounded to bfloat16 for the matmul (which accumulates
    in float32) and the product comes back as float32. With equal dtypes it is a plain ``ops.matmul``.
    """
    return ops.cast(narrow_matmul(x, kernel), x.dtype)
