"""Everything the Gradients page shows, as plain data: gradient norms by distance for a vanilla RNN and an LSTM at
initialisation and after training, an exploding case, clipping at ``θ``, the LSTM's forget gates, weight decay's
effect and the numbers that answer the page's quiz (``explorer.gradients.quiz``).

Two steps so that a setting changes only what it must: ``measure_gradients`` runs the models (a fraction of a
second each; the sequence length and the untrained models' settings change it), ``gradient_study`` derives the
tables from those measurements and the clipping threshold (NumPy only).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from elmo_keras.analysis.gradient_study.flow import (
    StateGradients,
    clip_by_norm,
    far_near_ratio,
    norms_table,
    state_gradients,
    step_norms,
)
from elmo_keras.analysis.gradient_study.models import RecurrentClassifier
from elmo_keras.analysis.gradient_study.task import NUM_SYMBOLS, remember_first_batch

INITIAL, TRAINED, EXPLODING = "initialisation", "trained", "exploding (init)"
EXPLODING_SCALE = 3.0  # recurrent gain of the vanilla RNN whose gradients grow with distance
DECAY_SHRINKS = (1.0, 0.9, 0.8)  # U multiplied by (1 − ηλ)^k: what weight decay does to it
MEASURE_BATCH = 64  # sequences whose gradient is measured
MEASURE_SEED = 1  # not the training data's seed: held-out sequences


@dataclass(frozen=True)
class Measurements:
    """Measured gradients: ``runs`` maps ``(model label, stage)`` to ``StateGradients``; ``decay`` maps a shrink
    factor of the vanilla RNN's ``U`` to its ``StateGradients``."""

    runs: dict
    decay: dict
    length: int


@dataclass(frozen=True)
class GradientStudy:
    """The page's tables.

    Attributes:
        curves: model, stage, state (``"h"`` or ``"c"``), distance, norm — ``‖∂L/∂state_t‖`` by distance.
        clipped: model, stage, distance, norm, clipped (the norm after clipping the whole gradient at ``θ``).
        clip_summary: model, stage, gradient_norm ``‖g‖``, factor ``min(1, θ/‖g‖)``, clipped_norm, ratio,
            clipped_ratio (far/near before and after clipping).
        forget: stage, unit, forget (the LSTM's per-unit forget gate, mean over batch and steps), sorted.
        decay: shrink (of ``U``), ratio (far/near ``‖∂L/∂h‖`` of the vanilla RNN at init).
        cell_path: ``{stage: gain}``, the LSTM's ``∂c_{T−1}/∂c_0`` along the cell path alone, ``∏_{t≥1} f_t``
            (mean over sequences and units).
        theta: the clipping threshold.
        far: the far distance the ratios use (``T − 1``).
    """

    curves: pd.DataFrame
    clipped: pd.DataFrame
    clip_summary: pd.DataFrame
    forget: pd.DataFrame
    decay: pd.DataFrame
    cell_path: dict
    theta: float
    far: int


def untrained_models(units: int, rnn_scale: float, forget_bias: float, seed: int = 0) -> dict:
    """``{(label, stage): model}`` for the untrained models: the vanilla RNN (gain ``rnn_scale``), the LSTM
    (``forget_bias``) and the exploding vanilla RNN (gain ``EXPLODING_SCALE``)."""
    return {
        ("vanilla RNN", INITIAL): RecurrentClassifier("rnn", units, NUM_SYMBOLS, recurrent_scale=rnn_scale,
                                                      seed=seed),
        ("LSTM", INITIAL): RecurrentClassifier("lstm", units, NUM_SYMBOLS, forget_bias=forget_bias, seed=seed),
        ("vanilla RNN", EXPLODING): RecurrentClassifier("rnn", units, NUM_SYMBOLS, recurrent_scale=EXPLODING_SCALE,
                                                        seed=seed),
    }


def measure_gradients(models: dict, length: int, rnn_scale: float, seed: int = 0) -> Measurements:
    """Measure every model of ``models`` (``{(label, stage): RecurrentClassifier}``) on ``MEASURE_BATCH`` held-out
    sequences of ``length``, and the vanilla RNN at init with ``U`` shrunk by each of ``DECAY_SHRINKS`` (the
    ``("vanilla RNN", INITIAL)`` model itself for 1.0 when ``models`` has it: built with ``rnn_scale``, ``seed``)."""
    batch = remember_first_batch(MEASURE_BATCH, length, seed=MEASURE_SEED)
    runs = {key: state_gradients(model, batch) for key, model in models.items()}
    units = next(iter(models.values())).units
    decay = {shrink: runs[("vanilla RNN", INITIAL)] if shrink == 1.0 and ("vanilla RNN", INITIAL) in runs
             else state_gradients(RecurrentClassifier("rnn", units, NUM_SYMBOLS, recurrent_scale=rnn_scale * shrink,
                                                      seed=seed), batch)
             for shrink in DECAY_SHRINKS}
    return Measurements(runs, decay, length)


