"""Plotly figures for the Tagging page: marginals, the CRF transition matrix, the experiments' results, and the UPOS
learning curve on the treebank.

Built from ``explorer.tagging``'s plain data and returned, never shown (the page calls ``st.plotly_chart``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from elmo_keras.explorer.chart_text import escape

FONT_SIZE = 11
LABEL_FONT_SIZE = 13  # the experiment bars' mean ± std labels
CELL_PX = 26
CONDITION_COLOURS = ["#9e9e9e", "#1f77b4"]  # conditions come in pairs: the baseline, then the method
INPUT_COLOURS = {"words only": "#9e9e9e", "treebank-lstm": "#1f77b4", "treebank-transformer": "#ff7f0e"}


def marginals_heatmap(marginals: pd.DataFrame) -> go.Figure:
    """P(tag of token t = label), from forward-backward: tokens down, labels across, each row sums to 1."""
    values = marginals.to_numpy()
    figure = go.Figure(go.Heatmap(
        z=values, x=[escape(c) for c in marginals.columns], y=[escape(t) for t in marginals.index],
        zmin=0.0, zmax=1.0, colorscale="Blues", colorbar={"title": "P"},
        text=np.where(values >= 0.005, np.round(values, 2).astype(str), ""), texttemplate="%{text}",
        hovertemplate="token %{y}<br>tag %{x}<br>P = %{z:.3f}<extra></extra>",
    ))
    figure.update_yaxes(autorange="reversed", title="token")
    figure.update_xaxes(title="tag", side="top")
    figure.update_layout(height=120 + CELL_PX * len(values), margin={"t": 60, "l": 10, "r": 10, "b": 10},
                         font={"size": FONT_SIZE})
    return figure


def transitions_heatmap(transitions: pd.DataFrame, allowed: np.ndarray) -> go.Figure:
    """The learned transition scores [from, to]; disallowed cells are blank and marked ✕ (probability 0).

    Args:
        transitions: `(labels, labels)` scores, labels as index and columns (``TaggingView.transitions``).
        allowed: bool `(labels, labels)`.
    """
    labels = [escape(label) for label in transitions.columns]
    values = transitions.to_numpy(dtype=float)
    text = np.where(allowed, np.round(np.nan_to_num(values), 1).astype(str), "✕")
    figure = go.Figure(go.Heatmap(
        z=values, x=labels, y=labels, colorscale="RdBu", zmid=0.0, colorbar={"title": "score"},
        text=text, texttemplate="%{text}", hoverongaps=False,
        hovertemplate="from %{y}<br>to %{x}<br>score %{z:.2f}<extra></extra>",
    ))
    figure.update_yaxes(autorange="reversed", title="from")
    figure.update_xaxes(title="to", side="top")
    size = 140 + CELL_PX * len(labels)
    figure.update_layout(height=size, margin={"t": 60, "l": 10, "r": 10, "b": 10}, font={"size": FONT_SIZE},
                         plot_bgcolor="#f0f0f0")
    return figure


def experiment_bars(table: pd.DataFrame, score: str, title: str, axis_title: str | None = None,
                    decimals: int = 3) -> go.Figure:
    """One bar per condition: the mean of ``score`` over seeds with ± one standard deviation (conditions in
    baseline/method pairs, coloured grey/blue), each labelled ``mean ± std`` above its error bar.

    Args:
        table: one of ``tagging.experiment_tables``' tables (``condition``, ``<score> mean``, ``<score> std``).
        score: str, the score column's name.
        title: str, the chart's title.
        axis_title: str, the y axis title. Defaults to None (``score``).
        decimals: int, the labels' decimals (1 for a count). Defaults to 3.
    """
    colours = [CONDITION_COLOURS[i % len(CONDITION_COLOURS)] for i in range(len(table))]  # baseline, method, …
    means, stds = table[f"{score} mean"], table[f"{score} std"].fillna(0.0)
    conditions = [escape(c) for c in table["condition"]]
    figure = go.Figure(go.Bar(
        x=conditions, y=means, error_y={"type": "data", "array": stds, "visible": True},
        marker_color=colours, hovertemplate=f"%{{x}}: %{{y:.{decimals}f}}<extra></extra>",
    ))
    # the labels as text above each error bar's top, where no whisker crosses them
    figure.add_trace(go.Scatter(
        x=conditions, y=means + stds, mode="text", text=[f"{m:.{decimals}f} ± {s:.{decimals}f}"
                                                         for m, s in zip(means, stds)],
        textposition="top center", textfont={"size": LABEL_FONT_SIZE}, hoverinfo="skip",
    ))
    top = float((means + stds).max())
    figure.update_yaxes(title=axis_title or score, range=[0, top * 1.25 if top > 0 else 1])
    figure.update_layout(title=title, height=320, margin={"t": 50, "l": 10, "r": 10, "b": 10},
                         font={"size": FONT_SIZE}, showlegend=False)
    return figure


def learning_curve(table: pd.DataFrame, input_titles: dict | None = None, head_titles: dict | None = None) -> go.Figure:
    """Test accuracy against training sentences (log axis), one line per input with ± one std over seeds as error
    bars, one panel per head.

    Args:
        table: ``explorer.tagging.treebank_curve.ordered_table`` (``input, head, sentences, mean, std``).
        input_titles, head_titles: legend and panel names (the raw names where missing). Defaults to None.
    """
    input_titles, head_titles = input_titles or {}, head_titles or {}
    heads = list(dict.fromkeys(table["head"]))
    figure = make_subplots(rows=1, cols=len(heads), shared_yaxes=True, horizontal_spacing=0.06,
                           subplot_titles=[head_titles.get(head, head) for head in heads])
    shown = set()
    for column, head in enumerate(heads, start=1):
        for name, rows in table[table["head"] == head].groupby("input", sort=False):
            rows = rows.sort_values("sentences")
            title = input_titles.get(name, name)
            figure.add_trace(go.Scatter(
                x=rows["sentences"], y=rows["mean"], mode="lines+markers", name=title, legendgroup=name,
                showlegend=name not in shown, line={"color": INPUT_COLOURS.get(name, "#2ca02c")},
                error_y={"type": "data", "array": rows["std"], "visible": True},
                hovertemplate=f"{escape(title)}<br>%{{x:,}} sentences: %{{y:.1%}}<extra></extra>"),
                row=1, col=column)
            shown.add(name)
        sizes = sorted(set(table["sentences"]))
        figure.update_xaxes(type="log", tickvals=sizes, ticktext=[f"{size:,}" for size in sizes],
                            title_text="training sentences", row=1, col=column)
    figure.update_yaxes(tickformat=".0%", title_text="test accuracy", row=1, col=1)
    figure.update_layout(height=340, margin={"t": 50, "l": 50, "r": 10, "b": 40}, font={"size": FONT_SIZE},
                         legend={"orientation": "h", "y": -0.25})
    return figure
