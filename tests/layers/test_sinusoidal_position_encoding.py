"""SinusoidalPositionEncoding: the table added at each position, its limits, the layer checks."""

import numpy as np
import pytest

from elmo_keras.layers.sinusoidal_position_encoding import SinusoidalPositionEncoding, sinusoidal_table
from tests.support.backend_support import to_numpy
from tests.support.layer_checks import check_layer

RNG = np.random.default_rng(0)


def test_the_table_is_the_formula():
    table = sinusoidal_table(50, 8)
    position, k = np.arange(50)[:, None], np.arange(4)[None, :]
    frequency = 10000.0 ** (-2 * k / 8)
    np.testing.assert_allclose(table[:, 0::2], np.sin(position * frequency), atol=1e-6)
    np.testing.assert_allclose(table[:, 1::2], np.cos(position * frequency), atol=1e-6)
    with pytest.raises(ValueError, match="even width.*dim=7"):
        sinusoidal_table(50, 7)


def test_the_layer_adds_the_table_at_each_position():
    x = RNG.normal(size=(2, 5, 8)).astype(np.float32)
    layer = SinusoidalPositionEncoding(max_length=10)
    np.testing.assert_allclose(to_numpy(layer(x)), x + sinusoidal_table(10, 8)[:5], atol=1e-6)
    assert not layer.trainable_weights and layer.non_trainable_weights[0].shape == (10, 8)


def test_a_longer_input_is_refused():
    with pytest.raises(ValueError, match="positions for 4 tokens, received 5"):
        SinusoidalPositionEncoding(max_length=4)(np.zeros((1, 5, 8), "float32"))


def test_layer_checks_sinusoidal_position_encoding(tmp_path):
    check_layer(lambda: SinusoidalPositionEncoding(max_length=16, name="positions"),
                RNG.normal(size=(2, 5, 8)).astype("float32"), tmp_path, trainable=False)
