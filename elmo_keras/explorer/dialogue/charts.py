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
# the experiment's runs in order (plain VHRED grey), one colour each; the highlighted (shipped) run: red and thick
RUN_COLOURS = ["#9e9e9e", "#1f77b4", "#ff7f0e", "#9467bd", "#2ca02c", "#8c564b", "#e377c2", "#17becf", "#bcbd22"]
HIGHLIGHT_COLOUR, RUN_WIDTH, HIGHLIGHT_WIDTH = "#d62728", 1.5, 3.5
WEIGHT_TICKS = [0.0, 0.25, 0.5, 0.75, 1.0]  # the KL weight runs from 0 to 1


def _layout(figure: go.Figure, title: str, y_title: str) -> go.Figure:
    figure.update_layout(title=title, height=HEIGHT, margin={"t": 50, "l": 10, "r": 10, "b": 10},
                         font={"size": FONT_SIZE}, legend={"orientation": "h", "y": -0.25, "yanchor": "top"},
                         yaxis_title=y_title)  # the left axis only: a right axis keeps its own title
    figure.update_xaxes(title="epoch")
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
    figure.update_layout(yaxis2={"overlaying": "y", "side": "right", "range": [0, 1.05], "title": "KL weight",
                                 "tickmode": "array", "tickvals": WEIGHT_TICKS, "showgrid": False})
    return _layout(figure, "This VHRED's training (epoch means)", "nats per token")


def experiment_kl_chart(curves: pd.DataFrame, highlight: str | None = None) -> go.Figure:
    """The experiment's KL per token per epoch, one line per run (mean over seeds, ± std error bars), each run in
    its own colour (``RUN_COLOURS`` in run order), the ``highlight`` run red and thick.

    Args:
        curves: ``explorer.dialogue.experiment_kl_curves``'s frame (epoch, run, kl_per_token, std).
        highlight: str, the run to stand out (the shipped VHRED). Defaults to None.
    """
    figure = go.Figure()
    others = iter(RUN_COLOURS * (1 + curves["run"].nunique() // len(RUN_COLOURS)))
    for run, rows in curves.groupby("run", sort=False):
        colour, width = (HIGHLIGHT_COLOUR, HIGHLIGHT_WIDTH) if run == highlight else (next(others), RUN_WIDTH)
        figure.add_trace(go.Scatter(
            x=rows["epoch"], y=rows["kl_per_token"], name=escape(run), mode="lines+markers",
            line={"color": colour, "width": width}, marker={"size": 7 if run == highlight else 5},
            error_y={"type": "data", "array": rows["std"], "visible": True, "thickness": 1},
        ))
    return _layout(figure, "KL per token while training: plain VHRED and each remedy", "KL(q‖p) per token (nats)")
