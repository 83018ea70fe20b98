"""Plotly figure for the PCA page: one scatter per layer, 2-D or 3-D, coloured by sense."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from elmo_keras.explorer.chart_text import escape
from elmo_keras.explorer.charts import FONT_SIZE, sense_colours

# 3-D PCA: a camera a little further out than Plotly's default, aimed right of the centre, so that each narrow
# scene keeps its PC3 title (drawn left of the box) inside its own canvas
PCA_3D_CAMERA = {"eye": {"x": 1.8, "y": 1.8, "z": 1.0}, "center": {"x": 0.16, "y": -0.16, "z": -0.05}}


def pca_scatter(view, three_d: bool = False) -> go.Figure:
    """Per-layer PCA scatter of a ``projection.ProjectionView``, coloured by sense, hover = sentence; explained
    variance in the titles. ``three_d``: a 3-D scene per layer (for a view with 3 components)."""
    layers = view.num_layers
    titles = []
    for row in view.variance.itertuples(index=False):
        if row.layer in view.collapsed_layers:
            titles.append(f"layer {row.layer}: one point (no variance)")
        else:
            parts = [f"PC{i + 1} {getattr(row, f'PC{i + 1}'):.1%}" for i in range(view.n_components)]
            titles.append(f"layer {row.layer}: " + ", ".join(parts))
    specs = [[{"type": "scene" if three_d else "xy"} for _ in range(layers)]]
    fig = make_subplots(rows=1, cols=layers, specs=specs, subplot_titles=titles, horizontal_spacing=0.04)
    colours = sense_colours(view.senses_in_order)
    for layer in range(layers):
        part = view.points[view.points["layer"] == layer]
        for sense in view.senses_in_order:
            group = part[part["sense"] == sense]
            hover = group[["sentence", "split"]].assign(sentence=[escape(t) for t in group["sentence"]])
            common = {"name": sense, "legendgroup": sense, "showlegend": layer == 0, "customdata": hover,
                      "hovertemplate": f"<b>{escape(sense)}</b> (%{{customdata[1]}})<br>"
                                       "%{customdata[0]}<extra></extra>",
                      "marker": {"color": colours[sense], "size": 5 if three_d else 8, "opacity": 0.85,
                                 "symbol": "diamond" if sense == "typed" else "circle"}}
            if three_d:
                fig.add_trace(go.Scatter3d(x=group["x"], y=group["y"], z=group["z"], mode="markers", **common),
                              row=1, col=layer + 1)
            else:
                fig.add_trace(go.Scatter(x=group["x"], y=group["y"], mode="markers", **common), row=1, col=layer + 1)
    if three_d:
        fig.update_scenes(xaxis_title_text="PC1", yaxis_title_text="PC2", zaxis_title_text="PC3", camera=PCA_3D_CAMERA)
    else:
        fig.update_xaxes(title_text="PC1", zeroline=False)
        fig.update_yaxes(title_text="PC2", zeroline=False)
    fig.update_layout(height=460 if three_d else 400, margin={"l": 40, "r": 20, "t": 50, "b": 40},
                      legend={"orientation": "h", "y": -0.15, "title": {"text": "sense"}}, font={"size": FONT_SIZE})
    return fig
