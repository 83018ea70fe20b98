"""What watches a training run: user callbacks (Keras callbacks or plain ``fn(epoch, logs)``) and the guards that
stop a diverged run with ``TrainingDivergedError`` before a NaN model is saved or returned."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from elmo_keras._quiet import keras
from elmo_keras.models.persistence import first_nonfinite_weight

ProgressCallback = Callable[[int, dict], None]


def as_keras_callbacks(callbacks, name: str = "callbacks") -> list[keras.callbacks.Callback]:
    """Keras callbacks as they are, plain functions ``fn(epoch, logs)`` wrapped (epochs counted from 1).

    Args:
        callbacks: a list of ``keras.callbacks.Callback`` and/or functions ``fn(epoch, logs)``, or None (none).
        name: str, how error messages name the argument. Defaults to ``"callbacks"``.

    Raises:
        TypeError: ``callbacks`` is a single callback or function instead of a list, or an item is neither a
            Keras callback nor callable (named by its index).
    """
    if callbacks is None:
        return []
    single = isinstance(callbacks, (keras.callbacks.Callback, str)) or callable(callbacks)
    if single or not isinstance(callbacks, Iterable):
        raise TypeError(
            f"{name} must be a list of Keras callbacks and/or functions fn(epoch, logs), received "
            f"{type(callbacks).__name__} ({callbacks!r:.60}); wrap a single one in a list: {name}=[fn]"
        )
    adapted = []
    for index, callback in enumerate(callbacks):
        if isinstance(callback, keras.callbacks.Callback):
            adapted.append(callback)
        elif callable(callback):
            adapted.append(_ProgressAdapter(callback))
        else:
            raise TypeError(
                f"{name}[{index}] must be a Keras callback or a function fn(epoch, logs), received "
                f"{type(callback).__name__} ({callback!r:.60})"
            )
    return adapted


class _ProgressAdapter(keras.callbacks.Callback):
    """Calls ``fn(epoch, logs)`` after every epoch (epochs counted from 1)."""

    def __init__(self, fn: ProgressCallback):
        super().__init__()
        self.fn = fn

    def on_epoch_end(self, epoch, logs=None):
        self.fn(epoch + 1, dict(logs or {}))


class TrainingDivergedError(ValueError):
    """The training loss or the trained weights became NaN or infinite (nothing is saved or returned)."""


class StopOnNonFiniteLoss(keras.callbacks.Callback):
    """Raises ``TrainingDivergedError`` as soon as a batch's loss is NaN or infinite.

    Keras's own ``TerminateOnNaN`` only stops ``fit``, which then returns a NaN model as if all went well.

    Args:
        learning_rate: float, the run's learning rate, named in the error as the thing to lower.
    """

    def __init__(self, learning_rate: float):
        super().__init__()
        self.learning_rate = learning_rate
        self.epoch = 0

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch + 1

    def on_train_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and not math.isfinite(float(loss)):
            raise TrainingDivergedError(
                f"training diverged: the loss became {float(loss)} in epoch {self.epoch}, batch {batch + 1}; lower "
                f"the learning rate (it was {self.learning_rate:g}) and train again"
            )


def check_finite_perplexities(scores: dict, learning_rate: float) -> dict:
    """``scores`` (``perplexities``' result on the training corpus) if both are finite.

    The float32 perplexity overflows only past a mean loss of about 88.7 nats per token (the log of float32's
    largest value), far above a uniform guess's ``log(vocabulary size)``: the weights are finite but the model
    has diverged.

    Args:
        scores: ``{"forward_perplexity": float, "backward_perplexity": float}``.
        learning_rate: float, named in the error as the thing to lower.

    Raises:
        TrainingDivergedError: naming the learning rate.
    """
    if not all(math.isfinite(value) for value in scores.values()):
        raise TrainingDivergedError(
            f"training diverged: the trained model's perplexity on its own training corpus is "
            f"{scores['forward_perplexity']} / {scores['backward_perplexity']} (forward / backward); lower the "
            f"learning rate (it was {learning_rate:g}) and train again"
        )
    return scores


def check_finite_weights(model: keras.Model, what: str) -> None:
    """Raise if a weight of ``model`` holds NaN or inf.

    Args:
        model: any ``keras.Model``.
        what: str, how the error names the model (``"the trained model"``).

    Raises:
        TrainingDivergedError: naming ``what`` (e.g. "the trained model"), the variable and the count.
    """
    problem = first_nonfinite_weight(model)
    if problem is not None:
        raise TrainingDivergedError(f"{what} has {problem}: training diverged; lower the learning rate and train again")
