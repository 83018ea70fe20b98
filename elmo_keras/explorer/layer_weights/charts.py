"""Plotly figures for the Layer weights page: the ScalarMix weights (softmax-normalised, with γ) and the
per-layer probe accuracies beside the mix's."""

from __future__ import annotations

import plotly.graph_objects as go

from elmo_keras.explorer.charts import FONT_SIZE


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
