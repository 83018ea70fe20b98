"""A whole LSTM sequence with a hand-written backward pass (the cuDNN recipe), for fast training.

Autodiff through a symbolic time loop stores every intermediate of every step in per-op accumulators and
computes the recurrent weight gradient with a small matmul per step. Here the forward loop keeps only the
gate pre-activations ``z_t`` and the unclipped cells; the backward loop does one matmul per step
(``dz_t · Uᵀ``, plus one for the projection), and the weight gradients are single large matmuls over all
steps at once. The equations are ``projected_lstm_cell.lstm_update``'s (the forward loop calls it);
``tests/test_lstm_sequence.py`` checks outputs and gradients against autodiff through ``lstm_step``.
"""

from __future__ import annotations

from elmo_keras._quiet import keras
from elmo_keras._backend import scan_time
from elmo_keras.layers.projected_lstm_cell import lstm_update
from keras import ops


def _transpose(x):
    return ops.swapaxes(x, -1, -2)


def _clip_pass(values, clip):
    """1 where ``clip(values)`` lets the gradient through (inside the bounds), else 0."""
    if clip is None:
        return None
    return ops.cast(ops.abs(values) <= clip, values.dtype)


def lstm_sequence(gates, recurrent_kernel, projection_kernel=None, cell_clip=None, proj_clip=None):
    """Run the LSTM over all steps from zero state; differentiable with a hand-written gradient.

    Args:
        gates: time-major input gates ``x_t · W + b``, `(T, ..., B, 4U)`.
        recurrent_kernel: `(..., H, 4U)`; projection_kernel: `(..., U, H)` or None (then ``H = U``).
        cell_clip, proj_clip: as in ``ProjectedLSTMCell``.

    Returns:
        `(T, ..., B, H)`: ``h_t`` for every step.
    """
    if projection_kernel is None:

        @ops.custom_gradient
        def run(gates, recurrent_kernel):
            outputs, backward = _forward(gates, recurrent_kernel, None, cell_clip, proj_clip)

            def grad(*upstream, **_):
                d_gates, d_recurrent, _ = backward(upstream[0])
                return d_gates, d_recurrent

            return outputs, grad

        return run(gates, recurrent_kernel)

    @ops.custom_gradient
    def run_projected(gates, recurrent_kernel, projection_kernel):
        outputs, backward = _forward(gates, recurrent_kernel, projection_kernel, cell_clip, proj_clip)

        def grad(*upstream, **_):
            return backward(upstream[0])

        return outputs, grad

    return run_projected(gates, recurrent_kernel, projection_kernel)


def _forward(gates, recurrent_kernel, projection_kernel, cell_clip, proj_clip):
    units = ops.shape(gates)[-1] // 4
    state_dim = recurrent_kernel.shape[-2]
    lead = ops.shape(gates)[1:-1]  # (..., B)
    h0 = ops.zeros(tuple(lead) + (state_dim,), dtype=gates.dtype)
    c0 = ops.zeros(tuple(lead) + (units,), dtype=gates.dtype)

    def step(carry, gate_t):
        h, c = carry
        z = gate_t + ops.matmul(h, recurrent_kernel)
        new_h, new_c, c_raw = lstm_update(z, c, projection_kernel, cell_clip, proj_clip)
        return (new_h, new_c), (new_h, z, c_raw)

    _, (outputs, z_all, c_raw_all) = scan_time(step, (h0, c0), gates)  # (T, ..., B, ·)

    def backward(d_outputs):
        i, f = ops.sigmoid(z_all[..., :units]), ops.sigmoid(z_all[..., units : 2 * units])
        g, o = ops.tanh(z_all[..., 2 * units : 3 * units]), ops.sigmoid(z_all[..., 3 * units :])
        c_all = c_raw_all if cell_clip is None else ops.clip(c_raw_all, -cell_clip, cell_clip)
        tanh_c = ops.tanh(c_all)
        cell_pass = _clip_pass(c_raw_all, cell_clip)
        c_prev = ops.concatenate([c0[None], c_all[:-1]], axis=0)
        h_prev = ops.concatenate([h0[None], outputs[:-1]], axis=0)
        m_all = o * tanh_c
        proj_pass = None
        if projection_kernel is not None and proj_clip is not None:
            proj_pass = _clip_pass(ops.matmul(m_all, projection_kernel), proj_clip)
        recurrent_t = _transpose(recurrent_kernel)
        projection_t = None if projection_kernel is None else _transpose(projection_kernel)
        per_step = [d_outputs, i, f, g, o, tanh_c, c_prev]
        if cell_pass is not None:
            per_step.append(cell_pass)
        if proj_pass is not None:
            per_step.append(proj_pass)
        # reverse time: scan over flipped sequences, flip the results back
        flipped = ops.flip(ops.concatenate(per_step, axis=-1), axis=0)
        sizes = [d_outputs.shape[-1] or state_dim] + [units] * 6
        if cell_pass is not None:
            sizes.append(units)
        if proj_pass is not None:
            sizes.append(state_dim)
        offsets = [0]
        for size in sizes:
            offsets.append(offsets[-1] + size)

        def back_step(carry, packed):
            d_h_next, d_c_next = carry
            parts = [packed[..., offsets[k] : offsets[k + 1]] for k in range(len(sizes))]
            d_out, i_t, f_t, g_t, o_t, tanh_c_t, c_prev_t = parts[:7]
            rest = parts[7:]
            cell_pass_t = rest.pop(0) if cell_pass is not None else None
            proj_pass_t = rest.pop(0) if proj_pass is not None else None
            d_h = d_out + d_h_next
            if proj_pass_t is not None:
                d_h = d_h * proj_pass_t
            d_m = d_h if projection_t is None else ops.matmul(d_h, projection_t)
            d_c = d_m * o_t * (1.0 - tanh_c_t * tanh_c_t) + d_c_next  # dL/dc_t (after its clip)
            if cell_pass_t is not None:
                d_c = d_c * cell_pass_t  # dL/dc_t before the clip
            d_z = ops.concatenate(
                [
                    d_c * g_t * i_t * (1.0 - i_t),
                    d_c * c_prev_t * f_t * (1.0 - f_t),
                    d_c * i_t * (1.0 - g_t * g_t),
                    d_m * tanh_c_t * o_t * (1.0 - o_t),
                ],
                axis=-1,
            )
            return (ops.matmul(d_z, recurrent_t), d_c * f_t), (d_z, d_h)

        zero_h, zero_c = ops.zeros_like(h0), ops.zeros_like(c0)
        _, (d_z_flipped, d_h_flipped) = scan_time(back_step, (zero_h, zero_c), flipped)
        d_z_all, d_h_all = ops.flip(d_z_flipped, axis=0), ops.flip(d_h_flipped, axis=0)  # (T, ..., B, ·)

        def summed_outer(a, b):
            """Σ_t Σ_b a[t, ..., b, :]ᵀ b[t, ..., b, :] → `(..., a_dim, b_dim)`."""
            a = ops.moveaxis(a, 0, -2)  # (..., B, T, a)
            b = ops.moveaxis(b, 0, -2)
            shape_a, shape_b = ops.shape(a), ops.shape(b)
            a = ops.reshape(a, tuple(shape_a[:-3]) + (-1, shape_a[-1]))
            b = ops.reshape(b, tuple(shape_b[:-3]) + (-1, shape_b[-1]))
            return ops.matmul(_transpose(a), b)

        d_recurrent = summed_outer(h_prev, d_z_all)
        d_projection = None if projection_kernel is None else summed_outer(m_all, d_h_all)
        return d_z_all, d_recurrent, d_projection

    return outputs, backward
