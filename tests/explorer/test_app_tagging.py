"""AppTest: the Tagging page with 1-epoch taggers (the page's plumbing; the experiments test accuracy)."""

from __future__ import annotations

from tests.support.explorer_fixtures import assert_no_exception, open_app, plotly_charts

PAGE = "pages/tagging.py"


def _page(tagging_models_dir, monkeypatch, tmp_path):
    monkeypatch.setenv("ELMO_KERAS_MODELS_DIR", str(tagging_models_dir))
    monkeypatch.setenv("HOME", str(tmp_path))
    return open_app(PAGE)


def test_a_typed_sentence_gets_pos_frames_bioes_paths_marginals_and_transitions(tagging_models_dir, monkeypatch,
                                                                                 tmp_path):
    at = _page(tagging_models_dir, monkeypatch, tmp_path)
    assert at.title[0].value == "Tagging"
    keys = [chart.key for chart in plotly_charts(at)]
    assert keys[:2] == ["tagging_marginals", "tagging_transitions"]
    assert [key for key in keys if key.startswith("tagging_experiment_")] == [
        "tagging_experiment_multitask", "tagging_experiment_taglm", "tagging_experiment_crf"]
    assert any(caption.value.startswith("Made with elmo_keras") for caption in at.caption)  # what made the numbers
    at.text_input(key=at.text_input[0].key).set_value("George Washington visited the bank in Paris .").run()
    assert_no_exception(at)
    tags = at.dataframe[0].value  # rows POS and frame, one column per token
    assert list(tags.index) == ["POS", "frame"] and tags.shape[1] == 8
    ner = at.dataframe[1].value
    assert list(ner.index) == ["viterbi", "argmax", "invalid step"] and ner.shape[1] == 8
    assert set(ner.loc["invalid step"]) <= {"", "✕"}
    at.slider(key="tagging_top_k").set_value(3).run()
    paths = at.dataframe[2].value
    assert len(paths) == 3 and list(paths["rank"]) == [1, 2, 3]
    assert (paths["probability"].diff().dropna() <= 0).all() and paths["probability"].sum() <= 1 + 1e-6


def test_an_empty_sentence_is_explained(tagging_models_dir, monkeypatch, tmp_path):
    at = _page(tagging_models_dir, monkeypatch, tmp_path)
    at.text_input(key=at.text_input[0].key).set_value("   ").run()
    assert_no_exception(at)
    assert at.error[0].value == "Type a sentence to tag."
