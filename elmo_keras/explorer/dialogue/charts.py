"""Plotly figures for the Dialogue page: the VHRED's KL curves (its own training, and the experiment's runs: plain
VHRED, each remedy for KL collapse and the shipped combination). Built from ``explorer.dialogue``'s plain data
and returned, never shown."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from elmo_keras.explorer.chart_text import escape

FONT_SIZE = 11
HEIGHT = 320
KL_COLOUR, WEIGHT_COLOUR, RECONSTRUCTION_COLOUR = "#d62728", "#7f7f7f", "#1f77b4"
RUN_COLOURS = ["#9e9e9e", "#1f77b4", "#ff7f0e", "#9467bd", "#2ca02c"]


def _layout(figure: go.Figure, title: str, y_title: str) -> go.Figure:
    figure.update_layout(title=title, height=HEIGHT, margin={"t": 50, "l": 10, "r": 10, "b": 10},
                         font={"size": FONT_SIZE}, legend={"orientation": "h", "y": -0.25})
    figure.update_xaxes(title="epoch")
    figure.update_yaxes(title=y_title)
    return figure


def training_kl_chart(history: pd.DataFrame) -> go.Figure:
    """The page's VHRED per epoch: KL per token and reconstruction per token (left axis), KL weight (right axis).

    Args:
        history: ``explorer.dialogue.kl_history``'s frame (epoch, kl_per_token, kl_weight,
            reconstruction_per_token).
    """
    figure = go.Figure()
    figure.add_trace(go.Scatter(x=history["epoch"], y=history["kl_per_token"], name="KL(q‖p) per token",
                                mode="lines+markers", line={"color": KL_COLOUR}))
    figure.add_trace(go.Scatter(x=history["epoch"], y=history["reconstruction_per_token"],
                                name="reconstruction per token", mode="lines", line={"color": RECONSTRUCTION_COLOUR}))
    figure.add_trace(go.Scatter(x=history["epoch"], y=history["kl_weight"], name="KL weight (right axis)",
                                mode="lines", line={"color": WEIGHT_COLOUR, "dash": "dot"}, yaxis="y2"))
    figure.update_layout(yaxis2={"overlaying": "y", "side": "right", "range": [0, 1.05], "title": "KL weight"})
    return _layout(figure, "This VHRED's training (epoch means)", "nats per token")


def experiment_kl_chart(curves: pd.DataFrame) -> go.Figure:
    """The experiment's KL per token per epoch, one line per run (mean over seeds, ± std band).

    Args:
        curves: ``explorer.dialogue.experiment_kl_curves``'s frame (epoch, run, kl_per_token, std).
    """
    figure = go.Figure()
    for colour, (run, rows) in zip(RUN_COLOURS * 4, curves.groupby("run", sort=False)):
        figure.add_trace(go.Scatter(
            x=rows["epoch"], y=rows["kl_per_token"], name=escape(run), mode="lines+markers", line={"color": colour},
            error_y={"type": "data", "array": rows["std"], "visible": True, "thickness": 1},
        ))
    return _layout(figure, "KL per token while training: plain VHRED and each remedy", "KL(q‖p) per token (nats)")
