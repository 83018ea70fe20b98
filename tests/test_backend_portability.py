"""The same model gives the same numbers on every installed Keras backend: a ``BiLanguageModel`` saved here loads
under each other backend (in a subprocess, ``tests/portability_worker.py``) with the same logits to 1e-5, three
training steps from the same weights end at the same weights, and the file that backend re-saves loads back here.
"""

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.models import build_bilm_lm, get_preset
from tests.backend_support import BACKEND
from tests.conftest import REPO_ROOT
from tests.portability_worker import logits, train_steps

BACKEND_MODULES = {"tensorflow": "tensorflow", "jax": "jax", "torch": "torch"}
OTHERS = [name for name, module in BACKEND_MODULES.items()
          if name != BACKEND and importlib.util.find_spec(module) is not None]
STEPS, LEARNING_RATE, VOCAB = 3, 0.01, 30


def _model():
    keras.utils.set_random_seed(5)
    model = build_bilm_lm(get_preset("tiny").replace(dropout=0.0), VOCAB)
    model.build((None, None))
    return model


def _ids(rng, batch, time):
    lengths = rng.integers(1, time - 1, size=batch)
    ids = np.zeros((batch, time), "int32")
    for row, length in enumerate(lengths):
        ids[row, : length + 2] = [2, *rng.integers(5, VOCAB, size=length), 3]
    return ids


@pytest.mark.parametrize("other", OTHERS or [pytest.param("none", marks=pytest.mark.skip(
    reason="no other Keras backend (jax, torch) is installed here"))])
def test_a_model_gives_the_same_numbers_on_another_backend(other, tmp_path):
    rng = np.random.default_rng(0)
    model = _model()
    model.save(tmp_path / "here.keras")
    inputs = {"ids": _ids(rng, 4, 9), "steps": STEPS, "lr": LEARNING_RATE,
              **{f"batch_{k}": _ids(rng, 4, 7 + k) for k in range(STEPS)}}
    np.savez(tmp_path / "inputs.npz", **inputs)
    environment = dict(os.environ, KERAS_BACKEND=other)
    done = subprocess.run([sys.executable, "-m", "tests.portability_worker", str(tmp_path)], cwd=REPO_ROOT,
                          env=environment, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    theirs = np.load(tmp_path / f"{other}.npz")

    ours = logits(model, inputs["ids"])
    for key, value in ours.items():
        np.testing.assert_allclose(theirs[key], value, atol=1e-5, err_msg=f"{key}: {BACKEND} vs {other}")
    there = keras.saving.load_model(tmp_path / "there.keras")  # saved by the other backend
    for key, value in logits(there, inputs["ids"]).items():
        np.testing.assert_allclose(value, ours[key], atol=1e-5)

    losses = train_steps(model, [inputs[f"batch_{k}"] for k in range(STEPS)], LEARNING_RATE)
    np.testing.assert_allclose(theirs["losses"], losses, rtol=1e-5)
    for i, weight in enumerate(model.weights):
        np.testing.assert_allclose(theirs[f"weight_{i}"], keras.ops.convert_to_numpy(weight), atol=1e-5,
                                   err_msg=f"{weight.path} after {STEPS} steps: {BACKEND} vs {other}")
