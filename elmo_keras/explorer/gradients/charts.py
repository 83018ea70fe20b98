"""Plotly figures for the Gradients page, built from ``analysis.gradient_study.results.GradientStudy``'s tables and
returned, never shown (the page calls ``st.plotly_chart``)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

FONT_SIZE = 11
HEIGHT = 340
CLIPPING_HEIGHT = 440  # room for its ten legend entries below the plot
MODEL_COLOURS = {"vanilla RNN": "#d62728", "LSTM": "#1f77b4"}
STAGE_DASH = {"initialisation": "dot", "trained": "solid", "exploding (init)": "dashdot"}
STATE_NAMES = {"h": "‖∂L/∂h_t‖", "c": "‖∂L/∂c_t‖"}


def _layout(figure: go.Figure, title: str, y_title: str, log_y: bool = True, height: int = HEIGHT) -> go.Figure:
    # the legend hangs from below the x axis title (anchored at its top): more rows push it down, not up into it
    figure.update_layout(title=title, height=height, margin={"t": 50, "l": 10, "r": 10, "b": 10},
                         font={"size": FONT_SIZE}, legend={"orientation": "h", "y": -0.25, "yanchor": "top"})
    figure.update_xaxes(title="distance to the loss (T − 1 − t)")
    figure.update_yaxes(title=y_title, type="log" if log_y else "linear", exponentformat="power")
    return figure


def norms_by_distance(curves: pd.DataFrame, stages: tuple[str, ...], title: str) -> go.Figure:
    """``‖∂L/∂h_t‖`` (solid markers) and the LSTM's ``‖∂L/∂c_t‖`` by distance, one line per model, stage and
    state, log y axis.

    Args:
        curves: ``GradientStudy.curves`` (model, stage, state, distance, norm).
        stages: the stages to draw (``"initialisation"``, ``"trained"``, ``"exploding (init)"``).
    """
    figure = go.Figure()
    for (model, stage, state), rows in curves[curves["stage"].isin(stages)].groupby(["model", "stage", "state"],
                                                                                     sort=False):
        figure.add_trace(go.Scatter(
            x=rows["distance"], y=rows["norm"], mode="lines", name=f"{model} {STATE_NAMES[state]}, {stage}",
            line={"color": MODEL_COLOURS[model], "dash": STAGE_DASH[stage], "width": 3 if state == "c" else 2},
            opacity=0.6 if state == "c" else 1.0,
            hovertemplate=f"{model} {state}, {stage}<br>distance %{{x}}<br>norm %{{y:.3g}}<extra></extra>"))
    return _layout(figure, title, "gradient norm (log)")


def clipping_by_distance(clipped: pd.DataFrame, theta: float) -> go.Figure:
    """Each model's ``‖∂L/∂h_t‖`` before (thin) and after (thick) clipping the whole gradient at ``theta``.

    Args:
        clipped: ``GradientStudy.clipped`` (model, stage, distance, norm, clipped).
        theta: the threshold, in the title.
    """
    figure = go.Figure()
    for (model, stage), rows in clipped.groupby(["model", "stage"], sort=False):
        style = {"color": MODEL_COLOURS[model], "dash": STAGE_DASH[stage]}
        figure.add_trace(go.Scatter(x=rows["distance"], y=rows["norm"], mode="lines", name=f"{model}, {stage}",
                                    line={**style, "width": 1}, opacity=0.45, legendgroup=f"{model}{stage}"))
        figure.add_trace(go.Scatter(x=rows["distance"], y=rows["clipped"], mode="lines+markers",
                                    name=f"{model}, {stage}, clipped", marker={"size": 4},
                                    line={**style, "width": 2.5}, legendgroup=f"{model}{stage}"))
    return _layout(figure, f"Before (thin) and after (thick) clipping by norm at θ = {theta:g}",
                   "‖∂L/∂h_t‖ (log)", height=CLIPPING_HEIGHT)


def forget_gates(forget: pd.DataFrame) -> go.Figure:
    """The LSTM's per-unit forget gate (mean over sequences and steps), units sorted, one line per stage."""
    figure = go.Figure()
    for stage, rows in forget.groupby("stage", sort=False):
        figure.add_trace(go.Scatter(x=rows["unit"], y=rows["forget"], mode="lines+markers", name=stage,
                                    line={"color": MODEL_COLOURS["LSTM"], "dash": STAGE_DASH.get(stage, "solid")}))
    figure = _layout(figure, "LSTM forget gates f_t (∂c_t/∂c_{t−1} = diag(f_t))", "mean f_t", log_y=False)
    figure.update_xaxes(title="unit (sorted by its mean forget gate)")
    figure.update_yaxes(range=[0, 1])
    return figure


def training_curves(training: pd.DataFrame) -> go.Figure:
    """Training accuracy per epoch, one line per model."""
    figure = go.Figure()
    for model, rows in training.groupby("model", sort=False):
        figure.add_trace(go.Scatter(x=rows["epoch"], y=rows["accuracy"], mode="lines+markers", name=model,
                                    line={"color": MODEL_COLOURS[model]}))
    figure = _layout(figure, "Remembering the first symbol: training accuracy", "accuracy", log_y=False)
    figure.update_xaxes(title="epoch")
    figure.update_yaxes(range=[0, 1.05])
    return figure
