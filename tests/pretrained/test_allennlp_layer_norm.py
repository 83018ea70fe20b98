"""AllenNLPLayerNorm: AllenNLP's formula (eps outside the square root, the biased std), not Keras'."""

import numpy as np
import pytest
import torch

from benchmarks.allennlp_transformer_reference import LayerNorm
from elmo_keras._quiet import keras
from elmo_keras.layers.allennlp_layer_norm import AllenNLPLayerNorm
from tests.support.backend_support import to_numpy
from tests.support.layer_checks import check_layer

RNG = np.random.default_rng(0)


def test_the_formula_against_numpy_and_allennlp():
    x = (RNG.normal(size=(3, 4, 6)) * np.array([1e-4, 1e-3, 1, 10, 1, 1])).astype(np.float32)
    layer = AllenNLPLayerNorm()
    layer.build(x.shape)
    gamma, beta = RNG.normal(size=(2, 6)).astype(np.float32)
    layer.set_weights([gamma, beta])
    expected = gamma * (x - x.mean(-1, keepdims=True)) / (x.std(-1, keepdims=True) + 1e-6) + beta  # NumPy: biased
    np.testing.assert_allclose(to_numpy(layer(x)), expected, rtol=1e-5, atol=1e-5)
    reference = LayerNorm(6)
    reference.gamma.data, reference.beta.data = torch.tensor(gamma), torch.tensor(beta)
    np.testing.assert_allclose(to_numpy(layer(x)), reference(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-5)


def test_it_differs_from_keras_layer_normalization_at_small_variance():
    x = (RNG.normal(size=(2, 8)) * 1e-3).astype(np.float32)
    keras_norm = keras.layers.LayerNormalization(epsilon=1e-6)
    assert np.abs(to_numpy(AllenNLPLayerNorm()(x)) - to_numpy(keras_norm(x))).max() > 1e-2


def test_epsilon_is_checked():
    with pytest.raises(ValueError, match="epsilon must be a finite number > 0, received 0"):
        AllenNLPLayerNorm(epsilon=0)


def test_layer_checks_allennlp_layer_norm(tmp_path):
    check_layer(lambda: AllenNLPLayerNorm(name="norm"), RNG.normal(size=(4, 3, 6)).astype("float32"), tmp_path)
