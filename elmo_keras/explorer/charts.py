"""Plotly figures for the biLM pages (training curves, similarity heatmaps, PCA, layer weights).

Figures are built from the services' plain data and returned, never shown: the pages hand them to
``st.plotly_chart``. Requires ``plotly`` (the ``app`` extra); nothing else in ``elmo_keras`` imports this module.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from elmo_keras.explorer.chart_text import escape

DIRECTION_COLOURS = {"forward": "#1f77b4", "backward": "#d62728"}
SENSE_PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"]
SPECIAL_SENSE_COLOURS = {"unlabelled": "#9e9e9e", "typed": "#000000"}
HEATMAP_ROW_PX = 17
HEATMAP_MAX_ZMIN = 0.8
LOG_TICKS = [m * 10**k for k in range(6) for m in (1, 2, 5)]  # 1, 2, 5, 10, 20, …, 500000
LOG_AXIS_PAD = 0.08  # share of the data's span (in decades) added on each side of a log axis
LOG_AXIS_MIN_PAD = 0.01  # decades (about 2%): a flat curve still gets a range to put ticks in
FONT_SIZE = 11
# 3-D PCA: a camera a little further out than Plotly's default, aimed right of the centre, so that each narrow
# scene keeps its PC3 title (drawn left of the box) inside its own canvas
PCA_3D_CAMERA = {"eye": {"x": 1.8, "y": 1.8, "z": 1.0}, "center": {"x": 0.16, "y": -0.16, "z": -0.05}}


def sense_colours(senses) -> dict:
    """A stable colour per sense label (grey for unlabelled, black for typed sentences)."""
    colours, palette = {}, iter(SENSE_PALETTE * 4)
    for sense in dict.fromkeys(senses):
        colours[sense] = SPECIAL_SENSE_COLOURS.get(sense) or next(palette)
    return colours


def _round_step(span: float) -> float:
    """The largest 1, 2 or 5 × 10^k not above ``span`` (> 0)."""
    power = 10.0 ** np.floor(np.log10(span))
    return max(m * power for m in (1, 2, 5) if m * power <= span * (1 + 1e-9))


def log_axis_ticks(values) -> tuple[list[float] | None, list[float]]:
    """``(range in decades, tick values)`` for a log axis over ``values``, with at least two ticks inside the range.

    The 1-2-5 ticks (``LOG_TICKS``) when two or more fall inside the padded data range; otherwise (a narrow range,
    such as perplexities from 23.0 to 23.2) round values evenly spaced across it. ``(None, LOG_TICKS)`` without
    a positive finite value; non-positive and non-finite values are ignored.
    """
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values) & (values > 0)]
    if not len(values):
        return None, list(LOG_TICKS)
    low, high = float(np.log10(values.min())), float(np.log10(values.max()))
    pad = max(LOG_AXIS_PAD * (high - low), LOG_AXIS_MIN_PAD)
    low, high = low - pad, high + pad
    bottom, top = 10.0**low, 10.0**high
    ticks = [t for t in LOG_TICKS if bottom <= t <= top]
    if len(ticks) < 2:
        step = _round_step((top - bottom) / 3)  # the range spans at least three steps: three ticks or more
        decimals = max(0, int(-np.floor(np.log10(step))))
        ticks = [round(float(t), decimals) for t in np.arange(np.ceil(bottom / step) * step, top, step)]
        ticks = [t for t in ticks if bottom <= t <= top]
    return [low, high], ticks


def training_curves(history: pd.DataFrame, total_epochs: int | None = None) -> go.Figure:
    """Forward/backward loss and perplexity per epoch.

    Args:
        history: ``training.history_frame``'s long table (``epoch, direction, loss, perplexity``).
        total_epochs: int, the x axis runs to this epoch. Defaults to None (the last epoch in ``history``).
    """
    fig = make_subplots(rows=1, cols=2, subplot_titles=("loss (mean cross-entropy per token)", "perplexity"),
                        horizontal_spacing=0.1)
    for direction, colour in DIRECTION_COLOURS.items():
        part = history[history["direction"] == direction]
        for col, column in ((1, "loss"), (2, "perplexity")):
            trace = go.Scatter(x=part["epoch"], y=part[column], mode="lines+markers", name=direction,
                               line={"color": colour}, legendgroup=direction, showlegend=col == 1)
            fig.add_trace(trace, row=1, col=col)
    upper = total_epochs or (int(history["epoch"].max()) if len(history) else 1)
    # whole epochs only: with few epochs Plotly's own ticks fall on 0.5, 1.5, …
    fig.update_xaxes(title_text="epoch", range=[0.5, upper + 0.5], tick0=1, dtick=1 if upper <= 10 else None)
    perplexity_range, ticks = log_axis_ticks(history["perplexity"])
    fig.update_yaxes(type="log", range=perplexity_range, tickvals=ticks, ticktext=[f"{t:g}" for t in ticks],
                     row=1, col=2)
    fig.update_layout(height=320, margin={"l": 50, "r": 20, "t": 40, "b": 40}, legend={"orientation": "h", "y": -0.25})
    return fig


def similarity_heatmaps(view) -> go.Figure:
    """One heatmap per layer of a ``similarity.SimilarityView``, side by side, rows/columns ordered by sense;
    sense blocks outlined."""
    n, layers = len(view.labels), view.num_layers
    fig = make_subplots(rows=1, cols=layers, shared_yaxes=True, horizontal_spacing=0.015,
                        subplot_titles=[f"layer {j}" for j in range(layers)])
    hover = np.empty((n, n, 2), dtype=object)
    for i in range(n):
        for j in range(n):
            hover[i, j] = (escape(f"{view.senses[i]}: {view.sentences[i]}"),
                           escape(f"{view.senses[j]}: {view.sentences[j]}"))
    # the colour scale starts just below the lowest similarity shown, so small differences stay visible
    zmin = float(min(HEATMAP_MAX_ZMIN, np.floor(view.matrices.min() * 10) / 10))
    for layer in range(layers):
        fig.add_trace(go.Heatmap(
            z=view.matrices[layer], x=list(range(n)), y=list(range(n)), customdata=hover, coloraxis="coloraxis",
            hovertemplate="row: %{customdata[0]}<br>column: %{customdata[1]}<br>cosine = %{z:.3f}<extra></extra>",
        ), row=1, col=layer + 1)
        for sense, start, stop in view.blocks:
            fig.add_shape(type="rect", x0=start - 0.5, x1=stop - 0.5, y0=start - 0.5, y1=stop - 0.5,
                          line={"color": "white", "width": 2}, row=1, col=layer + 1)
    centres = [(start + stop - 1) / 2 for _, start, stop in view.blocks]  # one column label per sense block
    fig.update_xaxes(tickmode="array", tickvals=centres, ticktext=[escape(sense) for sense, _, _ in view.blocks],
                     tickangle=0, tickfont={"size": 11})
    fig.update_yaxes(tickmode="array", tickvals=list(range(n)), ticktext=[escape(t) for t in view.labels],
                     autorange="reversed", tickfont={"size": 10})
    fig.update_yaxes(showticklabels=False, row=1, col=2)
    fig.update_layout(
        coloraxis={"colorscale": "Viridis", "cmin": zmin, "cmax": 1.0, "colorbar": {"title": {"text": "cosine"}}},
        height=max(380, 100 + HEATMAP_ROW_PX * n), margin={"l": 10, "r": 10, "t": 40, "b": 40},
        font={"size": FONT_SIZE},
    )
    return fig


def similarity_summary(summary: pd.DataFrame) -> go.Figure:
    """Mean within-sense vs across-sense similarity per layer, and held-out sense-separation accuracy
    (``SimilarityView.summary``'s columns)."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=("mean cosine similarity", "held-out sense separation"),
                        horizontal_spacing=0.12)
    layers = [f"layer {j}" for j in summary["layer"]]
    fig.add_trace(go.Bar(x=layers, y=summary["within_sense"], name="within a sense", marker_color="#2ca02c"), 1, 1)
    fig.add_trace(go.Bar(x=layers, y=summary["across_senses"], name="across senses", marker_color="#ff7f0e"), 1, 1)
    fig.add_trace(go.Bar(x=layers, y=summary["heldout_accuracy"], name="accuracy", marker_color="#1f77b4",
                         text=[f"{v:.0%}" if np.isfinite(v) else "n/a" for v in summary["heldout_accuracy"]],
                         textposition="outside", showlegend=False), 1, 2)
    fig.update_yaxes(range=[0, 1.1], row=1, col=1)
    fig.update_yaxes(range=[0, 1.15], tickformat=".0%", row=1, col=2)
    fig.update_layout(barmode="group", height=300, margin={"l": 40, "r": 20, "t": 40, "b": 30},
                      legend={"orientation": "h", "y": -0.15}, font={"size": FONT_SIZE})
    return fig


