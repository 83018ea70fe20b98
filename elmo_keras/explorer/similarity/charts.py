"""Plotly figures for the Context similarity page: the per-layer similarity heatmaps and the within/across-sense
summary. Built from the services' plain data and returned, never shown (``st.plotly_chart`` shows them)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from elmo_keras.explorer.chart_text import escape
from elmo_keras.explorer.charts import FONT_SIZE

HEATMAP_ROW_PX = 17
HEATMAP_MAX_ZMIN = 0.8


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
