"""The other side of ``tests/models/bilm/test_distributed_training.py``, run in a subprocess (logical devices must be
made before
the backend starts its runtime):

    KERAS_BACKEND=tensorflow python -m tests.support.distributed_worker OUT.json
    KERAS_BACKEND=jax python -m tests.support.distributed_worker OUT.json
    TF_CONFIG=... python -m tests.support.distributed_worker OUT.npz --multi-worker

It splits the CPU into 2 logical devices, trains the same tiny ``BiLanguageModel`` from the same weights on the
same global batches once on one device and once data-parallel on 2 replicas (``distribution_scope``:
``"mirrored"`` on TensorFlow, ``"data-parallel"`` on JAX), and writes the largest differences it sees to OUT.json:

one ``DenseGradientAdam`` step (``train_bilm``'s optimizer) on ``train_bilm``'s pipeline, one global batch whose
two halves (one per replica) hold different numbers of real tokens. ``epsilon=1`` makes the first step
``lr · g / (|g| + 1)``, which keeps the gradient's scale (the default epsilon gives about ``lr · sign(g)``, blind to a
wrongly scaled loss or a batch given whole to each replica), and ``clipnorm`` lies between the variables' gradient
norms (some clipped, some not), so a per-replica clip shows in the updated weights too.

With ``--multi-worker`` it is one of two ``MultiWorkerMirroredStrategy`` workers (``TF_CONFIG`` names the cluster and
this task): it trains ``multi_worker_batches`` (its own half of each global batch, one replica per worker) and
writes the weights and the history to OUT.npz; ``one_device_weights`` is the reference the test compares them to.
"""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np

from elmo_keras._backend import fit_jit_compile
from elmo_keras._quiet import keras  # imports the backend's Python modules only: its runtime is not started yet
from elmo_keras.models.bilm.batches import ShuffledBatches, training_batches
from elmo_keras.models.bilm.distribution import adapt_to_multi_worker, configure_cpu_devices, distribution_scope
from elmo_keras.models.bilm.language_model import build_bilm_lm
from elmo_keras.models.bilm.presets import BiLMConfig
from elmo_keras.models.optimizer import DenseGradientAdam
from elmo_keras.text.vocabulary import Vocabulary
from tests.support.backend_support import value_and_gradients

REPLICAS = 2
VOCAB = 12
SEED = 3
LEARNING_RATE = 100.0  # large: the one step moves the weights by ~1e-2, far above the 1e-5 tolerance
STRATEGY = {"tensorflow": "mirrored", "jax": "data-parallel"}
CONFIG = BiLMConfig(embedding_dim=8, units=8, num_layers=1, dropout=0.0, batch_size=4, epochs=1, learning_rate=0.01)


def uneven_batches():
    """``train_bilm``'s pipeline (``ShuffledBatches`` → ``training_batches``) over 4 sentences, batch 4: one global
    batch, its rows sorted by length, so rows 0–1 (replica 0) hold fewer real tokens than rows 2–3 (replica 1)."""
    words = [f"w{i}" for i in range(VOCAB - 4)]
    rng = np.random.default_rng(SEED)
    sentences = [list(rng.choice(words, size=n)) for n in (1, 2, 6, 7)]
    batches = ShuffledBatches(sentences, Vocabulary.from_corpus(sentences, lowercase=False), "word", 4, seed=SEED)
    return batches, training_batches(batches, 1)


def model_with(weights):
    """A built tiny ``BiLanguageModel`` holding ``weights`` (None: fresh ones from ``SEED``)."""
    if weights is None:
        keras.utils.set_random_seed(SEED)
    model = build_bilm_lm(CONFIG, VOCAB)
    model.build((None, None))
    if weights is not None:
        model.set_weights(weights)
    return model


def gradient_norms(weights, ids) -> list[float]:
    """The one-device gradient norm of every trainable variable on the batch ``ids``."""
    model = model_with(weights)

    def loss():
        return model.compute_loss(y=ids, y_pred=model(ids, training=True))

    _, gradients = value_and_gradients(loss, [], model.trainable_variables)
    return [float(np.linalg.norm(g)) for g in gradients]


def trained(weights, optimizer, strategy, data, **fit_args):
    """``(weights, history)`` after ``fit(data, **fit_args)`` from ``weights``, in ``distribution_scope(strategy)``."""
    with distribution_scope(strategy) as replicas:
        assert replicas == (REPLICAS if strategy else 1), replicas
        model = model_with(weights)
        model.compile(optimizer=optimizer(), jit_compile=fit_jit_compile())
        model.optimizer.build(model.trainable_variables)
        history = model.fit(data, epochs=1, shuffle=False, verbose=0, **fit_args)
        return [np.asarray(w) for w in model.get_weights()], history.history


