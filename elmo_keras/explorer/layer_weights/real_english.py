"""The Layer weights page's section on real English: the ScalarMix weights ``softmax(s)_j`` that the probe runs of
``real_text.probing`` learned per task on the two treebank biLMs (mean ± std over seeds, read from the shipped
``real_text_probes.json``), beside the weights of the page's own toy run, and one computed sentence per biLM on
whether the syntactic tasks' mixes sit apart from the semantic task's (``real_text.probe_findings.mix_findings``).

``real_english_mixes(results, toy_reports, toy_name)`` is the section's one call.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from elmo_keras.explorer.probing.service import provenance_line
from elmo_keras.real_text.probe_findings import layer_preferences, mix_findings, probe_summary
from elmo_keras.real_text.tasks import TASK_TITLES

WEIGHT_COLUMNS = ["panel", "task", "kind", "layer", "weight_mean", "weight_std", "seeds"]


@dataclass(frozen=True)
class RealEnglishMixes:
    """What the section shows.

    Attributes:
        weights: long table, one row per panel (the toy run, then each treebank biLM by name), task and layer:
            ``WEIGHT_COLUMNS`` (``weight_std`` NaN for the toy's single run).
        table: one row per panel and task: ``biLM``, ``task``, ``layer 0`` … (``mean ± std``), ``weighted mean
            layer``, ``γ``, ``seeds``.
        findings: ``mix_findings`` of the runs, one sentence per treebank biLM.
        provenance: ``probing.service.provenance_line`` of the results.
    """

    weights: pd.DataFrame
    table: pd.DataFrame
    findings: list
    provenance: str


def toy_panel(toy_name: str, seed: int) -> str:
    """The name of the toy run's panel."""
    return f"{toy_name} (toy corpus, seed {seed})"


def treebank_weights(runs: list[dict]) -> pd.DataFrame:
    """``WEIGHT_COLUMNS`` rows of the treebank probe runs: each layer's mix weight, mean and std over seeds."""
    summary = probe_summary(runs)
    return pd.DataFrame({"panel": summary["model"], "task": summary["title"],
                         "kind": summary["kind"], "layer": summary["layer"], "weight_mean": summary["weight_mean"],
                         "weight_std": summary["weight_std"], "seeds": summary["seeds"]}, columns=WEIGHT_COLUMNS)


def toy_weights(reports: list, panel: str) -> pd.DataFrame:
    """``WEIGHT_COLUMNS`` rows of the page's toy run (``service.TaskReport`` list): one seed, no std."""
    rows = [{"panel": panel, "task": f"{report.title} (toy)", "kind": report.kind, "layer": layer,
             "weight_mean": float(weight), "weight_std": np.nan, "seeds": 1}
            for report in reports for layer, weight in enumerate(report.head.weights)]
    return pd.DataFrame(rows, columns=WEIGHT_COLUMNS)


def mix_table(runs: list[dict], reports: list, panel: str) -> pd.DataFrame:
    """One row per panel and task: each layer's weight, the weighted mean layer and γ (mean ± std over seeds; the
    toy run's values alone)."""
    rows = [{"biLM": panel, "task": f"{report.title} (toy)", "seeds": 1,
             **{f"layer {j}": f"{w:.2f}" for j, w in enumerate(report.head.weights)},
             "weighted mean layer": f"{np.dot(np.arange(report.num_layers), report.head.weights):.2f}",
             "γ": f"{report.head.gamma:.2f}"} for report in reports]
    if runs:
        preferences = layer_preferences(runs).set_index(["model", "task"])
        for (model, task), layers in probe_summary(runs).groupby(["model", "task"], sort=False):
            gammas = np.array([run["gamma"] for run in runs if (run["model"], run["task"]) == (model, task)])
            row = preferences.loc[(model, task)]
            rows.append({"biLM": model, "task": TASK_TITLES.get(task, task), "seeds": len(gammas),
                         **{f"layer {j}": f"{m:.2f} ± {s:.2f}"
                            for j, m, s in zip(layers["layer"], layers["weight_mean"], layers["weight_std"])},
                         "weighted mean layer": f"{row.mean_layer:.2f} ± {row.mean_layer_std:.2f}",
                         "γ": f"{gammas.mean():.2f} ± {gammas.std():.2f}"})
    table = pd.DataFrame(rows)
    layers = sorted((c for c in table.columns if c.startswith("layer ")), key=lambda c: int(c.split()[1]))
    return table.reindex(columns=["biLM", "task", *layers, "weighted mean layer", "γ", "seeds"]).fillna("")


def real_english_mixes(results: dict, toy_reports: list, toy_name: str, seed: int) -> RealEnglishMixes:
    """The section's data: the treebank runs of ``results`` (the parsed ``real_text_probes.json``) beside the page's
    toy run (``toy_reports``: ``service.TaskReport`` list, trained on ``toy_name`` with ``seed``; may be empty)."""
    runs = results.get("runs") or []
    panel = toy_panel(toy_name, seed)
    frames = [frame for frame in (toy_weights(toy_reports, panel), treebank_weights(runs) if runs else None)
              if frame is not None and not frame.empty]
    weights = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=WEIGHT_COLUMNS)
    return RealEnglishMixes(weights=weights, table=mix_table(runs, toy_reports, panel),
                            findings=mix_findings(runs) if runs else [], provenance=provenance_line(results))
