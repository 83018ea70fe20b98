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

Every user of these equations calls these two functions: ``ProjectedLSTMCell.call``, the time loops of
``sequence_loop`` (and its hand-written gradient, which differentiates ``lstm_update``) and ``stack_runner``.
"""

from __future__ import annotations

from keras import ops


def lstm_step(input_gates, h, c, recurrent_kernel, projection_kernel=None, cell_clip=None, proj_clip=None):
    """One step of the equations above from precomputed ``x_t · W + b``.

    Shapes broadcast like ``ops.matmul``: ``input_gates (..., B, 4U)``, ``h (..., B, H)``, ``c (..., B, U)``,
    ``recurrent_kernel (..., H, 4U)``, ``projection_kernel (..., U, P)`` — a leading axis of 2 runs a forward
    and a backward cell together. Returns ``(h_t, c_t)``.
    """
    z = input_gates + ops.matmul(h, recurrent_kernel)
    h, c, _ = lstm_update(z, c, projection_kernel, cell_clip, proj_clip)
    return h, c


def lstm_update(z, c, projection_kernel=None, cell_clip=None, proj_clip=None):
    """From the gate pre-activations ``z = x·W + b + h·U`` `(..., 4U)` and ``c_{t-1}`` `(..., U)`:
    ``(h_t, c_t, c_t before clipping)``."""
    z_i, z_f, z_g, z_o = ops.split(z, 4, axis=-1)
    c_raw = ops.sigmoid(z_f) * c + ops.sigmoid(z_i) * ops.tanh(z_g)
    c = c_raw if cell_clip is None else ops.clip(c_raw, -cell_clip, cell_clip)
    h = ops.sigmoid(z_o) * ops.tanh(c)
    if projection_kernel is not None:
        h = ops.matmul(h, projection_kernel)
        if proj_clip is not None:
            h = ops.clip(h, -proj_clip, proj_clip)
    return h, c, c_raw