def differences(initial, one, many) -> dict:
    """The largest differences between one-device and data-parallel training (weights: absolute; logs: relative)."""
    (weights_1, history_1), (weights_n, history_n) = one, many
    return {
        "weights": max(float(np.max(np.abs(a - b))) for a, b in zip(weights_1, weights_n)),
        "moved": max(float(np.max(np.abs(a - b))) for a, b in zip(weights_1, initial)),
        "logs": {key: float(np.max(np.abs(np.subtract(history_1[key], history_n[key])) / np.abs(history_1[key])))
                 for key in history_1},
        "history": history_1,
    }


def step_check(initial, strategy) -> dict:
    """One scale-keeping ``DenseGradientAdam`` step on ``uneven_batches``, ``clipnorm`` between the middle two
    gradient norms."""
    batches, _ = uneven_batches()
    _, targets = batches[0]
    norms = sorted(gradient_norms(initial, targets))
    clipnorm = float(np.sqrt(norms[len(norms) // 2 - 1] * norms[len(norms) // 2]))

    def scale_keeping():
        return DenseGradientAdam(LEARNING_RATE, epsilon=1.0, clipnorm=clipnorm)

    one, many = (trained(initial, scale_keeping, s, uneven_batches()[1], steps_per_epoch=1) for s in (None, strategy))
    result = differences(initial, one, many)
    real = (targets != 0).sum(axis=1) - 1  # real targets per row and direction
    result.update(clipnorm=clipnorm, clipped=sum(n > clipnorm for n in norms), variables=len(norms),
                  tokens_per_replica=[int(real[:2].sum()), int(real[2:].sum())])
    return result


def multi_worker_batches() -> np.ndarray:
    """int32 `(2, 4, 9)`: two global batches; in each, rows 0–1 (worker 0) and 2–3 (worker 1) hold different
    numbers of words."""
    rng = np.random.default_rng(SEED)
    batches = np.zeros((2, 4, 9), "int32")
    for batch, lengths in zip(batches, ((1, 2, 6, 7), (5, 7, 1, 3))):
        for row, length in enumerate(lengths):
            batch[row, : length + 2] = [2, *rng.integers(4, VOCAB, size=length), 3]
    return batches


def multi_worker_optimizer():
    """Scale-keeping (``epsilon=1``, see the module docstring), ``clipnorm`` among this model's gradient norms."""
    return DenseGradientAdam(LEARNING_RATE, epsilon=1.0, clipnorm=0.006)


def one_device_weights() -> list[np.ndarray]:
    """The weights after training ``multi_worker_batches`` (whole global batches) on one device."""
    batches = multi_worker_batches()
    weights, _ = trained(None, multi_worker_optimizer, None, batches.reshape(-1, batches.shape[-1]),
                         y=batches.reshape(-1, batches.shape[-1]), batch_size=batches.shape[1])
    return weights


def multi_worker_main(out: pathlib.Path) -> None:
    import tensorflow as tf

    strategy = tf.distribute.MultiWorkerMirroredStrategy()  # first: it starts this worker's runtime
    batches = multi_worker_batches()
    rows = batches.shape[1] // strategy.num_replicas_in_sync

    def own_half(context):  # worker i trains rows [i·rows, (i+1)·rows) of every global batch
        half = batches[:, context.input_pipeline_id * rows : (context.input_pipeline_id + 1) * rows]
        return tf.data.Dataset.from_tensor_slices((half, half))

    with distribution_scope(strategy) as replicas:
        model = model_with(None)
        adapt_to_multi_worker(model)
        model.compile(optimizer=multi_worker_optimizer(), jit_compile=False)
        model.optimizer.build(model.trainable_variables)
        history = model.fit(strategy.distribute_datasets_from_function(own_half), epochs=1,
                            steps_per_epoch=len(batches), verbose=0).history
    np.savez(out, *[np.asarray(w) for w in model.get_weights()], replicas=replicas, loss=history["loss"])


def main(out: pathlib.Path) -> None:
    configure_cpu_devices(REPLICAS)
    initial = model_with(None).get_weights()
    strategy = STRATEGY[keras.backend.backend()]
    results = {"backend": keras.backend.backend(), "step": step_check(initial, strategy)}
    out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    if "--multi-worker" in sys.argv:
        multi_worker_main(pathlib.Path(sys.argv[1]))
    else:
        main(pathlib.Path(sys.argv[1]))
