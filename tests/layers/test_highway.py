"""Highway: the formula, the standard layer checks."""

import numpy as np

from elmo_keras.layers import (
    Highway,
)
from tests.support.backend_support import to_numpy
from tests.support.layer_checks import check_layer
from tests.support.lstm_reference import sigmoid

RNG = np.random.default_rng(0)


def test_highway_formula():
    layer = Highway(num_layers=1)
    x = RNG.normal(size=(3, 5)).astype("float32")
    layer(x)
    w_h, b_h, w_t, b_t = [RNG.normal(size=w.shape).astype("float32") for w in layer.weights]
    layer.set_weights([w_h, b_h, w_t, b_t])
    gate = sigmoid(x @ w_t + b_t)
    expected = gate * np.maximum(x @ w_h + b_h, 0) + (1 - gate) * x
    np.testing.assert_allclose(to_numpy(layer(x)), expected, atol=1e-5)


def test_layer_checks_highway(tmp_path):
    check_layer(lambda: Highway(2, name="highway"), RNG.normal(size=(4, 6)).astype("float32"), tmp_path)
