"""Plotly figure for the LSTM vs transformer page: per layer, each model's held-out sense separation (with its range
over re-drawn held-out splits) and its within-sense minus across-sense similarity. Built from
``service.ContextualizerComparison.summary`` and returned, never shown."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from elmo_keras.explorer.charts import FONT_SIZE

MODEL_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd")


def side_by_side(summary: pd.DataFrame) -> go.Figure:
    """Two panels, one line per model over its layers: held-out sense separation (error bars: lowest and highest
    over the re-drawn splits) and mean within-sense minus across-sense cosine similarity."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1,
                        subplot_titles=("held-out sense separation", "within-sense − across-sense similarity"))
    for colour, (name, rows) in zip(MODEL_COLOURS * 4, summary.groupby("model", sort=False)):
        layers = [f"layer {j}" for j in rows["layer"]]
        fig.add_trace(go.Scatter(
            x=layers, y=rows["heldout_accuracy"], name=name, mode="lines+markers", legendgroup=name,
            line={"color": colour},
            error_y={"type": "data", "symmetric": False, "array": rows["resplit_high"] - rows["heldout_accuracy"],
                     "arrayminus": rows["heldout_accuracy"] - rows["resplit_low"]},
            hovertemplate=f"{name}, %{{x}}: %{{y:.1%}}<extra></extra>"), 1, 1)
        fig.add_trace(go.Scatter(
            x=layers, y=rows["gap"], name=name, mode="lines+markers", legendgroup=name, showlegend=False,
            line={"color": colour}, hovertemplate=f"{name}, %{{x}}: %{{y:+.3f}}<extra></extra>"), 1, 2)
    fig.update_yaxes(range=[0, 1.05], tickformat=".0%", row=1, col=1)
    fig.update_layout(height=340, margin={"l": 40, "r": 20, "t": 40, "b": 30}, legend={"orientation": "h", "y": -0.15},
                      font={"size": FONT_SIZE})
    return fig
