"""The real-English sections of the Layer weights page (``layer_weights.real_english``) and of the Tagging page
(``tagging.treebank_curve``), with their charts, on fake result files (``tests.support.real_text_fixtures``)."""

from __future__ import annotations

import numpy as np
import pytest

from elmo_keras.analysis.layer_probes import MixHead
from elmo_keras.explorer.layer_weights import charts as layer_weight_charts
from elmo_keras.explorer.layer_weights.real_english import real_english_mixes, toy_panel
from elmo_keras.explorer.layer_weights.service import TaskReport
from elmo_keras.explorer.tagging import charts as tagging_charts
from elmo_keras.explorer.tagging import treebank_curve
from elmo_keras.explorer.tagging.treebank_curve import (
    HEAD_TITLES,
    INPUT_TITLES,
    PUBLISHED_COLUMNS,
    PUBLISHED_UPOS_CONTEXT,
    published_context,
    tagging_results,
    treebank_curve_view,
)
from elmo_keras.real_text.probe_findings import mix_findings
from tests.support.real_text_fixtures import (
    fake_probe_results,
    fake_tagging_results,
    packaged_results_from,
    write_fake_results,
)


def toy_report(name: str, title: str, kind: str, scalar_parameters) -> TaskReport:
    """A toy task's report with the given mix (the rest is not read by the section)."""
    return TaskReport(name=name, title=title, kind=kind,
                      head=MixHead(np.asarray(scalar_parameters, dtype=np.float64), 1.25, np.zeros((4, 2)),
                                   np.zeros(2)),
                      heldout_accuracy=0.5, probe_accuracies=np.zeros(3), majority_accuracy=0.2,
                      layer_logits=np.zeros((3, 2, 2)), test_labels=np.zeros(2, dtype=np.int64), num_train=10,
                      num_classes=2)


@pytest.fixture(scope="module")
def toy_reports():
    return [toy_report("pos", "POS tags", "syntactic", [0.0, 1.0, 0.0]),
            toy_report("sense", "word sense", "semantic", [0.0, 0.0, 1.0])]


def test_the_mixes_of_the_treebank_runs_sit_beside_the_toy_run(toy_reports):
    results = fake_probe_results()
    mixes = real_english_mixes(results, toy_reports, "toy", 3)
    panel = toy_panel("toy", 3)
    assert list(dict.fromkeys(mixes.weights["panel"])) == [panel, "treebank-lstm", "treebank-transformer"]
    toy = mixes.weights[mixes.weights["panel"] == panel]
    np.testing.assert_allclose(toy["weight_mean"], np.concatenate([report.head.weights for report in toy_reports]))
    assert toy["weight_std"].isna().all() and set(toy["task"]) == {"POS tags (toy)", "word sense (toy)"}
    lstm_upos = mixes.weights[(mixes.weights["panel"] == "treebank-lstm") & (mixes.weights["task"] == "UPOS")]
    weights = np.array([run["mix_weights"] for run in results["runs"]
                        if (run["model"], run["task"]) == ("treebank-lstm", "upos")])
    np.testing.assert_allclose(lstm_upos["weight_mean"], weights.mean(axis=0))
    np.testing.assert_allclose(lstm_upos["weight_std"], weights.std(axis=0))
    assert mixes.findings == mix_findings(results["runs"])
    assert "3 seeds (0, 1, 2)" in mixes.provenance


def test_the_mix_table_gives_every_layer_the_weighted_mean_layer_and_gamma(toy_reports):
    table = real_english_mixes(fake_probe_results(), toy_reports, "toy", 0).table
    assert list(table.columns) == ["biLM", "task", "layer 0", "layer 1", "layer 2", "layer 3", "layer 4",
                                   "weighted mean layer", "γ", "seeds"]
    rows = table.set_index(["biLM", "task"])
    toy_pos = rows.loc[(toy_panel("toy", 0), "POS tags (toy)")]
    assert toy_pos["layer 3"] == "" and toy_pos["γ"] == "1.25" and toy_pos["seeds"] == 1
    assert toy_pos["weighted mean layer"] == f"{np.dot([0, 1, 2], toy_reports[0].head.weights):.2f}"
    assert rows.loc[("treebank-lstm", "UPOS"), "weighted mean layer"] == "0.98 ± 0.02"
    assert rows.loc[("treebank-lstm", "UPOS"), "γ"] == "1.60 ± 0.08"
    assert rows.loc[("treebank-lstm", "UPOS"), "layer 4"] == ""
    assert rows.loc[("treebank-transformer", "word sense (toy corpus)"), "layer 4"].count("±") == 1


