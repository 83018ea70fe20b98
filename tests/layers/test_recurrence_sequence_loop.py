"""The time loops: the hand-written LSTM backward pass equals autodiff through the same forward loop, and the
scanned and unrolled loops give the same outputs from any start state."""

import numpy as np
import pytest
from keras import ops

from elmo_keras._backend import scan_time
from elmo_keras.layers.recurrence import lstm_sequence, lstm_step, scanned_sequence, unrolled_sequence
from tests.support.backend_support import to_numpy, value_and_gradients


def autodiff_sequence(gates, recurrent, projection, cell_clip, proj_clip):
    state_dim = recurrent.shape[-2]
    units = gates.shape[-1] // 4
    lead = gates.shape[1:-1]
    h0, c0 = ops.zeros(lead + (state_dim,), gates.dtype), ops.zeros(lead + (units,), gates.dtype)

    def step(carry, gate_t):
        h, c = lstm_step(gate_t, carry[0], carry[1], recurrent, projection, cell_clip, proj_clip)
        return (h, c), (h,)

    return scan_time(step, (h0, c0), gates)[1][0]


@pytest.mark.parametrize(
    "projection, cell_clip, proj_clip, scale",
    [(None, None, None, 0.5), (3, 0.7, 0.4, 2.0), (3, None, None, 0.5), (None, 0.5, None, 2.0)],
)
def test_gradients_match_autodiff(projection, cell_clip, proj_clip, scale):
    rng = np.random.default_rng(0)
    steps, lead, units = 5, (2, 3), 4
    state_dim = projection or units
    gates = rng.normal(size=(steps,) + lead + (4 * units,)) * scale
    recurrent = rng.normal(size=(2, state_dim, 4 * units)) * scale
    proj = None if projection is None else rng.normal(size=(2, units, projection)) * scale
    weights = rng.normal(size=(steps,) + lead + (state_dim,))
    arrays = [gates, recurrent] + ([proj] if proj is not None else [])
    results = []
    for fn in (lstm_sequence, autodiff_sequence):
        def loss(gates, recurrent, proj=None, fn=fn):
            return ops.sum(ops.multiply(fn(gates, recurrent, proj, cell_clip, proj_clip), weights))

        outputs = to_numpy(fn(*(ops.convert_to_tensor(a) for a in arrays[:2]),
                              None if proj is None else ops.convert_to_tensor(proj), cell_clip, proj_clip))
        results.append((outputs, value_and_gradients(loss, arrays)[1]))
    (ours, our_grads), (reference, reference_grads) = results
    # float64 where the backend computes in it (JAX does in float32 unless x64 is enabled)
    exact = ops.convert_to_tensor(gates).dtype == "float64"
    np.testing.assert_allclose(ours, reference, atol=1e-12 if exact else 1e-5)
    if cell_clip is not None:
        assert np.abs(ours).max() > 0  # sanity: something flowed
    for ours_g, ref_g in zip(our_grads, reference_grads):
        np.testing.assert_allclose(ours_g, ref_g, atol=1e-10 if exact else 1e-4, rtol=1e-8 if exact else 1e-4)


def test_scan_time_runs_backwards_over_several_sequences():
    """``reverse=True`` walks t = T−1 … 0 and still stores step t's output at index t."""
    values = ops.convert_to_tensor([[1.0], [2.0], [3.0], [4.0]])
    weights = ops.convert_to_tensor([[1.0], [10.0], [100.0], [1000.0]])

    def step(carry, x_t):
        value, weight = x_t
        total = carry[0] + value * weight
        return (total,), (total,)

    (final,), (running,) = scan_time(step, (ops.zeros((1,)),), (values, weights), reverse=True)
    np.testing.assert_allclose(to_numpy(running)[:, 0], [4321.0, 4320.0, 4300.0, 4000.0])
    np.testing.assert_allclose(to_numpy(final), [4321.0])


@pytest.mark.parametrize("projection", [None, 3])
def test_scanned_and_unrolled_loops_agree_from_a_start_state(projection):
    rng = np.random.default_rng(1)
    steps, batch, units = 6, 2, 4
    state_dim = projection or units
    gates = rng.normal(size=(steps, batch, 4 * units)).astype("float32")
    recurrent = rng.normal(size=(state_dim, 4 * units)).astype("float32") * 0.5
    proj = None if projection is None else rng.normal(size=(units, projection)).astype("float32")
    h0 = rng.normal(size=(batch, state_dim)).astype("float32")
    c0 = rng.normal(size=(batch, units)).astype("float32")
    tensor = ops.convert_to_tensor
    gates, recurrent, h0, c0 = map(tensor, (gates, recurrent, h0, c0))
    proj = None if proj is None else tensor(proj)
    scanned_h, scanned_c = (to_numpy(t) for t in scanned_sequence(gates, h0, c0, recurrent, proj, 1.0, 0.8 if proj
                                                                 is not None else None))
    unrolled_h, unrolled_c = (to_numpy(t) for t in unrolled_sequence(ops.moveaxis(gates, 0, 1), h0, c0, recurrent, proj,
                                                                   1.0, 0.8 if proj is not None else None))
    np.testing.assert_allclose(np.moveaxis(scanned_h, 0, 1), unrolled_h, atol=1e-6)
    np.testing.assert_allclose(np.moveaxis(scanned_c, 0, 1), unrolled_c, atol=1e-6)
    h, c = h0, c0  # the first step by hand, through the single source of the equations
    h, c = lstm_step(gates[0], h, c, recurrent, proj, 1.0, 0.8 if proj is not None else None)
    np.testing.assert_allclose(unrolled_h[:, 0], to_numpy(h), atol=1e-6)
    if projection is None:  # from zero state, the custom-gradient loop agrees too
        zero = ops.zeros_like(h0), ops.zeros_like(c0)
        np.testing.assert_allclose(to_numpy(lstm_sequence(gates, recurrent, None, 1.0)),
                                   to_numpy(scanned_sequence(gates, *zero, recurrent, None, 1.0)[0]), atol=1e-6)
