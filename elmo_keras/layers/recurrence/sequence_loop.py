"""The time loop over a whole sequence from zero state, with a hand-written backward pass (the cuDNN recipe).

Autodiff through a symbolic time loop stores every intermediate of every step in per-op accumulators and
computes the recurrent weight gradient with a small matmul per step. Here the forward loop keeps only the
gate pre-activations ``z_t`` and the unclipped cells. Everything in the gradient that does not depend on
the upstream gradient (the gate derivatives, ``o ⊙ (1 − tanh² c)``, the next forget gate, the clip masks) is
computed for all steps at once, so the backward loop (a reverse scan, no flipping) is a handful of ops and one
matmul per step (``dz_t · Uᵀ``, plus one for the projection); the weight gradients are single large matmuls
over all steps. The equations are ``cell_math.lstm_update``'s (the forward loop calls it);
``tests/layers/test_recurrence_sequence_loop.py`` checks outputs and gradients against autodiff through ``lstm_step``.
"""

from __future__ import annotations

from elmo_keras._backend import scan_time
from elmo_keras._quiet import ops
from elmo_keras.layers.recurrence.cell_math import lstm_step, lstm_update


def _transpose(x):
    return ops.swapaxes(x, -1, -2)


def _clip_pass(values, clip):
    """1 where ``clip(values)`` lets the gradient through (inside the bounds), else 0."""
    if clip is None:
        return None
    return ops.cast(ops.abs(values) <= clip, values.dtype)


def _upstream(args, upstream):
    """The output gradient a ``custom_gradient`` function receives: TensorFlow and JAX pass it as the only
    positional argument; Keras' PyTorch backend passes the forward inputs positionally and it as ``upstream``."""
    return upstream if upstream is not None else args[0]


def lstm_sequence(gates, recurrent_kernel, projection_kernel=None, cell_clip=None, proj_clip=None):
    """Run the LSTM over all steps from zero state; differentiable with a hand-written gradient.

    Args:
        gates: time-major input gates ``x_t · W + b``, `(T, ..., B, 4U)`.
        recurrent_kernel: `(..., H, 4U)`; projection_kernel: `(..., U, H)` or None (then ``H = U``).
        cell_clip, proj_clip: as in ``ProjectedLSTMCell``.

    Returns:
        `(T, ..., B, H)`: ``h_t`` for every step.
    """
    # a layer's weights may arrive as variables (``LSTMStack.direction()`` in float32): read them as tensors, which
    # the hand-written gradient transposes and the gradient tape traces back to the variables
    recurrent_kernel = ops.copy(recurrent_kernel)
    projection_kernel = None if projection_kernel is None else ops.copy(projection_kernel)
    if projection_kernel is None:

        @ops.custom_gradient
        def run(gates, recurrent_kernel):
            outputs, backward = _forward(gates, recurrent_kernel, None, cell_clip, proj_clip)

            def grad(*args, upstream=None, **_):
                d_gates, d_recurrent, _ = backward(_upstream(args, upstream))
                return d_gates, d_recurrent

            return outputs, grad

        return run(gates, recurrent_kernel)

    @ops.custom_gradient
    def run_projected(gates, recurrent_kernel, projection_kernel):
        outputs, backward = _forward(gates, recurrent_kernel, projection_kernel, cell_clip, proj_clip)

        def grad(*args, upstream=None, **_):
            return backward(_upstream(args, upstream))

        return outputs, grad

    return run_projected(gates, recurrent_kernel, projection_kernel)


def _forward(gates, recurrent_kernel, projection_kernel, cell_clip, proj_clip):
    units = recurrent_kernel.shape[-1] // 4
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
        # Everything that does not depend on the upstream gradient, for all steps at once:
        #   dL/dz_t = [dc_t, dc_t, dc_t, dm_t] ⊙ gate_factor_t
        #   dL/dc_t = (dm_t ⊙ cell_factor_t + dL/dc_{t+1} ⊙ f_{t+1}) ⊙ cell_pass_t
        z_i, z_f, z_g, z_o = ops.split(z_all, 4, axis=-1)
        i, f, g, o = ops.sigmoid(z_i), ops.sigmoid(z_f), ops.tanh(z_g), ops.sigmoid(z_o)
        c_all = c_raw_all if cell_clip is None else ops.clip(c_raw_all, -cell_clip, cell_clip)
        tanh_c = ops.tanh(c_all)
        c_prev = ops.concatenate([c0[None], c_all[:-1]], axis=0)
        h_prev = ops.concatenate([h0[None], outputs[:-1]], axis=0)
        m_all = o * tanh_c
        gate_factor = ops.concatenate(
            [g * i * (1.0 - i), c_prev * f * (1.0 - f), i * (1.0 - g * g), tanh_c * o * (1.0 - o)], axis=-1
        )
        cell_factor = o * (1.0 - tanh_c * tanh_c)
        f_next = ops.concatenate([f[1:], ops.zeros_like(f[:1])], axis=0)  # f_{t+1}; nothing after the last step
        per_step = [d_outputs, gate_factor, cell_factor, f_next]
        cell_pass = _clip_pass(c_raw_all, cell_clip)
        if cell_pass is not None:
            per_step.append(cell_pass)
        proj_pass = None
        if projection_kernel is not None and proj_clip is not None:
            proj_pass = _clip_pass(ops.matmul(m_all, projection_kernel), proj_clip)
            per_step.append(proj_pass)
        recurrent_t = _transpose(recurrent_kernel)
        projection_t = None if projection_kernel is None else _transpose(projection_kernel)

        def back_step(carry, per_t):
            d_h_next, d_c_next = carry  # dL/dh_t through step t+1, dL/dc_{t+1}
            d_out, gate_factor_t, cell_factor_t, f_next_t = per_t[:4]
            rest = list(per_t[4:])
            cell_pass_t = rest.pop(0) if cell_pass is not None else None
            proj_pass_t = rest.pop(0) if proj_pass is not None else None
            d_h = d_out + d_h_next
            if proj_pass_t is not None:
                d_h = d_h * proj_pass_t
            d_m = d_h if projection_t is None else ops.matmul(d_h, projection_t)
            d_c = d_m * cell_factor_t + d_c_next * f_next_t  # dL/dc_t (after its clip)
            if cell_pass_t is not None:
                d_c = d_c * cell_pass_t  # dL/dc_t before the clip
            d_z = ops.concatenate([d_c, d_c, d_c, d_m], axis=-1) * gate_factor_t
            return (ops.matmul(d_z, recurrent_t), d_c), ((d_z, d_h) if projection_t is not None else (d_z,))

        zero_h, zero_c = ops.zeros_like(h0), ops.zeros_like(c0)
        _, per_step_grads = scan_time(back_step, (zero_h, zero_c), tuple(per_step), reverse=True)
        d_z_all = per_step_grads[0]  # (T, ..., B, 4U)

        def summed_outer(a, b):
            """Σ_t Σ_b a[t, ..., b, :]ᵀ b[t, ..., b, :] → `(..., a_dim, b_dim)`."""
            a = ops.moveaxis(a, 0, -2)  # (..., B, T, a)
            b = ops.moveaxis(b, 0, -2)
            shape_a, shape_b = ops.shape(a), ops.shape(b)
            a = ops.reshape(a, tuple(shape_a[:-3]) + (-1, shape_a[-1]))
            b = ops.reshape(b, tuple(shape_b[:-3]) + (-1, shape_b[-1]))
            return ops.matmul(_transpose(a), b)

        d_recurrent = summed_outer(h_prev, d_z_all)
        d_projection = None if projection_kernel is None else summed_outer(m_all, per_step_grads[1])
        return d_z_all, d_recurrent, d_projection

    return outputs, backward