def test_without_a_toy_run_or_without_runs_the_section_still_builds(toy_reports):
    only_treebank = real_english_mixes(fake_probe_results(), [], "toy", 0)
    assert "toy" not in " ".join(only_treebank.weights["panel"]) and len(only_treebank.table) == 8
    only_toy = real_english_mixes({**fake_probe_results(), "runs": []}, toy_reports, "toy", 0)
    assert len(only_toy.table) == 2 and only_toy.findings == []


def test_the_weights_chart_has_a_panel_per_biLM_and_error_bars_only_over_seeds(toy_reports):
    weights = real_english_mixes(fake_probe_results(), toy_reports, "toy", 0).weights
    figure = layer_weight_charts.mix_weights_by_task(weights)
    assert [annotation.text for annotation in figure.layout.annotations] == [toy_panel("toy", 0), "treebank-lstm",
                                                                             "treebank-transformer"]
    assert [trace.name for trace in figure.data] == ["POS tags (toy)", "word sense (toy)"] + [
        "UPOS", "Penn XPOS", "dependency relation", "word sense (toy corpus)"] * 2
    assert [trace.error_y.visible for trace in figure.data] == [False] * 2 + [True] * 8
    assert [trace.showlegend for trace in figure.data] == [True] * 6 + [False] * 4
    colours = {trace.name: trace.marker.color for trace in figure.data}
    assert colours["word sense (toy corpus)"] != colours["UPOS"]  # the semantic task stands apart
    assert figure.layout.barmode == "group"


def test_the_learning_curve_table_is_ordered_and_reads_mean_and_std():
    view = treebank_curve_view(fake_tagging_results())
    assert list(view.table["head"].unique()) == ["softmax", "crf"]
    assert list(view.table["input"].unique()) == ["words only", "treebank-lstm", "treebank-transformer"]
    assert list(view.table["sentences"][:3]) == [125, 1_254, 12_544]
    assert view.display.iloc[0].to_dict() == {"head": "softmax head", "input": "words only",
                                              "training sentences": "125 (1%)", "test accuracy": "70.3 ± 0.2%",
                                              "seeds": 3}
    assert view.findings[0].startswith("softmax head, + treebank-lstm vectors vs words only: 1%: +10.0")
    assert "STORED FINDING" not in view.findings
    assert "mean ± std over 3 seeds" in view.caption and "50 minutes on Fake CPU" in view.caption
    assert "1%: 40, 10%: 6, 100%: 2" in view.caption
    with pytest.raises(ValueError, match="holds no runs"):
        treebank_curve_view({**fake_tagging_results(), "runs": []})


def test_the_learning_curve_chart_has_a_line_per_input_and_a_panel_per_head():
    table = treebank_curve_view(fake_tagging_results()).table
    figure = tagging_charts.learning_curve(table, INPUT_TITLES, HEAD_TITLES)
    assert [trace.name for trace in figure.data] == ["words only", "+ treebank-lstm", "+ treebank-transformer"] * 2
    assert [annotation.text for annotation in figure.layout.annotations] == ["softmax head", "CRF head"]
    assert figure.layout.xaxis.type == "log" and figure.layout.xaxis2.type == "log"
    assert list(figure.layout.xaxis.ticktext) == ["125", "1,254", "12,544"]
    rows = table[(table["head"] == "crf") & (table["input"] == "treebank-lstm")]
    np.testing.assert_allclose(figure.data[4].y, rows["mean"])
    np.testing.assert_allclose(figure.data[4].error_y.array, rows["std"])
    assert list(figure.data[4].x) == [125, 1_254, 12_544]


def test_published_context_is_a_table_of_verified_entries_or_nothing():
    assert published_context([]) is None
    entry = {"system": "A tagger", "score": 0.97, "source": "Someone et al. 2020", "note": "large pretraining"}
    assert published_context([entry]).to_dict("records") == [entry]
    for entry in PUBLISHED_UPOS_CONTEXT:  # what the lead fills in: every field, a score that is an accuracy
        assert set(entry) == set(PUBLISHED_COLUMNS) and 0 < entry["score"] <= 1 and entry["source"]


def test_the_curve_is_read_from_the_package_through_one_function(tmp_path, monkeypatch):
    monkeypatch.setattr(treebank_curve, "packaged_results", packaged_results_from(tmp_path))
    assert tagging_results() is None
    write_fake_results(tmp_path)
    assert tagging_results() == fake_tagging_results()


def test_the_packaged_curve_if_produced_makes_the_section():
    results = tagging_results()
    if results is None:
        pytest.skip("elmo_keras/data/real_text_tagging.json is not produced yet "
                    "(python tools/run_real_text_experiments.py)")
    view = treebank_curve_view(results)
    assert view.findings and len(view.display) == len(view.table)
    tagging_charts.learning_curve(view.table, INPUT_TITLES, HEAD_TITLES)