def pca_scatter(view, three_d: bool = False) -> go.Figure:
    """Per-layer PCA scatter of a ``projection.ProjectionView``, coloured by sense, hover = sentence; explained
    variance in the titles. ``three_d``: a 3-D scene per layer (for a view with 3 components)."""
    layers = view.num_layers
    titles = []
    for row in view.variance.itertuples(index=False):
        if row.layer in view.collapsed_layers:
            titles.append(f"layer {row.layer}: one point (no variance)")
        else:
            parts = [f"PC{i + 1} {getattr(row, f'PC{i + 1}'):.0%}" for i in range(view.n_components)]
            titles.append(f"layer {row.layer}: " + ", ".join(parts))
    specs = [[{"type": "scene" if three_d else "xy"} for _ in range(layers)]]
    fig = make_subplots(rows=1, cols=layers, specs=specs, subplot_titles=titles, horizontal_spacing=0.04)
    colours = sense_colours(view.senses_in_order)
    for layer in range(layers):
        part = view.points[view.points["layer"] == layer]
        for sense in view.senses_in_order:
            group = part[part["sense"] == sense]
            hover = group[["sentence", "split"]].assign(sentence=[escape(t) for t in group["sentence"]])
            common = {"name": sense, "legendgroup": sense, "showlegend": layer == 0, "customdata": hover,
                      "hovertemplate": f"<b>{escape(sense)}</b> (%{{customdata[1]}})<br>"
                                       "%{customdata[0]}<extra></extra>",
                      "marker": {"color": colours[sense], "size": 5 if three_d else 8, "opacity": 0.85,
                                 "symbol": "diamond" if sense == "typed" else "circle"}}
            if three_d:
                fig.add_trace(go.Scatter3d(x=group["x"], y=group["y"], z=group["z"], mode="markers", **common),
                              row=1, col=layer + 1)
            else:
                fig.add_trace(go.Scatter(x=group["x"], y=group["y"], mode="markers", **common), row=1, col=layer + 1)
    if three_d:
        fig.update_scenes(xaxis_title_text="PC1", yaxis_title_text="PC2", zaxis_title_text="PC3", camera=PCA_3D_CAMERA)
    else:
        fig.update_xaxes(title_text="PC1", zeroline=False)
        fig.update_yaxes(title_text="PC2", zeroline=False)
    fig.update_layout(height=460 if three_d else 400, margin={"l": 40, "r": 20, "t": 50, "b": 40},
                      legend={"orientation": "h", "y": -0.15, "title": {"text": "sense"}}, font={"size": FONT_SIZE})
    return fig


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
