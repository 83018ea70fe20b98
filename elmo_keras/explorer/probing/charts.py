"""Plotly figures for the Probing page: held-out probe accuracy by layer, one panel per treebank biLM.

Built from ``probing.service``'s plain data and returned, never shown (the page calls ``st.plotly_chart``).
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from elmo_keras.explorer.charts import FONT_SIZE
from elmo_keras.explorer.probing.service import model_title
from elmo_keras.real_text.tasks import TASK_TITLES

MODEL_COLOURS = {"treebank-lstm": "#1f77b4", "treebank-transformer": "#ff7f0e"}
OTHER_COLOUR = "#2ca02c"
RANGE_COLOUR = "#9e9e9e"
MEAN_TRACE, RANGE_TRACE, MAJORITY_TRACE = "mean ± std over seeds", "min–max over seeds", "majority label"
ZOOM_PAD = 0.15  # share of the layers' accuracy span left above and below them when zoomed


def layer_ticks(num_layers: int) -> tuple[list[int], list[str]]:
    """Tick positions and labels of a layer axis: layer 0 is marked as the context-free char-CNN vector."""
    return list(range(num_layers)), ["0<br>char-CNN"] + [str(j) for j in range(1, num_layers)]


def layer_accuracies(summary: pd.DataFrame, task: str, zoom: bool = False) -> go.Figure:
    """One panel per biLM: the held-out accuracy of a linear probe on each layer, mean ± std over seeds (error bars)
    with the min–max over seeds as thin grey whiskers, and the majority label's accuracy as a dotted line.

    Args:
        summary: ``real_text.probe_findings.probe_summary`` of the runs (``model, task, layer, mean, std, min, max,
            majority_accuracy``).
        task: the task to draw (``"upos"``).
        zoom: bool, fit the y axis to the layers' min–max (``ZOOM_PAD`` around it), where a far lower majority line
            leaves the chart; False: the axis spans the majority line too. Defaults to False.

    Raises:
        ValueError: ``summary`` holds no row of ``task``.
    """
    rows = summary[summary["task"] == task]
    if rows.empty:
        raise ValueError(f"no probe runs of task {task!r}; the summary holds {sorted(set(summary['task']))}")
    models = list(dict.fromkeys(rows["model"]))
    figure = make_subplots(rows=1, cols=len(models), shared_yaxes=True, horizontal_spacing=0.06,
                           subplot_titles=[model_title(model) for model in models])
    for column, model in enumerate(models, start=1):
        part = rows[rows["model"] == model].sort_values("layer")
        layers, colour = part["layer"].to_numpy(), MODEL_COLOURS.get(model, OTHER_COLOUR)
        first = column == 1
        figure.add_trace(go.Scatter(
            x=layers, y=part["mean"], mode="markers", name=RANGE_TRACE,  # the marker: a whisker's glyph in the legend
            marker={"color": RANGE_COLOUR, "symbol": "line-ns-open", "size": 8},
            legendgroup=RANGE_TRACE, showlegend=first, hoverinfo="skip",
            error_y={"type": "data", "symmetric": False, "array": part["max"] - part["mean"],
                     "arrayminus": part["mean"] - part["min"], "color": RANGE_COLOUR, "thickness": 1, "width": 3}),
            row=1, col=column)
        figure.add_trace(go.Scatter(
            x=layers, y=part["mean"], mode="lines+markers", name=MEAN_TRACE, legendgroup=MEAN_TRACE,
            showlegend=first, line={"color": colour}, marker={"size": 8},
            error_y={"type": "data", "array": part["std"], "color": colour, "thickness": 2, "width": 6},
            customdata=part[["std", "min", "max"]].to_numpy(),
            hovertemplate="layer %{x}: %{y:.1%} ± %{customdata[0]:.1%} (min %{customdata[1]:.1%}, max "
                          "%{customdata[2]:.1%})<extra>" + model_title(model) + "</extra>"),
            row=1, col=column)
        majority = float(part["majority_accuracy"].iloc[0])
        figure.add_trace(go.Scatter(
            x=[layers.min() - 0.4, layers.max() + 0.4], y=[majority, majority], mode="lines", name=MAJORITY_TRACE,
            legendgroup=MAJORITY_TRACE, showlegend=first, line={"color": "black", "dash": "dot", "width": 1},
            hovertemplate=f"majority label: {majority:.1%}<extra></extra>"),
            row=1, col=column)
        ticks, labels = layer_ticks(len(layers))
        figure.update_xaxes(tickvals=ticks, ticktext=labels, title_text="layer", row=1, col=column)
    figure.update_yaxes(tickformat=".0%", title_text="held-out accuracy", row=1, col=1)
    if zoom:
        low, high = float(rows["min"].min()), float(rows["max"].max())
        pad = ZOOM_PAD * max(high - low, 0.01)
        figure.update_yaxes(range=[low - pad, high + pad])
    figure.update_layout(title={"text": f"{TASK_TITLES.get(task, task)}: held-out probe accuracy by layer",
                                "font": {"size": 13}},
                         height=330, margin={"l": 50, "r": 10, "t": 60, "b": 40}, font={"size": FONT_SIZE},
                         legend={"orientation": "h", "y": -0.25})
    return figure
