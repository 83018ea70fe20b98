"""Tables and sentences from the probe runs of ``real_text.probing`` (one dict per model, task and seed), computed
from the numbers whichever way they come out.

A layer is said to be **preferred beyond the seed spread** only when every seed ranks it above the runner-up
(paired: the same seed's sample, initialization and shuffling) and the mean paired difference exceeds twice its
standard deviation over the seeds; otherwise the page says the two layers are not separated by these runs.
``mix_findings`` holds the learned mixes to the same standard: a syntactic task's weighted mean layer differs from
the semantic task's **beyond the seed spread** only when the difference exceeds twice the larger of their two
standard deviations over the seeds and every seed puts it on the same side.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from elmo_keras.real_text.tasks import TASK_KINDS, TASK_TITLES

MODEL_TITLES = {"treebank-lstm": "LSTM", "treebank-transformer": "transformer"}


def _title(model: str) -> str:
    return MODEL_TITLES.get(model, model)


def _groups(runs: list[dict]):
    """``((model, task), [runs sorted by seed])`` in first-seen order."""
    groups: dict[tuple, list] = {}
    for run in runs:
        groups.setdefault((run["model"], run["task"]), []).append(run)
    return [(key, sorted(value, key=lambda run: run["seed"])) for key, value in groups.items()]


def probe_summary(runs: list[dict]) -> pd.DataFrame:
    """Per model, task and layer: held-out probe accuracy mean, std (ddof 0), min and max over seeds; and the
    mix's accuracy and weight of that layer (mean, std). Columns: ``model, task, title, kind, layer, mean, std,
    min, max, weight_mean, weight_std, mix_accuracy, majority_accuracy, seeds``."""
    rows = []
    for (model, task), group in _groups(runs):
        accuracies = np.array([run["probe_accuracies"] for run in group])  # (seeds, L)
        weights = np.array([run["mix_weights"] for run in group])
        for layer in range(accuracies.shape[1]):
            rows.append({
                "model": model, "task": task, "title": TASK_TITLES.get(task, task), "kind": TASK_KINDS.get(task, ""),
                "layer": layer, "mean": accuracies[:, layer].mean(), "std": accuracies[:, layer].std(),
                "min": accuracies[:, layer].min(), "max": accuracies[:, layer].max(),
                "weight_mean": weights[:, layer].mean(), "weight_std": weights[:, layer].std(),
                "mix_accuracy": float(np.mean([run["mix_accuracy"] for run in group])),
                "majority_accuracy": float(group[0]["majority_accuracy"]), "seeds": len(group),
            })
    return pd.DataFrame(rows)


def layer_preferences(runs: list[dict]) -> pd.DataFrame:
    """Per model and task: the best layer by mean accuracy, the runner-up, their paired difference over seeds and
    whether it is beyond the seed spread; the mix's weighted mean layer (mean, std over seeds).

    Columns: ``model, task, best_layer, best_mean, runner_up, runner_up_mean, margin, margin_std, margin_min,
    separated, layer0_mean, majority_accuracy, mean_layer, mean_layer_std, num_test``.
    """
    rows = []
    for (model, task), group in _groups(runs):
        accuracies = np.array([run["probe_accuracies"] for run in group])
        order = np.argsort(-accuracies.mean(axis=0), kind="stable")
        best, runner_up = int(order[0]), int(order[1])
        paired = accuracies[:, best] - accuracies[:, runner_up]
        mean_layers = np.array([np.dot(np.arange(len(run["mix_weights"])), run["mix_weights"]) for run in group])
        rows.append({
            "model": model, "task": task, "best_layer": best, "best_mean": accuracies[:, best].mean(),
            "runner_up": runner_up, "runner_up_mean": accuracies[:, runner_up].mean(), "margin": paired.mean(),
            "margin_std": paired.std(), "margin_min": paired.min(),
            "separated": bool(len(group) > 1 and paired.min() > 0 and paired.mean() > 2 * paired.std()),
            "layer0_mean": accuracies[:, 0].mean(), "majority_accuracy": float(group[0]["majority_accuracy"]),
            "mean_layer": mean_layers.mean(), "mean_layer_std": mean_layers.std(), "num_test": group[0]["num_test"],
        })
    return pd.DataFrame(rows)


def probe_findings(runs: list[dict]) -> list[str]:
    """One sentence per model and task, then one per model comparing the syntactic tasks with the semantic one."""
    preferences = layer_preferences(runs)
    lines = []
    for row in preferences.itertuples(index=False):
        noise_bound = binomial_noise(row.best_mean, row.num_test)
        verdict = (f"beyond the seed spread (every seed ranks it first; by {row.margin:.1%} ± {row.margin_std:.1%})"
                   + (f" but not beyond the noise of {row.num_test} held-out examples (±{noise_bound:.0%})"
                      if row.num_test < 1000 and row.margin < noise_bound else "")
                   if row.separated else
                   f"not separated from layer {row.runner_up} by these runs ({row.margin:+.1%} ± {row.margin_std:.1%}, "
                   f"smallest paired difference {row.margin_min:+.1%})")
        noise = ""
        if row.num_test < 1000:
            noise = (f"; with {row.num_test} held-out examples, differences under about "
                     f"±{noise_bound:.0%} are noise")
        lines.append(
            f"{TASK_TITLES.get(row.task, row.task)} ({_title(row.model)}): layer {row.best_layer} is best "
            f"({row.best_mean:.1%}; layer {row.runner_up}: {row.runner_up_mean:.1%}), {verdict}; the context-free "
            f"layer 0 scores {row.layer0_mean:.1%} and the majority label {row.majority_accuracy:.1%}; the learned mix "
            f"sits at weighted mean layer {row.mean_layer:.2f} ± {row.mean_layer_std:.2f}{noise}."
        )
    for model, rows in preferences.groupby("model", sort=False):
        kinds = {task: row for task, row in zip(rows.task, rows.itertuples(index=False))}
        semantic = [task for task in kinds if TASK_KINDS.get(task) == "semantic"]
        syntactic = [task for task in kinds if TASK_KINDS.get(task) == "syntactic"]
        if not semantic or not syntactic:
            continue
        sem = kinds[semantic[0]]
        syn_layers = ", ".join(f"{TASK_TITLES[task]} {kinds[task].best_layer}" for task in syntactic)
        lower = all(kinds[task].best_layer < sem.best_layer for task in syntactic)
        higher = all(kinds[task].best_layer > sem.best_layer for task in syntactic)
        same = all(kinds[task].best_layer == sem.best_layer for task in syntactic)
        direction = ("lower than the semantic task's, the pattern Peters et al. (2018a §5.3; 2018b) report"
                     if lower else "higher than the semantic task's, the opposite of the pattern Peters et al. report"
                     if higher else "the semantic task's own: these runs do not show the layered pattern Peters et "
                     "al. report" if same else "not all on one side of the semantic task's: these runs do not show "
                     "the layered pattern Peters et al. report")
        lines.append(f"{_title(model)}: the syntactic tasks' best layers ({syn_layers}) are {direction} "
                     f"(word sense: layer {sem.best_layer}).")
    return lines


def _seed_mean_layers(runs: list[dict]) -> dict:
    """``{(model, task): {seed: weighted mean layer Σ_j j · w_j of that seed's mix}}``."""
    layers: dict[tuple, dict] = {}
    for run in runs:
        weights = np.asarray(run["mix_weights"], dtype=np.float64)
        layers.setdefault((run["model"], run["task"]), {})[run["seed"]] = float(np.dot(np.arange(len(weights)),
                                                                                       weights))
    return layers


def mix_separation(syntactic, semantic, syntactic_seeds: dict, semantic_seeds: dict) -> tuple[int, str]:
    """Whether a syntactic task's learned mix sits apart from the semantic task's beyond the seed spread.

    Args:
        syntactic, semantic: rows of ``layer_preferences`` (``mean_layer``, ``mean_layer_std``).
        syntactic_seeds, semantic_seeds: ``{seed: weighted mean layer}`` of each task; the seeds both have are paired.

    Returns:
        ``(sign, reason)``: -1 / +1 where the syntactic mix sits lower / higher beyond the seed spread (the difference
        of the means exceeds twice the larger std, over at least two paired seeds that all give it the same sign),
        else 0; ``reason`` says which, in a few words.
    """
    difference = syntactic.mean_layer - semantic.mean_layer
    paired = [syntactic_seeds[seed] - semantic_seeds[seed] for seed in syntactic_seeds if seed in semantic_seeds]
    spread = 2 * max(syntactic.mean_layer_std, semantic.mean_layer_std)
    sign = int(np.sign(difference))
    if len(paired) < 2:
        return 0, "one seed: no spread measured"
    if sign == 0 or abs(difference) <= spread:
        return 0, f"within the seed spread: twice the larger std is {spread:.2f}"
    if any(np.sign(d) != sign for d in paired):
        return 0, "the seeds disagree on its sign"
    return sign, "beyond the seed spread"


def mix_findings(runs: list[dict]) -> list[str]:
    """One sentence per model: do the syntactic tasks' learned mixes (weighted mean layer) sit apart from the
    semantic task's beyond the seed spread (``mix_separation``)? Each task's numbers are quoted either way."""
    preferences, seed_layers = layer_preferences(runs), _seed_mean_layers(runs)
    lines = []
    for model, rows in preferences.groupby("model", sort=False):
        tasks = {row.task: row for row in rows.itertuples(index=False)}
        semantic = [task for task in tasks if TASK_KINDS.get(task) == "semantic"]
        syntactic = [task for task in tasks if TASK_KINDS.get(task) == "syntactic"]
        if not semantic or not syntactic:
            continue
        sem = tasks[semantic[0]]
        signs, parts = [], []
        for task in syntactic:
            row = tasks[task]
            sign, reason = mix_separation(row, sem, seed_layers[(model, task)], seed_layers[(model, sem.task)])
            signs.append(sign)
            parts.append(f"{TASK_TITLES.get(task, task)} {row.mean_layer:.2f} ± {row.mean_layer_std:.2f} "
                         f"({row.mean_layer - sem.mean_layer:+.2f}: {reason})")
        numbers = (f"weighted mean layer, mean ± std over {len(seed_layers[(model, sem.task)])} seeds: "
                   f"{'; '.join(parts)}; {TASK_TITLES.get(sem.task, sem.task)} {sem.mean_layer:.2f} ± "
                   f"{sem.mean_layer_std:.2f}")
        if all(sign == -1 for sign in signs):
            verdict = ("sit lower than the semantic task's, beyond the seed spread — the direction Peters et al. "
                       "(2018a §5.3; 2018b) report")
        elif all(sign == 1 for sign in signs):
            verdict = ("sit higher than the semantic task's, beyond the seed spread — the opposite of the direction "
                       "Peters et al. (2018a §5.3; 2018b) report")
        elif not any(signs):
            verdict = "do not separate from the semantic task's beyond the seed spread"
        else:
            verdict = "do not all separate from the semantic task's, on one side, beyond the seed spread"
        lines.append(f"{_title(model)}: the syntactic tasks' learned mixes {verdict} ({numbers}).")
    return lines


def binomial_noise(accuracy: float, count: int) -> float:
    """Twice the binomial standard error of an accuracy measured on ``count`` examples (the accuracy clamped to
    [0.05, 0.95], so a perfect or null score still has a margin); the Layer weights page's toy findings use it too."""
    p = min(max(accuracy, 0.05), 0.95)
    return 2.0 * float(np.sqrt(p * (1 - p) / max(count, 1)))
