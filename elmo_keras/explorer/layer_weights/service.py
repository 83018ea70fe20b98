"""ELMo's task-specific layer weights on the frozen biLM: ``head(γ · Σ_j softmax(s)_j h_j)``, trained per task.

For each probe task (``probe_tasks``) the page shows three things:

1. the learned mix: a ``ScalarMix`` (s₀…s_L, γ: "this task learned L + 2 numbers") trained jointly with a
   linear softmax head on cached activations (Keras, a few epochs, fixed seed), and its held-out accuracy;
2. a linear softmax probe per single layer, trained alongside in the same ``fit``, for comparison;
3. ``rescore``: the held-out accuracy of the *same* trained head for any s and γ, in NumPy. The head is
   linear, so ``head(γ Σ a_j h_j) = γ Σ a_j (h_j W) + b``: the per-layer logits ``h_j W`` are computed once and
   a slider move costs one weighted sum.

``findings`` states what the numbers show, whichever way they come out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from elmo_keras.analysis.layer_probes import (  # noqa: F401 (MIX_* re-exported for the page's text)
    MIX_BATCH_SIZE,
    MIX_EPOCHS,
    MIX_LEARNING_RATE,
    MixHead,
    ProbeTask,
    fit_mix_and_probes,
    softmax,
)
from elmo_keras.explorer.layer_weights.probe_tasks import (
    POS,
    SENSE,
    corpus_activations,
    pos_task,
    sense_task,
)
from elmo_keras.real_text.probe_findings import binomial_noise

# Weighted mean layers of the two tasks must differ by more than this before a finding names a direction: on the
# toy model another seed can move their difference, even reverse it, and a single run cannot measure its own
# seed-to-seed spread, so the margin sits above the spread seen across seeds.
DIRECTION_MARGIN = 0.15


@dataclass(frozen=True)
class TaskReport:
    """One task's results (small arrays only: what the page needs to redraw and rescore)."""

    name: str
    title: str
    kind: str
    head: MixHead
    heldout_accuracy: float
    probe_accuracies: np.ndarray  # (L,) single-layer linear softmax probes, held-out
    majority_accuracy: float
    layer_logits: np.ndarray  # (L, n_test, C) = h_j W on the held-out examples
    test_labels: np.ndarray  # (n_test,)
    num_train: int
    num_classes: int

    @property
    def num_test(self) -> int:
        return int(len(self.test_labels))

    @property
    def num_layers(self) -> int:
        return int(self.layer_logits.shape[0])


@dataclass(frozen=True)
class LayerWeightReport:
    """The layer-weights page's data: one ``TaskReport`` per task the corpus supports, and the findings."""

    reports: list  # [TaskReport]
    skipped: list  # reasons a task could not be built on this corpus
    findings: list  # sentences computed from the numbers


def _accuracy(layer_logits, bias, labels, scalar_parameters, gamma) -> float:
    mixed = float(gamma) * np.tensordot(softmax(scalar_parameters), layer_logits, axes=1)  # (n_test, C)
    return float(np.mean(np.argmax(mixed + bias, axis=1) == labels))


def rescore(report: TaskReport, scalar_parameters, gamma: float) -> float:
    """Held-out accuracy of the trained head on ``gamma · Σ softmax(scalar_parameters)_j h_j`` (NumPy only).

    Args:
        report: a trained task's report (its ``layer_logits`` `(L, n_test, C)` and head bias).
        scalar_parameters: `(L,)` raw ``s`` (before the softmax).
        gamma: float, ``γ``.

    Raises:
        ValueError: ``scalar_parameters`` does not have one value per layer.
    """
    scalar_parameters = np.asarray(scalar_parameters, dtype=np.float64)
    if scalar_parameters.shape != (report.num_layers,):
        raise ValueError(f"scalar_parameters must have {report.num_layers} values, "
                         f"received shape {scalar_parameters.shape}")
    return _accuracy(report.layer_logits, report.head.bias, report.test_labels, scalar_parameters, gamma)


def task_report(task: ProbeTask, seed: int = 0) -> TaskReport:
    """Train the mix and the probes for one task (``fit_mix_and_probes``) and score them on its held-out part."""
    head, probes = fit_mix_and_probes(task, seed)
    layer_logits = np.einsum("nld,dc->lnc", task.test_features.astype(np.float64), head.kernel)  # (L, n, C)
    return TaskReport(
        name=task.name, title=task.title, kind=task.kind, head=head,
        heldout_accuracy=_accuracy(layer_logits, head.bias, task.test_labels, head.scalar_parameters, head.gamma),
        probe_accuracies=probes, majority_accuracy=task.majority_accuracy,
        layer_logits=layer_logits, test_labels=task.test_labels, num_train=len(task.train_labels),
        num_classes=len(task.labels),
    )


