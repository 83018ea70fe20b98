"""ProjectedLSTMCell: the cell against a NumPy re-derivation; arguments named in errors."""

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.layers import (
    ProjectedLSTMCell,
)
from tests.support.backend_support import to_numpy
from tests.support.lstm_reference import numpy_projected_lstm

RNG = np.random.default_rng(0)


def test_projected_lstm_cell_matches_numpy_rederivation():
    cell = ProjectedLSTMCell(8, projection_dim=3, cell_clip=0.5, proj_clip=0.3)
    rnn = keras.layers.RNN(cell, return_sequences=True)
    x = RNG.normal(size=(2, 6, 5)).astype("float32") * 2.0
    rnn(x)  # build
    # large weights so that both clips are active
    weights = [RNG.normal(size=w.shape).astype("float32") for w in cell.weights]
    cell.set_weights(weights)
    ours = to_numpy(rnn(x))
    reference = numpy_projected_lstm(x.astype("float64"), *[w.astype("float64") for w in weights], 0.5, 0.3)
    assert np.abs(reference).max() == pytest.approx(0.3)  # the projection clip was reached
    np.testing.assert_allclose(ours, reference, atol=1e-6, rtol=0)
