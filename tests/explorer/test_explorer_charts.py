"""Plotly figures: built from the services' data, with the traces, ranges and labels the pages rely on."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from elmo_keras.decoding import beam_search, sample
from elmo_keras.decoding.worked_examples import nucleus_example, same_branch_beam
from elmo_keras.explorer import charts
from elmo_keras.explorer.chart_text import escape
from elmo_keras.explorer.decoding import charts as decoding_charts
from elmo_keras.explorer.decoding.search_views import step_distribution, tree_layout
from elmo_keras.explorer.dialogue import charts as dialogue_charts
from elmo_keras.explorer.gradients import charts as gradients_charts
from elmo_keras.explorer.layer_weights import charts as layer_weights_charts
from elmo_keras.explorer.projection import charts as projection_charts
from elmo_keras.explorer.projection.view import ProjectionView
from elmo_keras.explorer.similarity import charts as similarity_charts
from elmo_keras.explorer.similarity.service import SimilarityView
from elmo_keras.explorer.tagging import charts as tagging_charts
from elmo_keras.explorer.training import history_frame


def similarity_view() -> SimilarityView:
    matrices = np.stack([np.ones((3, 3)), np.eye(3) * 0.5 + 0.5, np.eye(3) * 0.6 + 0.4])
    summary = pd.DataFrame({"layer": [0, 1, 2], "within_sense": [1.0, 0.8, 0.7], "across_senses": [1.0, 0.6, 0.4],
                            "gap": [0.0, 0.2, 0.3], "heldout_accuracy": [0.0, 0.5, np.nan]})
    return SimilarityView("bank", matrices, ["money", "money", "river"], ["money · a", "money · b", "river · <c>"],
                          ["a", "b", "c </S>"], [("money", 0, 2), ("river", 2, 3)], summary, 3, 3, [0], [], [])


def test_escape_keeps_tokens_literal():
    assert escape("<S> a & b </S>") == "&lt;S&gt; a &amp; b &lt;/S&gt;"


def test_similarity_heatmaps_one_per_layer_with_sense_blocks_and_a_shared_scale():
    fig = similarity_charts.similarity_heatmaps(similarity_view())
    heatmaps = [t for t in fig.data if t.type == "heatmap"]
    assert len(heatmaps) == 3 and all(t.coloraxis == "coloraxis" for t in heatmaps)
    assert fig.layout.coloraxis.cmax == 1.0 and fig.layout.coloraxis.cmin == pytest.approx(0.4)
    assert len(fig.layout.shapes) == 2 * 3  # one box per sense per layer
    assert fig.layout.yaxis.ticktext[2] == "river · &lt;c&gt;" and "&lt;/S&gt;" in heatmaps[0].customdata[2][2][0]


def test_similarity_summary_marks_missing_accuracy():
    fig = similarity_charts.similarity_summary(similarity_view().summary)
    assert [t.name for t in fig.data] == ["within a sense", "across senses", "accuracy"]
    assert list(fig.data[2].text) == ["0%", "50%", "n/a"]


def test_pca_scatter_titles_carry_explained_variance():
    points = pd.DataFrame({"layer": [0, 0, 1, 1], "x": [0, 0, 1, -1], "y": [0, 0, 0.5, -0.5], "z": 0.0,
                           "sense": ["money", "river"] * 2, "split": "train", "sentence": ["s1", "s2"] * 2})
    variance = pd.DataFrame({"layer": [0, 1], "PC1": [0.0, 0.7], "PC2": [0.0, 0.2], "total": [0.0, 0.9]})
    view = ProjectionView("bank", 2, points, variance, ["money", "river"], [0], [])
    fig = projection_charts.pca_scatter(view)
    titles = [a.text for a in fig.layout.annotations]
    assert titles == ["layer 0: one point (no variance)", "layer 1: PC1 70.0%, PC2 20.0%"]  # the table's decimals
    assert len(fig.data) == 4 and [t.showlegend for t in fig.data] == [True, True, False, False]
    three_d = projection_charts.pca_scatter(view, three_d=True)
    assert three_d.data[0].type == "scatter3d"
    for scene in (three_d.layout.scene, three_d.layout.scene2):
        assert (scene.xaxis.title.text, scene.yaxis.title.text, scene.zaxis.title.text) == ("PC1", "PC2", "PC3")


def test_training_curves_and_layer_weight_charts():
    history = history_frame([{"epoch": 1, "forward_perplexity": 50.0, "backward_perplexity": 60.0}])
    fig = charts.training_curves(history, total_epochs=10)
    assert len(fig.data) == 4 and fig.layout.xaxis.range == (0.5, 10.5) and fig.layout.yaxis2.type == "log"
    assert fig.layout.xaxis.dtick == 1 and fig.layout.xaxis.tick0 == 1  # no "epoch 1.5"
    weights = layer_weights_charts.mix_weights([0.2, 0.3, 0.5], 1.5, "POS", reference=[0.1, 0.1, 0.8])
    assert "γ = 1.50" in weights.layout.title.text and len(weights.data) == 2
    accuracy = layer_weights_charts.task_accuracies([0.5, 0.6, 0.7], 0.75, 0.3, "POS", current=0.4)
    assert list(accuracy.data[0].x) == ["probe layer 0", "probe layer 1", "probe layer 2", "learned mix", "slider mix"]


@pytest.mark.parametrize("perplexities", [
    [23.0, 23.2, 23.05, 23.1],  # one or two epochs: no 1-2-5 tick falls in the range
    [23.0, 23.0],
    [55.0, 95.0],
    [1.01, 1.02],
    [30000.0, 3000.0],
    [900.0, 40.0, 12.0],
])
def test_the_perplexity_axis_always_shows_at_least_two_ticks(perplexities):
    logs = [{"epoch": i + 1, "forward_perplexity": p, "backward_perplexity": p} for i, p in enumerate(perplexities)]
    axis = charts.training_curves(history_frame(logs)).layout.yaxis2
    low, high = 10 ** axis.range[0], 10 ** axis.range[1]
    assert low <= min(perplexities) and max(perplexities) <= high
    assert len(axis.tickvals) >= 2 and all(low <= t <= high for t in axis.tickvals)
    assert len(axis.ticktext) == len(axis.tickvals) and len(set(axis.ticktext)) == len(axis.ticktext)


def test_the_perplexity_axis_keeps_the_1_2_5_ticks_over_a_wide_range():
    assert charts.log_axis_ticks([900.0, 40.0])[1] == [50, 100, 200, 500, 1000]  # the padding reaches 1000
    assert charts.log_axis_ticks([]) == (None, charts.LOG_TICKS)


def test_beam_tree_draws_every_status_and_escapes_tokens():
    ex = same_branch_beam()
    _, trace = beam_search(ex.next_log_probs, ex.bos_id, ex.eos_id, ex.max_len, beam_size=2, return_trace=True)
    fig = decoding_charts.beam_tree(tree_layout(trace, ex.vocabulary, pruned_per_parent=1), "beam")
    edge_traces = {t.name: t for t in fig.data if t.mode == "lines"}
    assert set(edge_traces) == {"kept", "finished", "pruned"}
    labels = [label for t in fig.data if t.mode == "markers+text" for label in t.text]
    assert "&lt;S&gt;" in labels and "&lt;/S&gt;" in labels
    assert "(8 lower-ranked pruned extensions not drawn)" in fig.layout.title.text  # 2 at step 1, 6 at step 2


def test_step_distribution_draws_the_cut_and_p():
    ex = nucleus_example()
    _, trace = sample(ex.next_log_probs, ex.bos_id, ex.eos_id, 1, top_p=0.9, seed=0, return_trace=True)
    fig = decoding_charts.step_distribution(step_distribution(trace, 0, 0, ex.vocabulary), "nucleus", top_p=0.9)
    bars = fig.data[0]
    assert list(bars.marker.color[:5]) == ["#1f77b4"] * 4 + ["#d0d0d0"]
    assert any(shape.x0 == 3.5 for shape in fig.layout.shapes)  # the cut after the fourth word
    assert any(shape.y0 == 0.9 for shape in fig.layout.shapes)  # the p line
    assert list(fig.data[1].x[:2]) == [0.4, 1.4] and list(bars.x[:2]) == [0, 1]  # the total at each bar's right edge
    assert "&lt;S&gt;" in fig.layout.title.text


def test_the_vhred_training_chart_keeps_the_kl_weight_on_its_own_right_axis():
    history = pd.DataFrame({"epoch": [1, 2], "kl_per_token": [0.2, 0.4], "kl_weight": [1.0, 1.0],
                            "reconstruction_per_token": [4.0, 1.0]})
    fig = dialogue_charts.training_kl_chart(history)
    assert fig.layout.yaxis.title.text == "nats per token" and fig.layout.yaxis2.title.text == "KL weight"
    assert fig.layout.yaxis2.range == (0, 1.05) and 1.0 in fig.layout.yaxis2.tickvals  # a weight of 1 reads 1


def test_every_experiment_run_has_its_own_colour_and_the_shipped_one_stands_out():
    runs = [f"run {i}" for i in range(6)]
    curves = pd.DataFrame([{"epoch": 1, "run": run, "kl_per_token": 0.1, "std": 0.0} for run in runs])
    fig = dialogue_charts.experiment_kl_chart(curves, highlight="run 5")
    assert len({trace.line.color for trace in fig.data}) == len(runs)
    assert fig.data[5].line.width > max(trace.line.width for trace in fig.data[:5])


def test_experiment_bars_label_each_bar_above_its_error_bar():
    table = pd.DataFrame({"condition": ["softmax", "crf"], "invalid_sentences mean": [9.6, 0.0],
                          "invalid_sentences std": [3.362, 0.0]})
    fig = tagging_charts.experiment_bars(table, "invalid_sentences", "invalid", decimals=1)
    labels = fig.data[1]
    assert list(labels.text) == ["9.6 ± 3.4", "0.0 ± 0.0"] and list(labels.y) == pytest.approx([12.962, 0.0])


def test_the_clipping_legend_hangs_below_the_x_axis_title():
    clipped = pd.DataFrame({"model": "LSTM", "stage": "trained", "distance": [0, 1], "norm": [1.0, 0.5],
                            "clipped": [0.5, 0.25]})
    fig = gradients_charts.clipping_by_distance(clipped, 1.0)
    assert fig.layout.legend.yanchor == "top" and fig.layout.legend.y < 0
