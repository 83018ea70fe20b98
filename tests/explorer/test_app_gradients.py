"""AppTest: the Gradients page with tiny models (the page's plumbing; ``test_gradient_flow`` tests the claims)."""

from __future__ import annotations

import shutil

import pytest

from elmo_keras.explorer.gradients import service as gradients
from elmo_keras.explorer.gradients.quiz import OPTIONS
from elmo_keras.explorer.gradients.service import MODEL_FILES, GradientSettings, gradients_dir, train_gradient_models
from tests.support.explorer_fixtures import assert_no_exception, open_app, plotly_charts

PAGE = "pages/gradients.py"
TINY = GradientSettings(length=10, units=8, count=64, epochs=1, batch_size=32)
CHART_KEYS = ["gradients_training", "gradients_initial", "gradients_trained", "gradients_clipping", "gradients_forget"]


@pytest.fixture(scope="session")
def gradient_models_dir(tiny_models_dir):
    """``tiny_models_dir`` with the page's two models (1 epoch at length 10)."""
    if not gradients.has_gradient_models(tiny_models_dir):
        train_gradient_models(tiny_models_dir, settings=TINY)
    return tiny_models_dir


def test_quiz_answer_is_explained_and_theta_changes_the_clipping(gradient_models_dir, app_env):
    at = open_app(PAGE)
    assert at.title[0].value == "Vanishing gradients"
    assert [chart.key for chart in plotly_charts(at)] == CHART_KEYS
    assert not at.success and not at.info
    at.radio(key="gradients_quiz").set_value(OPTIONS[1]).run()
    assert_no_exception(at)
    assert "The answer is **B**" in at.success[0].value
    before = at.dataframe[0].value
    at.select_slider(key="gradients_theta").set_value(0.0001).run()
    assert_no_exception(at)
    after = at.dataframe[0].value
    assert (after["‖g‖ clipped"] <= before["‖g‖ clipped"] + 1e-12).all()
    assert after["‖g‖ clipped"].max() == pytest.approx(0.0001, rel=1e-5)
    assert "The answer is **B**" in at.success[0].value  # the explanation follows the new θ


def test_damaged_models_are_named_and_retrained_on_request(gradient_models_dir, tmp_path, monkeypatch):
    from elmo_keras.explorer import shipped_models

    models_dir = tmp_path / "models"
    shutil.copytree(gradient_models_dir, models_dir)
    (gradients_dir(models_dir) / MODEL_FILES["vanilla RNN"]).write_bytes(b"truncated")
    monkeypatch.setenv("ELMO_KERAS_MODELS_DIR", str(models_dir))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(gradients, "FIRST_USE_SETTINGS", TINY)
    monkeypatch.setattr(shipped_models, "shipped_model", lambda name: None)  # nothing to reinstall: train
    at = open_app(PAGE)
    assert "rnn.keras cannot be loaded" in at.error[0].value and not plotly_charts(at)
    at.button(key="gradients_retrain").click().run()
    assert_no_exception(at)
    assert not at.error and len(plotly_charts(at)) == len(CHART_KEYS)
    assert gradients.load_gradient_models(models_dir).settings == TINY
