"""The other side of ``tests/backend/test_backend_portability.py``, run in a subprocess under another Keras backend:

    KERAS_BACKEND=jax python -m tests.support.portability_worker DIRECTORY

It loads ``DIRECTORY/here.keras`` (saved by the test's backend), writes the model's logits on the shared inputs,
the weights after the shared training steps, and the model re-saved from this backend (``there.keras``), all into
``DIRECTORY``.
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np


def logits(model, ids) -> dict:
    outputs = model(ids, training=False)
    return {key: model_output_numpy(outputs[key]) for key in ("forward_logits", "backward_logits")}


def model_output_numpy(tensor):
    from elmo_keras._quiet import keras

    return keras.ops.convert_to_numpy(tensor)


def train_steps(model, batches, learning_rate):
    """``len(batches)`` Adam steps (``DenseGradientAdam``, clipnorm 5) from the model's current weights."""
    from elmo_keras.models import DenseGradientAdam

    model.compile(optimizer=DenseGradientAdam(learning_rate, clipnorm=5.0), jit_compile=False)
    model.optimizer.build(model.trainable_variables)
    return [float(np.asarray(model.train_on_batch(ids, ids)[0])) for ids in batches]


def main(directory: pathlib.Path) -> None:
    import elmo_keras
    from elmo_keras._quiet import keras

    shared = np.load(directory / "inputs.npz")
    model = elmo_keras.load_model(directory / "here.keras")
    model.save(directory / "there.keras")
    outputs = logits(model, shared["ids"])
    losses = train_steps(model, [shared[f"batch_{k}"] for k in range(int(shared["steps"]))], float(shared["lr"]))
    np.savez(directory / f"{keras.backend.backend()}.npz", losses=np.asarray(losses), **outputs,
             **{f"weight_{i}": keras.ops.convert_to_numpy(w) for i, w in enumerate(model.weights)})


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]))
