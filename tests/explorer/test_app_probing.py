"""AppTest: the Probing page, and the real-English sections of the Layer weights and Tagging pages, with fake result
files (``tests.support.real_text_fixtures``) and with none.

The frame runs on a fresh models directory, where it installs the shipped models (nothing is trained): the Layer
weights page reads the toy biLM's shipped report, the Tagging page its shipped views of the example sentences.
"""

from __future__ import annotations

import json

import pytest

from elmo_keras.explorer.probing import service as probing
from elmo_keras.explorer.tagging import treebank_curve
from tests.support.explorer_fixtures import assert_no_exception, open_app, plotly_charts
from tests.support.real_text_fixtures import packaged_results_from, write_fake_results

PRODUCE = "python tools/run_real_text_experiments.py"


@pytest.fixture()
def results_dir(tmp_path, monkeypatch):
    """A fresh models directory, and the result files read from an (empty) folder of this test's own."""
    monkeypatch.setenv("ELMO_KERAS_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("HOME", str(tmp_path))
    directory = tmp_path / "results"
    directory.mkdir()
    for module in (probing, treebank_curve):
        monkeypatch.setattr(module, "packaged_results", packaged_results_from(directory))
    return directory


def _y_range(chart):
    """The y axis range a drawn Plotly chart sets (None: automatic)."""
    return json.loads(chart.proto.spec)["layout"]["yaxis"].get("range")


def _texts(at) -> str:
    return "\n".join(element.value for kind in ("markdown", "caption", "info") for element in at.get(kind))


def test_the_probing_page_shows_perplexities_layer_charts_findings_and_provenance(results_dir):
    write_fake_results(results_dir)
    at = open_app("pages/probing.py")
    assert at.title[0].value == "Probing"
    assert [chart.key for chart in plotly_charts(at)] == [f"probing_layers_{task}"
                                                          for task in ("upos", "xpos", "deprel", "sense")]
    perplexities = at.dataframe[0].value
    assert list(perplexities["language model"][:3]) == ["the treebank biLM", "Kneser–Ney trigram", "add-one unigram"]
    text = _texts(at)
    assert "UPOS (LSTM): layer 1 is best" in text and "STORED FINDING" not in text
    assert "Why word sense comes from the toy corpus" in text and "(72 examples)" in text
    assert "Silveira et al. 2014" in text and "§5.3" in text
    assert "3 seeds (0, 1, 2)" in text and "commit abcdef0" in text
    assert len(at.dataframe) == 3  # perplexities, layer preferences, every layer (in the expander)
    assert not any(_y_range(chart) for chart in plotly_charts(at))
    at.toggle(key="probing_zoom").set_value(True).run()
    assert_no_exception(at)
    assert all(_y_range(chart) for chart in plotly_charts(at))


def test_without_results_each_section_says_how_to_produce_them(results_dir):
    at = open_app("pages/probing.py")
    assert len(at.info) == 1 and PRODUCE in at.info[0].value and not plotly_charts(at)

    at.switch_page("pages/tagging.py").run()
    assert_no_exception(at)
    assert any(PRODUCE in info.value and "real_text_tagging.json" in info.value for info in at.info)
    assert "tagging_treebank_curve" not in [chart.key for chart in plotly_charts(at)]

    at.switch_page("pages/layer_weights.py").run()
    assert_no_exception(at)
    assert any(PRODUCE in info.value and "real_text_probes.json" in info.value for info in at.info)
    assert "real_english_weights" not in [chart.key for chart in plotly_charts(at)]
    assert any(header.value == "On real English (UD English EWT)" for header in at.header)


def test_the_layer_weights_and_tagging_pages_show_the_treebank_results(results_dir):
    write_fake_results(results_dir)
    at = open_app("pages/layer_weights.py")
    assert "real_english_weights" in [chart.key for chart in plotly_charts(at)]
    text = _texts(at)
    assert "LSTM: the syntactic tasks' learned mixes sit lower than the semantic task's, beyond the seed spread" in text
    assert "transformer: the syntactic tasks' learned mixes do not separate" in text
    table = at.dataframe[-1].value
    assert {"treebank-lstm", "treebank-transformer"} <= set(table["biLM"]) and "toy (toy corpus, seed 0)" in set(
        table["biLM"])

    at.switch_page("pages/tagging.py").run()
    assert_no_exception(at)
    assert "tagging_treebank_curve" in [chart.key for chart in plotly_charts(at)]
    assert "softmax head, + treebank-lstm vectors vs words only" in _texts(at)
    assert any(list(frame.value.columns) == ["head", "input", "training sentences", "test accuracy", "seeds"]
               for frame in at.dataframe)
    assert "Published context" in _texts(at) and "UDPipe 2 + multilingual BERT" in str(
        [frame.value for frame in at.dataframe])  # PUBLISHED_UPOS_CONTEXT, read in its sources
