"""Plotly figures for the decoding page: the beam-search tree and one step's distribution with its cut."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from elmo_keras.explorer.chart_text import escape

STATUS_STYLE = {  # status → (line colour, width, dash, marker colour)
    "kept": ("#1f77b4", 2.5, "solid", "#1f77b4"),
    "finished": ("#2ca02c", 2.5, "solid", "#2ca02c"),
    "pruned": ("#c7c7c7", 1.0, "dot", "#bdbdbd"),
}
NODE_ROW_PX = 22
BAR_GAP = 0.2  # the step distribution's gap between bars, as a share of a token's slot


def beam_tree(layout, title: str = "beam search") -> go.Figure:
    """The ``search_views.TreeLayout`` of a trace: nodes at (step, row); edges coloured by fate: kept (blue),
    finished with </S> (green), pruned (grey)."""
    fig = go.Figure()
    for status, (colour, width, dash, _) in STATUS_STYLE.items():
        part = layout.edges[layout.edges["status"] == status]
        xs, ys = [], []
        for edge in part.itertuples(index=False):
            xs += [edge.x0, edge.x1, None]
            ys += [edge.y0, edge.y1, None]
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line={"color": colour, "width": width, "dash": dash},
                                 hoverinfo="skip", name=status, legendgroup=status))
    for status, (_, _, _, colour) in STATUS_STYLE.items():
        nodes = layout.nodes[layout.nodes["status"] == status]
        fig.add_trace(go.Scatter(
            x=nodes["step"], y=nodes["y"], mode="markers+text", text=[escape(t) for t in nodes["label"]],
            textposition="middle right" if status == "pruned" else "top center",  # kept labels clear of the edges
            textfont={"size": 11, "color": "#444" if status == "pruned" else "black"},
            marker={"color": colour, "size": 9 if status != "pruned" else 6},
            customdata=nodes[["text", "token_prob", "log_prob", "rank"]].assign(text=nodes["text"].map(escape)),
            hovertemplate="%{customdata[0]}<br>P(token) = %{customdata[1]:.3f}"
                          "<br>log P(sequence) = %{customdata[2]:.3f}<br>rank %{customdata[3]}<extra></extra>",
            name=status, legendgroup=status, showlegend=False,
        ))
    rows = max(1, len(layout.nodes))
    span = float(layout.nodes["y"].max() - layout.nodes["y"].min()) if rows > 1 else 1.0
    hidden = sum(layout.hidden_pruned.values())
    subtitle = f" ({hidden} lower-ranked pruned extensions not drawn)" if hidden else ""
    fig.update_layout(
        title={"text": escape(title) + subtitle, "font": {"size": 13}},
        xaxis={"title": {"text": "step"}, "dtick": 1, "range": [-0.3, float(layout.nodes["step"].max()) + 0.8]},
        yaxis={"visible": False, "range": [layout.nodes["y"].min() - 0.8, layout.nodes["y"].max() + 0.8]},
        height=min(900, max(280, 60 + NODE_ROW_PX * (span + 2))), margin={"l": 20, "r": 20, "t": 40, "b": 40},
        legend={"orientation": "h", "y": 1.02, "x": 1, "xanchor": "right", "yanchor": "bottom"},
        plot_bgcolor="white",
    )
    return fig


def step_distribution(distribution, title: str, top_k: int | None = None, top_p: float | None = None) -> go.Figure:
    """Bars of the next-token probabilities (after temperature) coloured by the cut, with the running total.

    The cut is drawn as a dashed vertical line after the last kept token; for nucleus sampling the running
    total and the line at ``top_p`` show where it reaches ``p``. Tokens sit at x = 0, 1, … (their labels as
    ticks); the running total through a token is marked at its bar's right edge, clear of the bar's label.

    Args:
        distribution: a ``search_views.StepDistribution``.
        title: str, the strategy's name.
        top_k, top_p: the cut's setting, for the labels (None: not that kind of cut). Default to None.
    """
    table = distribution.table
    labels = [escape(t) for t in table["token_label"]]
    positions = list(range(len(table)))
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    colours = ["#1f77b4" if kept else "#d0d0d0" for kept in table["kept"]]
    fig.add_trace(go.Bar(x=positions, y=table["prob"], marker_color=colours, name="P(token)",
                         text=[f"{p:.2f}" if p >= 0.005 else "" for p in table["prob"]], textposition="outside",
                         customdata=list(zip(labels, table["filtered_prob"])),
                         hovertemplate="%{customdata[0]}: P = %{y:.3f}, after the cut %{customdata[1]:.3f}"
                                       "<extra></extra>"),
                  secondary_y=False)
    right_edge = (1 - BAR_GAP) / 2
    fig.add_trace(go.Scatter(x=[p + right_edge for p in positions], y=table["cumulative"], mode="lines+markers",
                             name="running total", line={"color": "#ff7f0e"}, customdata=labels,
                             hovertemplate="running total through %{customdata}: %{y:.3f}<extra></extra>"),
                  secondary_y=True)
    cut = min(distribution.kept, len(table))
    if cut < len(table):
        fig.add_vline(x=cut - 0.5, line_dash="dash", line_color="black")
        label = f"top-k cut (k = {top_k})" if top_k else "nucleus cut"
        fig.add_annotation(x=cut - 0.5, y=1.08, yref="paper", text=label, showarrow=False, xanchor="left")
    if top_p is not None:
        fig.add_hline(y=top_p, line_dash="dot", line_color="#ff7f0e", secondary_y=True,
                      annotation_text=f"p = {top_p:g}", annotation_position="top left")
    chosen = f", drawn: '{escape(distribution.chosen)}'" if distribution.chosen else ""
    prefix = escape(distribution.prefix or "<S>")
    fig.update_layout(title={"text": f"{escape(title)} after '{prefix}'{chosen}", "font": {"size": 13}},
                      height=320, margin={"l": 40, "r": 40, "t": 60, "b": 40}, showlegend=False, bargap=BAR_GAP)
    fig.update_xaxes(tickmode="array", tickvals=positions, ticktext=labels, range=[-0.6, len(table) - 0.4])
    fig.update_yaxes(title_text="P(token)", range=[0, 1.1], secondary_y=False)
    fig.update_yaxes(title_text="running total", range=[0, 1.1], secondary_y=True, showgrid=False)
    return fig
