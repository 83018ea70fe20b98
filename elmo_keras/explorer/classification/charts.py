"""Plotly figures for the Classification page: the feature map filling in, the feature maps of several heights,
class probabilities per model and the CNN's strongest filters.

Built from ``service`` / ``views``' plain data and returned, never shown (the page
calls ``st.plotly_chart``).
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from elmo_keras.explorer.chart_text import escape

FONT_SIZE = 11
CURRENT_COLOUR, DONE_COLOUR, MAX_COLOUR = "#ff7f0e", "#1f77b4", "#2ca02c"
CLASS_COLOURS = {"negative": "#d62728", "positive": "#2ca02c"}
OTHER_CLASS_COLOUR = "#7f7f7f"


def feature_map_bars(feature_map: pd.DataFrame, position: int, pooled: tuple | None) -> go.Figure:
    """The feature map as bars, one per window: filled up to ``position`` (the current one highlighted), the
    max-pooling pick marked once the map is full.

    Args:
        feature_map: ``window`` and ``value`` (NaN for windows not reached yet), as ``SlidingStep.feature_map``.
        position: int, the current window.
        pooled: ``(max, position)`` or None.
    """
    colours = [MAX_COLOUR if pooled is not None and i == pooled[1] else CURRENT_COLOUR if i == position
               else DONE_COLOUR for i in range(len(feature_map))]
    labels = [f"{i + 1}: {escape(w)}" for i, w in enumerate(feature_map["window"])]
    values = feature_map["value"]
    figure = go.Figure(go.Bar(
        x=labels, y=values.fillna(0.0), marker_color=colours,
        text=[("" if pd.isna(v) else f"{v:.2f}") for v in values], textposition="outside",
        hovertemplate="%{x}<br>value %{text}<extra></extra>",
    ))
    figure.update_layout(height=280, margin={"t": 30, "l": 10, "r": 10, "b": 10}, font={"size": FONT_SIZE},
                         yaxis_title="value", showlegend=False,
                         title="feature map" + (f" — max pool: {pooled[0]:.2f}" if pooled is not None else ""))
    return figure


def heights_bars(heights: pd.DataFrame) -> go.Figure:
    """One panel per filter height: its feature map (``heights_view``), the max-pooling pick in green."""
    panels = list(dict.fromkeys(heights["height"]))
    figure = make_subplots(rows=1, cols=len(panels), subplot_titles=[
        f"height {h}: {(heights['height'] == h).sum()} values" for h in panels])
    for column, height in enumerate(panels, start=1):
        rows = heights[heights["height"] == height]
        figure.add_trace(go.Bar(
            x=[f"{p + 1}: {escape(w)}" for p, w in zip(rows["position"], rows["window"])], y=rows["value"],
            marker_color=[MAX_COLOUR if m else DONE_COLOUR for m in rows["is_max"]],
            text=[f"{v:.2f}" for v in rows["value"]], textposition="outside",
            hovertemplate="%{x}<br>value %{y:.2f}<extra></extra>", showlegend=False,
        ), row=1, col=column)
    figure.update_layout(height=320, margin={"t": 40, "l": 10, "r": 10, "b": 10}, font={"size": FONT_SIZE})
    return figure


def probability_bars(probabilities: pd.DataFrame, titles: dict | None = None) -> go.Figure:
    """Class probabilities, one group of bars per model (``ClassificationView.probabilities``)."""
    titles = titles or {}
    figure = go.Figure()
    for name, rows in probabilities.groupby("class", sort=False):
        figure.add_trace(go.Bar(
            x=[escape(titles.get(m, m)) for m in rows["model"]], y=rows["probability"], name=escape(name),
            marker_color=CLASS_COLOURS.get(name, OTHER_CLASS_COLOUR),
            text=[f"{p:.2f}" for p in rows["probability"]], textposition="outside",
            hovertemplate="%{x}<br>P(" + escape(name) + ") = %{y:.3f}<extra></extra>",
        ))
    figure.update_layout(barmode="group", height=300, yaxis={"range": [0, 1.15], "title": "probability"},
                         margin={"t": 30, "l": 10, "r": 10, "b": 10}, font={"size": FONT_SIZE})
    return figure


def filter_bars(top_filters: pd.DataFrame) -> go.Figure:
    """The CNN's strongest filters: activation (max over the sentence) per filter, labelled with the n-gram it
    fired on (``ClassificationView.top_filters``)."""
    labels = [f"{escape(f)}: “{escape(n)}”" for f, n in zip(top_filters["filter"], top_filters["ngram"])]
    figure = go.Figure(go.Bar(
        x=top_filters["activation"], y=labels, orientation="h", marker_color=DONE_COLOUR,
        text=[f"{a:.2f}" for a in top_filters["activation"]], textposition="outside",
        hovertemplate="%{y}<br>max activation %{x:.3f}<extra></extra>",
    ))
    figure.update_yaxes(autorange="reversed")
    figure.update_layout(height=80 + 26 * len(top_filters), margin={"t": 20, "l": 10, "r": 30, "b": 10},
                         font={"size": FONT_SIZE}, xaxis_title="max activation (after ReLU)")
    return figure