def weights_table(reports: list) -> pd.DataFrame:
    """Long table ``task, layer, weight, probe_accuracy`` for the bar charts."""
    rows = []
    for report in reports:
        for layer, (weight, probe) in enumerate(zip(report.head.weights, report.probe_accuracies)):
            rows.append({"task": report.title, "layer": layer, "weight": float(weight), "probe_accuracy": float(probe)})
    return pd.DataFrame(rows, columns=["task", "layer", "weight", "probe_accuracy"])


def findings(reports: list) -> list[str]:
    """What this run shows, computed from the numbers (never a fixed claim)."""
    lines = []
    for r in reports:
        top = int(np.argmax(r.head.weights))
        probe_best = int(np.argmax(r.probe_accuracies))
        lines.append(
            f"{r.title} ({r.kind}): the mix puts {r.head.weights[top]:.0%} of its weight on layer {top} "
            f"(weighted mean layer {np.dot(np.arange(r.num_layers), r.head.weights):.2f}, γ = {r.head.gamma:.2f}) and "
            f"scores {r.heldout_accuracy:.0%} on {r.num_test} held-out examples; the best single-layer probe is layer "
            f"{probe_best} ({r.probe_accuracies[probe_best]:.0%}); always guessing the most frequent label scores "
            f"{r.majority_accuracy:.0%}. Differences below about ±{binomial_noise(r.heldout_accuracy, r.num_test):.0%} "
            "are within noise at this size."
        )
    by_kind = {r.kind: r for r in reports}
    if {"syntactic", "semantic"} <= set(by_kind):
        syn, sem = by_kind["syntactic"], by_kind["semantic"]
        # rounded as printed, so that the stated difference is the difference of the printed means
        syn_mean = round(float(np.dot(np.arange(syn.num_layers), syn.head.weights)), 2)
        sem_mean = round(float(np.dot(np.arange(sem.num_layers), sem.head.weights)), 2)
        difference = round(syn_mean - sem_mean, 2)
        if difference < -DIRECTION_MARGIN:
            verdict = (f"leans on lower layers than the semantic task (by {-difference:.2f} of a layer) — the "
                       "direction the ELMo paper reports (lower layers: syntax, higher layers: semantics); this is "
                       "one seed's run, so check that another seed keeps it")
        elif difference > DIRECTION_MARGIN:
            verdict = (f"leans on higher layers than the semantic task (by {difference:.2f} of a layer) — the "
                       "opposite of the ELMo paper's finding; one seed's run on a corpus this small is not evidence "
                       "either way")
        elif difference == 0:
            verdict = "weights the layers as the semantic task does: this run does not separate the two tasks"
        else:
            verdict = (f"sits only slightly {'lower' if difference < 0 else 'higher'} than the semantic task "
                       f"({abs(difference):.2f} of a layer apart, no more than the {DIRECTION_MARGIN:.2f} a direction "
                       "needs here): another seed can erase or reverse a difference this small, so this run does not "
                       "separate the two tasks")
        lines.append(f"Comparing the two: the syntactic task (weighted mean layer {syn_mean:.2f}) {verdict} "
                     f"(semantic task: {sem_mean:.2f}).")
    return lines


def layer_weight_report(model, corpus: pd.DataFrame, seed: int = 0) -> LayerWeightReport:
    """The layer-weights page's one service call: activations once, both tasks, findings.

    A task the corpus cannot support (no held-out examples, one label) is skipped and its reason kept in
    ``skipped``.

    Args:
        model: a trained ``BiLanguageModel``.
        corpus: the working corpus (POS tags and sense labels).
        seed: int, the training seed of every task. Defaults to 0.
    """
    activations = corpus_activations(model, corpus)
    reports, skipped = [], []
    for build in (pos_task, sense_task):
        try:
            task = build(corpus, activations)
        except ValueError as error:
            skipped.append(str(error))
            continue
        reports.append(task_report(task, seed))
    return LayerWeightReport(reports, skipped, findings(reports))


__all__ = ["POS", "SENSE", "LayerWeightReport", "MixHead", "TaskReport", "findings", "layer_weight_report",
           "fit_mix_and_probes", "rescore", "softmax", "task_report", "weights_table"]
