"""LSTMStack: the stack runner against the cell under keras.layers.RNN, backward reading within each length,
skip connections, state carried per row (stateful), the standard layer checks."""

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.layers import (
    LSTMStack,
)
from tests.support.backend_support import to_numpy
from tests.support.layer_checks import check_layer

RNG = np.random.default_rng(0)


def test_lstm_stack_matches_cell_under_keras_rnn():
    stack = LSTMStack(8, num_layers=1, projection_dim=4, cell_clip=3.0, proj_clip=3.0)
    x = RNG.normal(size=(3, 7, 5)).astype("float32")
    ours = to_numpy(stack(x)[0])
    rnn = keras.layers.RNN(stack.cells[0], return_sequences=True)
    np.testing.assert_allclose(ours, to_numpy(rnn(x)), atol=1e-6)


@pytest.mark.parametrize("unroll", [False, True])
def test_lstm_stack_backward_reads_within_length(unroll):
    stack = LSTMStack(6, num_layers=2, go_backwards=True, unroll=unroll)
    x = RNG.normal(size=(1, 7, 4)).astype("float32")
    mask = np.array([[1, 1, 1, 1, 1, 0, 0]], bool)
    ours = [to_numpy(o) for o in stack(x, mask=mask)]
    forward_twin = LSTMStack(6, num_layers=2)
    forward_twin.build(x.shape)
    forward_twin.set_weights(stack.get_weights())
    reversed_real = x[:, 4::-1]
    expected = [to_numpy(o)[:, ::-1] for o in forward_twin(reversed_real)]
    for layer_out, layer_expected in zip(ours, expected):
        np.testing.assert_allclose(layer_out[:, :5], layer_expected, atol=1e-6)
        assert np.all(layer_out[:, 5:] == 0.0)


def test_skip_connections_add_the_layer_input():
    plain = LSTMStack(4, num_layers=2)
    skip = LSTMStack(4, num_layers=2, use_skip_connections=True)
    x = RNG.normal(size=(2, 5, 4)).astype("float32")
    plain.build(x.shape)
    skip.build(x.shape)
    skip.set_weights(plain.get_weights())
    p, s = [to_numpy(o) for o in plain(x)], [to_numpy(o) for o in skip(x)]
    np.testing.assert_allclose(s[0], p[0], atol=1e-7)
    assert not np.allclose(s[1], p[1])
    # layer 2 with skip = LSTM(layer-1 output) + layer-1 output

    manual = to_numpy(keras.layers.RNN(skip.cells[1], return_sequences=True)(s[0])) + s[0]
    np.testing.assert_allclose(s[1], manual, atol=1e-6)


def test_layer_checks_lstm_stack(tmp_path):
    x = RNG.normal(size=(3, 5, 4)).astype("float32")
    check_layer(lambda: LSTMStack(6, 2, projection_dim=3, cell_clip=3.0, proj_clip=3.0, go_backwards=True,
                                  name="stack"), x, tmp_path)


def test_stateful_stack_carries_state_per_row_and_resets():
    stack = LSTMStack(5, num_layers=2, stateful=True)
    first = RNG.normal(size=(3, 4, 3)).astype("float32")
    second = RNG.normal(size=(2, 4, 3)).astype("float32")
    stack(first)
    carried = to_numpy(stack(second)[-1])
    stateless = LSTMStack(5, num_layers=2)
    stateless.build(first.shape)
    stateless.set_weights(stack.get_weights())
    _, final = stateless.run(first)
    expected, _ = stateless.run(second, initial_states=[(h[:2], c[:2]) for h, c in final])
    np.testing.assert_allclose(carried, to_numpy(expected[-1]), atol=1e-6)
    stack.reset_states()
    np.testing.assert_allclose(to_numpy(stack(second)[-1]), to_numpy(stateless(second)[-1]), atol=1e-6)
