"""How far back the loss's gradient reaches: ``‖∂L/∂h_t‖`` against the distance ``T − 1 − t`` to the loss, and
what gradient clipping does (and does not do) to it.

``state_gradients`` differentiates the mean cross-entropy of the last step with respect to zero probes added to
every state (``RecurrentClassifier.trajectory``), which gives ``∂L/∂h_t`` (and ``∂L/∂c_t`` for the LSTM) for
every step ``t`` at once. ``gradient_norms_by_distance`` turns them into one row per distance.

Clipping by norm (the ``clipnorm`` of Keras optimizers, applied to each gradient tensor):
``g ← g · θ / max(‖g‖, θ)``. It multiplies the *whole* gradient by one factor ``min(1, θ/‖g‖)``: a gradient
longer than ``θ`` comes out exactly ``θ`` long, a shorter one is untouched, none gets longer — and since every
step's part is scaled by the same factor, the ratio between the gradient far from the loss and near it is
exactly what it was. Clipping tames explosion; it cannot undo vanishing (Pascanu et al. 2013), so the Gradients
page's quiz answer is B.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from elmo_keras._backend import input_gradients
from elmo_keras._quiet import keras, ops
from elmo_keras.analysis.gradient_study.models import RecurrentClassifier
from elmo_keras.argument_checks import check_finite_positive


@dataclass(frozen=True)
class StateGradients:
    """The loss's gradient with respect to every state of one batch.

    Attributes:
        loss: float, the mean cross-entropy of the last step.
        hidden: float `(B, T, H)`, ``∂L/∂h_t``.
        cell: float `(B, T, H)` ``∂L/∂c_t`` for the LSTM, None for the vanilla RNN.
        forget: float `(B, T, H)` the LSTM's forget-gate values ``f_t``, None for the vanilla RNN.
    """

    loss: float
    hidden: np.ndarray
    cell: np.ndarray | None
    forget: np.ndarray | None


def state_gradients(model: RecurrentClassifier, batch) -> StateGradients:
    """``∂L/∂h_t`` (and ``∂L/∂c_t``) for every step of ``batch``, ``L`` the batch's mean cross-entropy.

    Args:
        model: a ``RecurrentClassifier``.
        batch: ``(inputs float (B, T, input_dim), targets int (B,))``.
    """
    inputs, targets = batch
    inputs = np.asarray(inputs, "float32")
    if inputs.ndim != 3 or len(targets) != len(inputs):
        raise ValueError(f"batch must be (inputs (B, T, input_dim), targets (B,)), received shapes "
                         f"{inputs.shape} and {np.shape(targets)}")
    names = ["hidden"] + (["cell"] if model.cell_type == "lstm" else [])
    zeros = [np.zeros(inputs.shape[:2] + (model.units,), "float32") for _ in names]

    def loss_fn(*probes):
        result = model.trajectory(inputs, probes=dict(zip(names, probes)))
        per_example = keras.losses.sparse_categorical_crossentropy(np.asarray(targets, "int32"), result["logits"],
                                                                   from_logits=True)
        return ops.mean(per_example)

    loss, gradients = input_gradients(loss_fn, zeros)
    gates = None
    if model.cell_type == "lstm":  # a plain forward pass: values kept from inside the gradient would be tracers
        gates = np.asarray(ops.convert_to_numpy(model.trajectory(inputs)["forget"]))
    return StateGradients(loss, gradients[0], gradients[1] if len(gradients) > 1 else None, gates)


def step_norms(gradient: np.ndarray) -> np.ndarray:
    """``‖g[:, t, :]‖`` for each step: float `(T,)` from a `(B, T, H)` gradient (the batch's part at step t)."""
    return np.sqrt(np.sum(np.square(np.asarray(gradient, "float64")), axis=(0, 2)))


def gradient_norms_by_distance(model: RecurrentClassifier, batch) -> pd.DataFrame:
    """One row per step: ``t``, ``distance`` (``T − 1 − t``, steps from the loss), ``hidden`` = ``‖∂L/∂h_t‖`` and,
    for the LSTM, ``cell`` = ``‖∂L/∂c_t‖`` and ``forget`` = the mean forget gate ``f_t``; sorted by distance."""
    measured = state_gradients(model, batch)
    return norms_table(measured)


def norms_table(measured: StateGradients) -> pd.DataFrame:
    """``gradient_norms_by_distance``'s table from already measured gradients."""
    steps = measured.hidden.shape[1]
    table = pd.DataFrame({"t": np.arange(steps), "distance": steps - 1 - np.arange(steps),
                          "hidden": step_norms(measured.hidden)})
    if measured.cell is not None:
        table["cell"] = step_norms(measured.cell)
        table["forget"] = measured.forget.mean(axis=(0, 2))
    return table.sort_values("distance", ignore_index=True)


def far_near_ratio(norms, far: int, near: int = 0) -> float:
    """``norms[far] / norms[near]`` for a `(T,)` norm curve indexed by distance: how much of the gradient near
    the loss is left ``far − near`` steps further back."""
    norms = np.asarray(norms, "float64")
    if not 0 <= near < len(norms) or not 0 <= far < len(norms):
        raise ValueError(f"far and near must be distances in [0, {len(norms) - 1}], received far={far}, near={near}")
    return float(norms[far] / norms[near])


# -- clipping -------------------------------------------------------------------------------------------------


def clip_by_norm(gradient: np.ndarray, threshold: float) -> np.ndarray:
    """``g · θ / max(‖g‖, θ)``: Keras' ``clipnorm`` on one gradient tensor, ``‖g‖`` over all its entries.

    Args:
        gradient: float array, any shape.
        threshold: float > 0, ``θ``.
    """
    threshold = check_finite_positive(threshold, "threshold")
    gradient = np.asarray(gradient, "float64")
    return gradient * (threshold / max(float(np.linalg.norm(gradient)), threshold))


def clipnorm_optimizer_step(gradient: np.ndarray, threshold: float) -> np.ndarray:
    """The update a Keras ``SGD(learning_rate=1, clipnorm=θ)`` makes to a variable with this ``gradient``: minus
    the gradient the optimizer actually applied (what ``clip_by_norm`` claims it is).

    Args:
        gradient: float array, any shape.
        threshold: float > 0, ``θ``.

    Returns:
        float32 array, shaped like ``gradient``.
    """
    threshold = check_finite_positive(threshold, "threshold")
    gradient = np.asarray(gradient, "float32")
    variable = keras.Variable(np.zeros_like(gradient), name="clipped")
    optimizer = keras.optimizers.SGD(learning_rate=1.0, clipnorm=threshold)
    optimizer.apply_gradients([(ops.convert_to_tensor(gradient), variable)])
    return -np.asarray(ops.convert_to_numpy(variable.value))
