"""Shared layer-test helper: config round trip, symbolic + eager call, .keras save/load, one fit step."""

from __future__ import annotations

import numpy as np

from elmo_keras._quiet import keras
from tests.support.backend_support import to_numpy


def _first_tensor(outputs):
    if isinstance(outputs, dict):
        outputs = outputs["activations"] if "activations" in outputs else list(outputs.values())
    if isinstance(outputs, (list, tuple)):
        return outputs[-1]
    return outputs


def check_layer(layer_factory, inputs, tmp_path, input_dtype="float32", trainable=True):
    """Run the standard checks on ``layer_factory()`` applied to the NumPy array ``inputs``.

    Returns the eager output (its last tensor, for list/dict outputs) as NumPy.
    """
    layer = layer_factory()
    # config round trip: rebuilding from the config gives the same config
    config = layer.get_config()
    clone = layer.__class__.from_config(config)
    assert clone.get_config() == config

    # symbolic call inside a functional model, and .keras round trip
    symbolic_input = keras.Input(shape=inputs.shape[1:], dtype=input_dtype)
    output = _first_tensor(layer(symbolic_input))
    model = keras.Model(symbolic_input, output)
    eager = to_numpy(_first_tensor(layer(inputs)))
    predicted = model.predict(inputs, verbose=0)
    np.testing.assert_allclose(predicted, eager, rtol=1e-5, atol=1e-5)
    path = tmp_path / f"{layer.name}.keras"
    model.save(path)
    reloaded = keras.saving.load_model(path)
    np.testing.assert_allclose(reloaded.predict(inputs, verbose=0), predicted, rtol=0, atol=1e-6)

    if trainable:
        # one fit step moves the weights and gives a finite loss
        model.compile(optimizer="sgd", loss="mse")
        before = [keras.ops.convert_to_numpy(w) for w in model.trainable_weights]
        history = model.fit(inputs, np.zeros_like(predicted), epochs=1, batch_size=len(inputs), verbose=0)
        assert np.isfinite(history.history["loss"][0])
        after = [keras.ops.convert_to_numpy(w) for w in model.trainable_weights]
        assert any(not np.array_equal(a, b) for a, b in zip(before, after))
    return eager