def scanned_sequence(gates, h0, c0, recurrent_kernel, projection_kernel=None, cell_clip=None, proj_clip=None):
    """The same loop from a given state, differentiated by autodiff; also returns every cell state.

    For what ``lstm_sequence`` cannot do: start from a carried state (``LSTMStack(stateful=True)``,
    ``initial_states``) and hand back the final states.

    Args:
        gates: time-major ``x_t · W + b``, `(T, ..., B, 4U)`; h0 `(..., B, H)`, c0 `(..., B, U)`.
        recurrent_kernel, projection_kernel, cell_clip, proj_clip: as in ``lstm_sequence``.

    Returns:
        ``(all_h, all_c)``, `(T, ..., B, H)` and `(T, ..., B, U)`.
    """

    def step(carry, gate_t):
        h, c = lstm_step(gate_t, carry[0], carry[1], recurrent_kernel, projection_kernel, cell_clip, proj_clip)
        return (h, c), (h, c)

    _, (all_h, all_c) = scan_time(step, (h0, c0), gates)
    return all_h, all_c


def side_by_side_sequences(gates, recurrent_kernels, projection_kernels, cell_clip=None, proj_clip=None, fuse=None):
    """Independent LSTMs (a forward and a backward direction) from zero state in one time loop, keeping only ``h``.

    The inference loop: each direction keeps its own 2-D products and nothing but ``h_t`` leaves the loop (the
    training loop, ``lstm_sequence``, also stores ``z_t`` and ``c_t`` for its backward pass and stacks the two
    directions, which costs a copy per step). Still differentiable, by autodiff.

    Args:
        gates: per direction, time-major ``x_t · W + b`` `(T, B, 4U)`.
        recurrent_kernels: per direction `(H, 4U)`; projection_kernels: per direction `(U, H)` or None.
        cell_clip, proj_clip: as in ``lstm_sequence``.
        fuse: how each step's elementwise part runs (``cell_math.lstm_step``). Defaults to None (op by op).

    Returns:
        A list with, per direction, `(T, B, H)`: ``h_t`` for every step.
    """
    count = len(gates)
    batch = ops.shape(gates[0])[1]
    h0 = tuple(ops.zeros((batch, kernel.shape[-2]), gates[0].dtype) for kernel in recurrent_kernels)
    c0 = tuple(ops.zeros((batch, kernel.shape[-1] // 4), gates[0].dtype) for kernel in recurrent_kernels)

    def step(carry, gates_t):
        states = [lstm_step(gates_t[d], carry[d], carry[count + d], recurrent_kernels[d], projection_kernels[d],
                            cell_clip, proj_clip, fuse) for d in range(count)]
        hs = tuple(h for h, _ in states)
        return hs + tuple(c for _, c in states), hs

    _, outputs = scan_time(step, h0 + c0, tuple(gates))
    return list(outputs)


def unrolled_sequence(gates, h0, c0, recurrent_kernel, projection_kernel=None, cell_clip=None, proj_clip=None):
    """The loop unrolled in Python over the static number of steps (what XLA compiles into the fastest inference).

    Args and returns as ``scanned_sequence``, with a batch-major ``gates`` `(B, T, 4U)` whose ``T`` is known
    when tracing; returns `(B, T, H)` and `(B, T, U)`.
    """
    hs, cs = [], []
    h, c = h0, c0
    for t in range(gates.shape[1]):
        h, c = lstm_step(gates[:, t], h, c, recurrent_kernel, projection_kernel, cell_clip, proj_clip)
        hs.append(h)
        cs.append(c)
    return ops.stack(hs, axis=1), ops.stack(cs, axis=1)
