"""The ELMo cell's equations, written once: an LSTM with an optional projection and optional clipping.

Gate order ``i, f, g, o`` as in Keras, the forget-gate bias folded into ``b``::

    z            = x_t · W + b + h_{t-1} · U                  # (batch, 4 * units)
    i, f, g, o   = σ(z_i), σ(z_f), tanh(z_g), σ(z_o)
    c_t          = clip(f ⊙ c_{t-1} + i ⊙ g, ±cell_clip)       # (batch, units)
    m_t          = o ⊙ tanh(c_t)                               # (batch, units)
    h_t          = clip(m_t · P, ±proj_clip)   if projection    # (batch, projection_dim)
                 = m_t                          otherwise

``h_t`` is both the output and the recurrent state, so ``U`` has shape ``(output_size, 4 * units)``. This is
the cell of bilm-tf (TensorFlow's ``LSTMCell(num_proj=..., cell_clip=..., proj_clip=...)``) with the gate order
converted and its constant forget bias of 1.0 added to ``b`` (see ``elmo_keras.pretrained``).

The products ``x · W``, ``h · U`` and ``m · P`` run in their kernel's dtype (``layers.matmul_dtype.product``):
bfloat16 kernels (``LSTMStack.direction(matmul_dtype="bfloat16")`` casts them once per call) give bfloat16 matmuls
while ``h``, ``c``, the gates, the clipping and every result stay in the compute dtype.

Every user of these equations calls ``lstm_step`` or ``lstm_update`` (both built from ``memory_update`` and
``projected``): ``ProjectedLSTMCell.call``, the time loops of ``sequence_loop`` (and its hand-written gradient,
which differentiates ``lstm_update``) and ``stack_runner``.
"""

from __future__ import annotations

from elmo_keras._quiet import ops
from elmo_keras.layers.matmul_dtype import narrow_matmul, product


def lstm_step(input_gates, h, c, recurrent_kernel, projection_kernel=None, cell_clip=None, proj_clip=None,
              fuse=None):
    """One step of the equations above from precomputed ``x_t · W + b``.

    Shapes broadcast like ``ops.matmul``: ``input_gates (..., B, 4U)``, ``h (..., B, H)``, ``c (..., B, U)``,
    ``recurrent_kernel (..., H, 4U)``, ``projection_kernel (..., U, P)`` — a leading axis of 2 runs a forward
    and a backward cell together. ``fuse``: how the elementwise part between the two products runs, ``fn -> fn``
    (``_backend.fused_elementwise``); default: op by op. Returns ``(h_t, c_t)``.
    """
    recurrent = narrow_matmul(h, recurrent_kernel)  # h · U in U's dtype
    m, c = (fuse or _op_by_op)(cell_update)(input_gates, recurrent, c, cell_clip)
    return projected(m, projection_kernel, proj_clip), c


def _op_by_op(fn):
    return fn


def cell_update(input_gates, recurrent, c, cell_clip=None):
    """``(m_t, c_t)`` from the two terms of ``z``: ``x · W + b`` `(..., 4U)` and ``h · U`` (`(..., 4U)`, in any
    dtype: added in the first one's), and ``c_{t-1}`` `(..., U)`; elementwise only."""
    m, c, _ = memory_update(input_gates + ops.cast(recurrent, input_gates.dtype), c, cell_clip)
    return m, c


def lstm_update(z, c, projection_kernel=None, cell_clip=None, proj_clip=None):
    """From the gate pre-activations ``z = x·W + b + h·U`` `(..., 4U)` and ``c_{t-1}`` `(..., U)`:
    ``(h_t, c_t, c_t before clipping)``."""
    m, c, c_raw = memory_update(z, c, cell_clip)
    return projected(m, projection_kernel, proj_clip), c, c_raw


def memory_update(z, c, cell_clip=None):
    """The gates, the memory cell and the cell output: ``(m_t, c_t, c_t before clipping)``, each `(..., U)`."""
    z_i, z_f, z_g, z_o = ops.split(z, 4, axis=-1)
    c_raw = ops.sigmoid(z_f) * c + ops.sigmoid(z_i) * ops.tanh(z_g)
    c = c_raw if cell_clip is None else ops.clip(c_raw, -cell_clip, cell_clip)
    return ops.sigmoid(z_o) * ops.tanh(c), c, c_raw


def projected(m, projection_kernel=None, proj_clip=None):
    """``h_t = clip(m_t · P, ±proj_clip)``, or ``m_t`` without a projection."""
    if projection_kernel is None:
        return m
    h = product(m, projection_kernel)
    return h if proj_clip is None else ops.clip(h, -proj_clip, proj_clip)
