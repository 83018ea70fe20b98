"""The same model gives the same numbers on every installed Keras backend: a ``BiLanguageModel`` saved here loads
under another backend (in a subprocess, ``tests/support/portability_worker.py``) with the same logits to 1e-5, three
training steps from the same weights end at the same weights, and the file that backend re-saves loads back here.
Each pair of backends is compared once (``BACKEND_ORDER``).
"""

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.models import build_bilm_lm, get_size
from tests.support.backend_support import BACKEND
from tests.support.paths import REPO_ROOT
from tests.support.portability_worker import logits, train_steps

# Each pair of backends is compared once, in the run of the first of the two in this order (the test goes both ways:
# saved here and loaded there, re-saved there and loaded here): TensorFlow's run compares it with PyTorch and JAX,
# PyTorch's with JAX.
BACKEND_ORDER = ("tensorflow", "torch", "jax")
OTHERS = [name for name in BACKEND_ORDER[BACKEND_ORDER.index(BACKEND) + 1:] if importlib.util.find_spec(name)]
STEPS, LEARNING_RATE, VOCAB = 3, 0.01, 30


def _model():
    keras.utils.set_random_seed(5)
    model = build_bilm_lm(get_size("tiny").replace(dropout=0.0), VOCAB)
    model.build((None, None))
    return model


def _ids(rng, batch, time):
    lengths = rng.integers(1, time - 1, size=batch)
    ids = np.zeros((batch, time), "int32")
    for row, length in enumerate(lengths):
        ids[row, : length + 2] = [2, *rng.integers(5, VOCAB, size=length), 3]
    return ids


@pytest.mark.parametrize("other", OTHERS or [pytest.param("none", marks=pytest.mark.skip(
    reason=f"no backend after {BACKEND} in {BACKEND_ORDER} is installed here (each pair is compared once)"))])
def test_a_model_gives_the_same_numbers_on_another_backend(other, tmp_path):
    rng = np.random.default_rng(0)
    model = _model()
    model.save(tmp_path / "here.keras")
    inputs = {"ids": _ids(rng, 4, 9), "steps": STEPS, "lr": LEARNING_RATE,
              **{f"batch_{k}": _ids(rng, 4, 7 + k) for k in range(STEPS)}}
    np.savez(tmp_path / "inputs.npz", **inputs)
    environment = dict(os.environ, KERAS_BACKEND=other)
    done = subprocess.run([sys.executable, "-m", "tests.support.portability_worker", str(tmp_path)], cwd=REPO_ROOT,
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
