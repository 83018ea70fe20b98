"""ScalarMix against a NumPy re-derivation: plain, masked, and layer-normalised per sentence or per batch."""

import numpy as np
import pytest
from keras import ops

from elmo_keras._quiet import keras
from elmo_keras.layers.scalar_mix import LAYER_NORM_EPSILON, ScalarMix

RNG = np.random.default_rng(0)
PARAMETERS = [0.1, -0.4, 0.7]


def _layers(batch=2, time=5, dim=4):
    return [RNG.normal(loc=k, scale=1 + k, size=(batch, time, dim)).astype(np.float32) for k in range(3)]


def _mask():
    return np.array([[True] * 5, [True, True, False, False, False]])


def _numpy_mix(layers, parameters, gamma, mask=None, layer_norm=None):
    """``gamma * sum(softmax(w)_k * norm(h_k))``, masked positions zero; norm over unmasked values."""
    weights = np.exp(parameters) / np.exp(parameters).sum()
    keep = np.ones(layers[0].shape[:2], bool) if mask is None else mask
    result = np.zeros_like(layers[0], dtype=np.float64)
    for weight, layer in zip(weights, layers):
        layer = layer.astype(np.float64)
        if layer_norm == "batch":
            values = layer[keep]  # (real tokens, dim)
            layer = (layer - values.mean()) / np.sqrt(values.var() + LAYER_NORM_EPSILON)
        elif layer_norm == "sentence":
            normed = np.empty_like(layer)
            for b in range(layer.shape[0]):
                values = layer[b][keep[b]]
                normed[b] = (layer[b] - values.mean()) / np.sqrt(values.var() + LAYER_NORM_EPSILON)
            layer = normed
        result += weight * layer
    result *= gamma
    return result * (keep[..., None] if mask is not None else 1.0)


def _run(mix, layers, mask=None):
    return ops.convert_to_numpy(mix(layers, mask=mask))


def test_plain_mixture_matches_numpy():
    layers = _layers()
    mix = ScalarMix(3, initial_scalar_parameters=PARAMETERS)
    np.testing.assert_allclose(_run(mix, layers), _numpy_mix(layers, PARAMETERS, 1.0), atol=1e-5)
    mix.gamma.assign(2.5)
    np.testing.assert_allclose(_run(mix, layers), _numpy_mix(layers, PARAMETERS, 2.5), atol=1e-5)


def test_masked_positions_are_zero():
    layers, mask = _layers(), _mask()
    out = _run(ScalarMix(3, initial_scalar_parameters=PARAMETERS), layers, mask)
    np.testing.assert_allclose(out, _numpy_mix(layers, PARAMETERS, 1.0, mask), atol=1e-5)
    assert np.all(out[1, 2:] == 0.0)


@pytest.mark.parametrize("statistics", ["sentence", "batch"])
def test_layer_norm_masked_matches_numpy(statistics):
    layers, mask = _layers(), _mask()
    for layer in layers:
        layer[1, 2:] = 100.0  # garbage at padded positions must not enter the statistics
    mix = ScalarMix(3, do_layer_norm=True, initial_scalar_parameters=PARAMETERS, layer_norm_statistics=statistics)
    expected = _numpy_mix(layers, PARAMETERS, 1.0, mask, layer_norm=statistics)
    np.testing.assert_allclose(_run(mix, layers, mask), expected, atol=1e-4)


def test_layer_norm_without_mask_uses_every_position():
    layers = _layers()
    mix = ScalarMix(3, do_layer_norm=True, initial_scalar_parameters=PARAMETERS)
    np.testing.assert_allclose(_run(mix, layers), _numpy_mix(layers, PARAMETERS, 1.0, layer_norm="sentence"), atol=1e-4)


def test_sentence_statistics_are_batch_invariant_and_batch_statistics_are_not():
    layers, mask = _layers(), _mask()
    alone = [layer[:1] for layer in layers]
    sentence = ScalarMix(3, do_layer_norm=True, layer_norm_statistics="sentence")
    np.testing.assert_allclose(_run(sentence, layers, mask)[0], _run(sentence, alone, mask[:1])[0], atol=1e-5)
    batch = ScalarMix(3, do_layer_norm=True, layer_norm_statistics="batch")
    assert np.abs(_run(batch, layers, mask)[0] - _run(batch, alone, mask[:1])[0]).max() > 1e-3


def test_display_values():
    mix = ScalarMix(3, initial_scalar_parameters=[0.0, 1.0, 2.0])
    mix.build([(None, None, 4)] * 3)
    weights = mix.normalized_weights()
    assert isinstance(weights, np.ndarray) and weights.shape == (3,)
    np.testing.assert_allclose(weights, np.exp([0, 1, 2]) / np.exp([0, 1, 2]).sum(), rtol=1e-6)
    assert mix.gamma_value() == 1.0


def test_config_round_trip_and_serialization():
    mix = ScalarMix(3, do_layer_norm=True, initial_scalar_parameters=PARAMETERS, trainable=False,
                    layer_norm_statistics="batch", name="mix")
    config = mix.get_config()
    assert config["mixture_size"] == 3 and config["initial_scalar_parameters"] == PARAMETERS
    assert config["do_layer_norm"] and config["layer_norm_statistics"] == "batch" and config["trainable"] is False
    restored = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(mix))
    assert isinstance(restored, ScalarMix) and restored.get_config() == config
    layers = _layers()
    np.testing.assert_allclose(_run(restored, layers), _run(mix, layers), atol=1e-6)


def test_trainable_flag():
    frozen = ScalarMix(3, trainable=False)
    frozen.build([(None, None, 4)] * 3)
    assert frozen.trainable_weights == [] and len(frozen.non_trainable_weights) == 2
    learned = ScalarMix(3)
    learned.build([(None, None, 4)] * 3)
    assert len(learned.trainable_weights) == 2


def test_fit_updates_the_weights_and_keras_file_round_trip(tmp_path):
    inputs = [keras.Input((5, 4)) for _ in range(3)]
    mix = ScalarMix(3, name="mix")
    model = keras.Model(inputs, mix(inputs))
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    layers = _layers()
    model.fit(layers, layers[2], epochs=1, verbose=0)  # target = the last layer: its weight must grow
    weights = mix.normalized_weights()
    assert weights[2] > 1 / 3 and mix.gamma_value() != 1.0
    path = tmp_path / "mix.keras"
    model.save(path)
    restored = keras.saving.load_model(path)
    np.testing.assert_allclose(restored.get_layer("mix").normalized_weights(), weights, rtol=1e-6)
    np.testing.assert_allclose(ops.convert_to_numpy(restored(layers)), ops.convert_to_numpy(model(layers)), atol=1e-6)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"mixture_size": 0}, "mixture_size must be a positive int, received 0"),
        ({"mixture_size": 3, "initial_scalar_parameters": [1.0]}, "must have mixture_size=3 values, received 1"),
        ({"mixture_size": 3, "layer_norm_statistics": "token"}, "layer_norm_statistics must be one of"),
    ],
)
def test_invalid_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ScalarMix(**kwargs)


def test_wrong_number_of_tensors():
    with pytest.raises(ValueError,
                       match=r"ScalarMix\(mixture_size=3\) expects a list of that many tensors, received 2"):
        ScalarMix(3)(_layers()[:2])
