"""The Probing page's service and charts on a fake ``real_text_probes.json`` (``tests.support.real_text_fixtures``),
and the packaged file where it has been produced."""

from __future__ import annotations

import numpy as np
import pytest

from elmo_keras.explorer.probing import charts
from elmo_keras.explorer.probing import service as probing
from elmo_keras.explorer.probing.service import PROBES_FILE, probe_results, probing_view
from elmo_keras.real_text.probe_findings import probe_findings, probe_summary
from elmo_keras.real_text.probing import TASK_TITLES
from tests.support.real_text_fixtures import fake_probe_results, packaged_results_from, write_fake_results


@pytest.fixture(scope="module")
def results():
    return fake_probe_results()


@pytest.fixture(scope="module")
def view(results):
    return probing_view(results)


def test_the_perplexity_table_has_each_biLM_beside_both_baselines(view):
    table = view.perplexities
    assert list(table["language model"]) == ["the treebank biLM", "Kneser–Ney trigram", "add-one unigram"] * 2
    assert list(table["biLM"]) == ["LSTM"] * 3 + ["transformer"] * 3
    assert table["forward"].tolist() == [98.7, 154.9, 409.3, 110.2, 154.9, 409.3]
    assert np.isnan(table["backward"].iloc[2]) and table["backward"].iloc[0] == pytest.approx(100.7)


def test_tables_and_findings_are_computed_from_the_runs_not_the_stored_text(results, view):
    assert view.findings == probe_findings(results["runs"]) and "STORED FINDING" not in view.findings
    assert view.tasks == list(TASK_TITLES)
    assert view.summary.equals(probe_summary(results["runs"]))
    rows = view.preferences.set_index(["biLM", "task"])
    assert rows.loc[("LSTM", "UPOS"), "best layer"] == 1
    assert rows.loc[("LSTM", "UPOS"), "beyond the seed spread"] == "yes"
    assert rows.loc[("transformer", "UPOS"), "beyond the seed spread"] == "no"
    assert rows.loc[("LSTM", "UPOS"), "learned mix"] == pytest.approx(
        np.mean([run["mix_accuracy"] for run in results["runs"]
                 if (run["model"], run["task"]) == ("treebank-lstm", "upos")]))


def test_the_stored_findings_stand_in_only_where_the_file_holds_no_runs(results):
    view = probing_view({**results, "runs": []})
    assert view.findings == ["STORED FINDING"] and view.tasks == [] and view.preferences.empty


def test_the_semantic_note_and_the_provenance_line_say_what_made_the_numbers(view):
    assert "(72 examples)" in view.semantic_note and "no sense annotation" in view.semantic_note
    assert view.provenance.startswith("3 seeds (0, 1, 2); the experiments took 40 minutes on Fake CPU.")
    assert "2,000 sentences drawn from the first 4,000" in view.provenance and "commit abcdef0" in view.provenance
    assert "python tools/run_real_text_experiments.py" in view.provenance


def test_the_user_facing_text_cites_its_sources_and_never_names_internal_notes():
    descriptions = [description for _, _, description in probing.LANGUAGE_MODELS]
    text = " ".join([*probing.REFERENCES, probing.SEMANTIC_TASK_NOTE, *descriptions, probing.missing_results_message()])
    for needed in ("Peters et al. (2018a)", "§5.3", "Dissecting Contextual Word Embeddings", "Silveira et al. 2014",
                   "CC BY-SA 4.0"):
        assert needed in text
    assert "seed note" not in text.lower() and "seed document" not in text.lower()


def test_the_layer_chart_has_a_panel_per_biLM_with_std_bars_ranges_and_the_majority_line(view):
    figure = charts.layer_accuracies(view.summary, "upos")
    assert [trace.name for trace in figure.data] == [charts.RANGE_TRACE, charts.MEAN_TRACE, charts.MAJORITY_TRACE] * 2
    assert [annotation.text for annotation in figure.layout.annotations] == ["LSTM", "transformer"]
    rows = view.summary[(view.summary["task"] == "upos") & (view.summary["model"] == "treebank-transformer")]
    mean, spread, majority = figure.data[4], figure.data[3], figure.data[5]
    np.testing.assert_allclose(mean.y, rows["mean"])
    np.testing.assert_allclose(mean.error_y.array, rows["std"])
    np.testing.assert_allclose(np.asarray(spread.error_y.array) + rows["mean"].to_numpy(), rows["max"])
    np.testing.assert_allclose(rows["mean"].to_numpy() - np.asarray(spread.error_y.arrayminus), rows["min"])
    assert set(majority.y) == {0.17} and list(mean.x) == [0, 1, 2, 3, 4]
    assert figure.layout.xaxis2.ticktext[0] == "0<br>char-CNN" and len(figure.layout.xaxis2.ticktext) == 5
    assert [trace.showlegend for trace in figure.data] == [True] * 3 + [False] * 3
    assert figure.layout.yaxis.range is None  # the axis spans the majority line


def test_zoomed_the_axis_fits_the_layers_and_the_majority_line_leaves_it(view):
    figure = charts.layer_accuracies(view.summary, "upos", zoom=True)
    rows = view.summary[view.summary["task"] == "upos"]
    low, high = figure.layout.yaxis.range
    assert low < rows["min"].min() and high > rows["max"].max() and low > 0.17
    assert figure.layout.yaxis2.range == figure.layout.yaxis.range
    with pytest.raises(ValueError, match="no probe runs of task 'pos'"):
        charts.layer_accuracies(view.summary, "pos")


def test_the_results_are_read_from_the_package_through_one_function(tmp_path, monkeypatch):
    monkeypatch.setattr(probing, "packaged_results", packaged_results_from(tmp_path))
    assert probe_results() is None
    write_fake_results(tmp_path)
    assert probe_results() == fake_probe_results()


def test_the_packaged_results_if_produced_make_the_page():
    results = probe_results()
    if results is None:
        pytest.skip(f"elmo_keras/data/{PROBES_FILE} is not produced yet (python tools/run_real_text_experiments.py)")
    view = probing_view(results)
    assert view.tasks and view.findings and len(view.perplexities) == 3 * len(results["perplexities"])
    for task in view.tasks:
        charts.layer_accuracies(view.summary, task)
