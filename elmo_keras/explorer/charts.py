"""Plotly helpers shared by the pages' figures (sense colours, log-axis ticks, the font size) and the biLM
training curves of the Corpus & training page; each page's own figures live in ``explorer/<page>/charts.py``.

Figures are built from the services' plain data and returned, never shown: the pages hand them to
``st.plotly_chart``. Requires ``plotly`` (the ``app`` extra); nothing else in ``elmo_keras`` imports this module.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

DIRECTION_COLOURS = {"forward": "#1f77b4", "backward": "#d62728"}
SENSE_PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"]
SPECIAL_SENSE_COLOURS = {"unlabelled": "#9e9e9e", "typed": "#000000"}
LOG_TICKS = [m * 10**k for k in range(6) for m in (1, 2, 5)]  # 1, 2, 5, 10, 20, …, 500000
LOG_AXIS_PAD = 0.08  # share of the data's span (in decades) added on each side of a log axis
LOG_AXIS_MIN_PAD = 0.01  # decades (about 2%): a flat curve still gets a range to put ticks in
FONT_SIZE = 11


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


