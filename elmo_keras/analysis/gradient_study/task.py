"""The long-dependency toy task: read a symbol, then ``T − 1`` distractors, then say which symbol came first.

Token 0 is one of ``num_symbols`` symbols; tokens 1 … T−1 are drawn from ``num_distractors`` other tokens; the
target is the first token. The only useful information is ``T − 1`` steps away from the loss, so a model learns
the task only if the loss's gradient reaches step 0. ``train_remember_first`` trains a ``RecurrentClassifier``
on it, deterministically for a seed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from elmo_keras._backend import fit_jit_compile
from elmo_keras._quiet import keras
from elmo_keras.analysis.gradient_study.models import RecurrentClassifier
from elmo_keras.argument_checks import check_finite_positive, check_int

NUM_SYMBOLS = 4  # the classes: what the first token can be
NUM_DISTRACTORS = 4  # tokens that fill steps 1 … T−1
INPUT_DIM = NUM_SYMBOLS + NUM_DISTRACTORS  # one-hot width


def remember_first_batch(count: int, length: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``count`` sequences of the task, one-hot.

    Args:
        count: int, sequences.
        length: int ≥ 2, ``T``: the first symbol and ``T − 1`` distractors.
        seed: int, seeds the draw. Defaults to 0.

    Returns:
        ``(inputs float32 (count, length, INPUT_DIM), targets int32 (count,))``; the targets are balanced up to
        one sequence.
    """
    count = check_int(count, "count")
    if isinstance(length, bool) or not isinstance(length, int) or length < 2:
        raise ValueError(f"length must be an int ≥ 2 (a symbol then distractors), received {length!r}")
    rng = np.random.default_rng(seed)
    targets = rng.permutation(np.arange(count) % NUM_SYMBOLS).astype("int32")
    tokens = np.concatenate([targets[:, None], NUM_SYMBOLS + rng.integers(0, NUM_DISTRACTORS, (count, length - 1))],
                            axis=1)
    return np.eye(INPUT_DIM, dtype="float32")[tokens], targets


@dataclass(frozen=True)
class TrainingRun:
    """One training: per-epoch ``loss`` and ``accuracy`` on the training sequences, and the seconds it took."""

    loss: list
    accuracy: list
    seconds: float


def train_remember_first(model: RecurrentClassifier, length: int = 30, count: int = 512, epochs: int = 10,
                         batch_size: int = 32, learning_rate: float = 0.01, clipnorm: float | None = None,
                         seed: int = 0) -> TrainingRun:
    """Train ``model`` in place on ``count`` sequences of the task (Adam, cross-entropy on the last step).

    Args:
        model: a ``RecurrentClassifier`` with ``num_classes == NUM_SYMBOLS``.
        length: int, ``T``. Defaults to 30.
        count, epochs, batch_size: ints, the training sequences, passes over them and the batch size.
        learning_rate: float > 0, Adam's. Defaults to 0.01.
        clipnorm: optional float > 0, Adam's ``clipnorm``. Defaults to None (no clipping).
        seed: int, seeds the data, the shuffling and the backend. Defaults to 0.
    """
    if model.num_classes != NUM_SYMBOLS:
        raise ValueError(f"the model must have num_classes={NUM_SYMBOLS} (the task's symbols), "
                         f"received {model.num_classes}")
    check_finite_positive(learning_rate, "learning_rate")
    inputs, targets = remember_first_batch(count, length, seed=seed)
    keras.utils.set_random_seed(int(seed))
    optimizer = keras.optimizers.Adam(learning_rate, clipnorm=clipnorm)
    model.compile(optimizer=optimizer, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"], jit_compile=fit_jit_compile())
    started = time.perf_counter()
    history = model.fit(inputs, targets, epochs=check_int(epochs, "epochs"),
                        batch_size=check_int(batch_size, "batch_size"), shuffle=True, verbose=0)
    seconds = time.perf_counter() - started
    return TrainingRun([float(v) for v in history.history["loss"]],
                       [float(v) for v in history.history["accuracy"]], seconds)
