"""Plotly figures for the Layer weights page: the ScalarMix weights (softmax-normalised, with γ) and the
per-layer probe accuracies beside the mix's; on real English, the weights each task learned on each biLM."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from elmo_keras.explorer.charts import FONT_SIZE

KIND_PALETTES = {"syntactic": ["#1f77b4", "#17becf", "#2ca02c", "#aec7e8"], "semantic": ["#d62728", "#ff9896"]}


def mix_weights(weights, gamma: float, title: str, reference=None) -> go.Figure:
    """softmax(s)_j as bars, γ in the title; ``reference`` (the learned weights) drawn as markers if given.

    Args:
        weights, reference: `(L,)` layer weights summing to 1 (``reference`` may be None).
        gamma: float, the mix's γ.
        title: str, the task's name.
    """
    layers = [f"layer {j}" for j in range(len(weights))]
    fig = go.Figure(go.Bar(x=layers, y=weights, text=[f"{w:.2f}" for w in weights], textposition="outside",
                           marker_color="#9467bd", name="softmax(s)"))
    if reference is not None:
        fig.add_trace(go.Scatter(x=layers, y=reference, mode="markers", name="learned",
                                 marker={"symbol": "line-ew-open", "size": 28, "line": {"width": 3, "color": "black"}}))
    fig.update_layout(title={"text": f"{title}: softmax(s), γ = {gamma:.2f}", "font": {"size": 13}},
                      yaxis={"range": [0, 1.15], "title": {"text": "weight"}}, height=280,
                      showlegend=reference is not None,
                      margin={"l": 40, "r": 10, "t": 40, "b": 30}, legend={"orientation": "h", "y": -0.2},
                      font={"size": FONT_SIZE})
    return fig


def task_accuracies(probe_accuracies, mix_accuracy: float, majority: float, title: str,
                    current: float | None = None) -> go.Figure:
    """Held-out accuracy of each single-layer probe, of the learned mix (and the slider mix), with the majority line.

    Args:
        probe_accuracies: `(L,)` accuracies in ``[0, 1]``.
        mix_accuracy, majority: the learned mix's accuracy and the most-frequent-label baseline.
        title: str, the task's name.
        current: the slider mix's accuracy, or None (no bar). Defaults to None.
    """
    names = [f"probe layer {j}" for j in range(len(probe_accuracies))] + ["learned mix"]
    values = list(probe_accuracies) + [mix_accuracy]
    colours = ["#7f7f7f"] * len(probe_accuracies) + ["#9467bd"]
    if current is not None:
        names.append("slider mix")
        values.append(current)
        colours.append("#e377c2")
    fig = go.Figure(go.Bar(x=names, y=values, marker_color=colours, text=[f"{v:.0%}" for v in values],
                           textposition="outside"))
    fig.add_hline(y=majority, line_dash="dot", line_color="black")
    fig.update_layout(title={"text": f"{title}: held-out accuracy (dotted: most frequent label, {majority:.0%})",
                             "font": {"size": 13}},
                      yaxis={"range": [0, 1.15], "tickformat": ".0%"}, height=280,
                      margin={"l": 40, "r": 10, "t": 40, "b": 30}, font={"size": FONT_SIZE})
    return fig


def task_colours(weights: pd.DataFrame) -> dict:
    """A colour per task of ``weights`` (``task``, ``kind``): blues and greens for syntactic tasks, reds for
    semantic ones, in order of appearance."""
    colours, used = {}, {kind: 0 for kind in KIND_PALETTES}
    for task, kind in dict.fromkeys(zip(weights["task"], weights["kind"])):
        palette = KIND_PALETTES.get(kind, KIND_PALETTES["syntactic"])
        colours[task] = palette[used.get(kind, 0) % len(palette)]
        used[kind] = used.get(kind, 0) + 1
    return colours


def mix_weights_by_task(weights: pd.DataFrame) -> go.Figure:
    """One panel per biLM (the toy run first), grouped bars: each task's learned softmax(s)_j by layer, with ± one
    std over seeds as error bars where there are several seeds.

    Args:
        weights: ``layer_weights.real_english.RealEnglishMixes.weights`` (``panel, task, kind, layer, weight_mean,
            weight_std, seeds``).
    """
    panels = list(dict.fromkeys(weights["panel"]))
    figure = make_subplots(rows=1, cols=max(len(panels), 1), shared_yaxes=True, horizontal_spacing=0.05,
                           subplot_titles=panels or None)
    colours, shown = task_colours(weights), set()
    for column, panel in enumerate(panels, start=1):
        part = weights[weights["panel"] == panel]
        for task, rows in part.groupby("task", sort=False):
            rows = rows.sort_values("layer")
            stds = rows["weight_std"].astype(float)
            figure.add_trace(go.Bar(
                x=rows["layer"], y=rows["weight_mean"], name=task, legendgroup=task, showlegend=task not in shown,
                marker_color=colours[task],
                error_y={"type": "data", "array": stds.fillna(0.0), "visible": bool(stds.notna().any())},
                hovertemplate=f"{task}<br>layer %{{x}}: %{{y:.2f}}<extra>{panel}</extra>"), row=1, col=column)
            shown.add(task)
        figure.update_xaxes(tickvals=sorted(set(part["layer"])), title_text="layer", row=1, col=column)
    figure.update_yaxes(range=[0, 1.05], title_text="softmax(s)ⱼ", row=1, col=1)
    figure.update_layout(barmode="group", height=340, margin={"l": 50, "r": 10, "t": 50, "b": 40},
                         font={"size": FONT_SIZE}, legend={"orientation": "h", "y": -0.25},
                         title={"text": "Learned layer weights per task (mean ± std over seeds)", "font": {"size": 13}})
    return figure