def _curve_rows(label, stage, measured: StateGradients) -> list[dict]:
    table = norms_table(measured)
    rows = [{"model": label, "stage": stage, "state": "h", "distance": d, "norm": n}
            for d, n in zip(table["distance"], table["hidden"])]
    if measured.cell is not None:
        rows += [{"model": label, "stage": stage, "state": "c", "distance": d, "norm": n}
                 for d, n in zip(table["distance"], table["cell"])]
    return rows


def by_distance(gradient: np.ndarray) -> np.ndarray:
    """Per-step norms of a `(B, T, H)` gradient, indexed by distance to the loss (``[0]`` = last step)."""
    return step_norms(gradient)[::-1]


def gradient_study(measurements: Measurements, theta: float) -> GradientStudy:
    """The page's tables from ``measurements``, clipping each ``∂L/∂h`` (one tensor per model) at ``theta``."""
    far = measurements.length - 1
    curves, clipped, summary = [], [], []
    for (label, stage), measured in measurements.runs.items():
        curves += _curve_rows(label, stage, measured)
        norms, after = by_distance(measured.hidden), by_distance(clip_by_norm(measured.hidden, theta))
        clipped += [{"model": label, "stage": stage, "distance": d, "norm": n, "clipped": c}
                    for d, (n, c) in enumerate(zip(norms, after))]
        total = float(np.linalg.norm(measured.hidden))
        summary.append({"model": label, "stage": stage, "gradient_norm": total, "factor": min(1.0, theta / total),
                        "clipped_norm": float(np.sqrt(np.sum(after ** 2))),
                        "ratio": far_near_ratio(norms, far), "clipped_ratio": far_near_ratio(after, far)})
    forget, cell_path = [], {}
    for (label, stage), measured in measurements.runs.items():
        if measured.forget is not None:
            per_unit = np.sort(measured.forget.mean(axis=(0, 1)))[::-1]
            forget += [{"stage": stage, "unit": rank, "forget": value} for rank, value in enumerate(per_unit)]
            cell_path[stage] = cell_path_gain(measured.forget)
    decay = pd.DataFrame([{"shrink": shrink, "ratio": far_near_ratio(by_distance(measured.hidden), far)}
                          for shrink, measured in measurements.decay.items()])
    return GradientStudy(pd.DataFrame(curves), pd.DataFrame(clipped), pd.DataFrame(summary), pd.DataFrame(forget),
                         decay, cell_path, float(theta), far)


def cell_path_gain(forget: np.ndarray) -> float:
    """``∏_{t=1}^{T−1} f_t`` (= ``∂c_{T−1}/∂c_0`` along the cell path alone, ``diag(f_t)`` per step) averaged over
    sequences and units, from forget gates `(B, T, H)`."""
    return float(np.mean(np.exp(np.sum(np.log(np.asarray(forget, "float64")[:, 1:]), axis=1))))


def quiz_numbers(study: GradientStudy) -> dict:
    """The measured numbers the quiz's explanation quotes (floats), keyed by what they are."""
    summary = study.clip_summary.set_index(["model", "stage"])
    curves = study.curves.set_index(["model", "stage", "state", "distance"])["norm"]

    def cell_ratio(stage):
        return float(curves[("LSTM", stage, "c", study.far)] / curves[("LSTM", stage, "c", 0)])

    trained_forget = study.forget[study.forget["stage"] == TRAINED]["forget"]
    initial_forget = study.forget[study.forget["stage"] == INITIAL]["forget"]
    return {
        "far": study.far, "theta": study.theta,
        "rnn_ratio": float(summary.loc[("vanilla RNN", INITIAL), "ratio"]),
        "rnn_clipped_ratio": float(summary.loc[("vanilla RNN", INITIAL), "clipped_ratio"]),
        "rnn_factor": float(summary.loc[("vanilla RNN", INITIAL), "factor"]),
        "rnn_trained_ratio": float(summary.loc[("vanilla RNN", TRAINED), "ratio"]),
        "exploding_ratio": float(summary.loc[("vanilla RNN", EXPLODING), "ratio"]),
        "exploding_norm": float(summary.loc[("vanilla RNN", EXPLODING), "gradient_norm"]),
        "exploding_clipped_norm": float(summary.loc[("vanilla RNN", EXPLODING), "clipped_norm"]),
        "lstm_cell_ratio_initial": cell_ratio(INITIAL), "lstm_cell_ratio_trained": cell_ratio(TRAINED),
        "forget_mean_initial": float(initial_forget.mean()), "forget_mean_trained": float(trained_forget.mean()),
        "forget_top_trained": float(trained_forget.max()),
        "cell_path_initial": study.cell_path[INITIAL], "cell_path_trained": study.cell_path[TRAINED],
        "decay_ratios": dict(zip(study.decay["shrink"], study.decay["ratio"])),
    }
