"""AppTest: the Classification page with one-epoch classifiers (the page's plumbing; the experiments measure
accuracy)."""

from __future__ import annotations

import base64
import json
import shutil

import numpy as np

from elmo_keras.explorer.model_store import CLASSIFIERS_DIR_NAME
from tests.explorer.test_explorer_classification import classification_models_dir  # noqa: F401  (a fixture)
from tests.support.explorer_fixtures import TINY_NAME, assert_no_exception, open_app, plotly_charts

PAGE = "pages/classification.py"


def _chart(at, key) -> dict:
    return json.loads(next(chart for chart in plotly_charts(at) if chart.key == key).proto.spec)


def _values(array) -> np.ndarray:
    """A Plotly data array, plain or binary-encoded (``{"dtype", "bdata"}``)."""
    if isinstance(array, dict):
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"])
    return np.asarray(array, dtype=float)


def _filled(at) -> int:
    """How many values of the worked example's feature map are shown."""
    return sum(bool(text) for text in _chart(at, "classification_feature_map")["data"][0]["text"])


def _page(models_dir, monkeypatch, tmp_path):
    monkeypatch.setenv("ELMO_KERAS_MODELS_DIR", str(models_dir))
    monkeypatch.setenv("HOME", str(tmp_path))
    return open_app(PAGE)


def test_sliding_the_filter_fills_the_feature_map_and_a_typed_sentence_gets_probabilities(
        classification_models_dir, monkeypatch, tmp_path):  # noqa: F811
    at = _page(classification_models_dir, monkeypatch, tmp_path)
    assert at.title[0].value == "Text classification"
    assert [chart.key for chart in plotly_charts(at)] == [
        "classification_feature_map", "classification_heights", "classification_probabilities",
        "classification_filters"]
    assert _filled(at) == 1 and any("7 − 2 + 1 = 6" in m.value for m in at.markdown)
    at.slider(key="classification_position").set_value(2).run()
    assert_no_exception(at)
    assert _filled(at) == 2 and any(m.value == "**Sum** = 0.53" for m in at.markdown)
    at.slider(key="classification_position").set_value(6).run()
    assert "**0.53**" in at.success[0].value and "like this" in at.success[0].value

    text_input = next(t for t in at.text_input if t.key.startswith("classification_text"))
    text_input.set_value("the plot is not good at all .").run()
    assert_no_exception(at)
    bars = _chart(at, "classification_probabilities")["data"]
    assert [trace["name"] for trace in bars] == ["negative", "positive"]
    np.testing.assert_allclose(sum(_values(trace["y"]) for trace in bars), np.ones(3), atol=1e-4)  # per model
    predictions = next(frame.value for frame in at.dataframe if "prediction" in frame.value.columns)
    assert len(predictions) == 3 and set(predictions["prediction"]) <= {"negative", "positive"}
    assert any("`at`, `all`" in caption.value for caption in at.caption)  # the words never seen in training
    trained = at.dataframe[-2].value  # the trained CNN's first filter on the first bigram: window ⊙ filter
    assert list(trained.index) == ["1. the", "2. plot"] and trained.shape[1] == 8


def test_an_empty_sentence_is_explained(classification_models_dir, monkeypatch, tmp_path):  # noqa: F811
    at = _page(classification_models_dir, monkeypatch, tmp_path)
    text_input = next(t for t in at.text_input if t.key.startswith("classification_text"))
    text_input.set_value("   ").run()
    assert_no_exception(at)
    assert at.error[0].value == "Type a sentence to classify."


def test_broken_saved_classifiers_are_explained_with_a_way_out(classification_models_dir, monkeypatch, tmp_path):  # noqa: F811
    models = tmp_path / "models"
    for name in (TINY_NAME, CLASSIFIERS_DIR_NAME):
        shutil.copytree(classification_models_dir / name, models / name)
    model_file = models / CLASSIFIERS_DIR_NAME / "rnn-last" / "model.keras"
    model_file.write_bytes(model_file.read_bytes()[:100])
    at = _page(models, monkeypatch, tmp_path)
    assert "The saved classifiers cannot be loaded" in at.error[0].value and str(model_file) in at.error[0].value
    assert at.button(key="classification_retrain").label == "Delete them and start again"
    assert len(plotly_charts(at)) == 2  # the worked example still shows
