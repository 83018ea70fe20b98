"""AppTest: the sidebar's contextualizer choice (the shipped transformer-toy installed on first use, the picker then
over the transformer biLMs, the pages showing its 1 + 2 layers) and the LSTM vs transformer page."""

from __future__ import annotations

import shutil

import pytest
from streamlit.testing.v1 import AppTest

from elmo_keras.explorer import state
from elmo_keras.explorer.model_store import DEFAULT_MODEL_NAME, TRANSFORMER_MODEL_NAME
from tests.support.explorer_fixtures import APP, APP_TIMEOUT, assert_no_exception, open_app, plotly_charts


@pytest.fixture()
def models_dir(app_env, tmp_path, monkeypatch):
    """A copy of the tiny models (the page installs the shipped biLMs into it)."""
    copy = tmp_path / "models"
    shutil.copytree(app_env, copy)
    monkeypatch.setenv("ELMO_KERAS_MODELS_DIR", str(copy))
    return copy


def test_choosing_the_transformer_installs_it_and_the_pages_show_its_layers(models_dir):
    at = open_app()  # Context similarity, the default page (the frame draws the sidebar)
    assert at.sidebar.radio(key=state.CONTEXTUALIZER_PICKER).value == "lstm"
    assert at.sidebar.selectbox(key=state.MODEL_PICKER).options == ["tiny"]  # the user's LSTM: nothing installed
    assert not (models_dir / TRANSFORMER_MODEL_NAME).exists() and not (models_dir / DEFAULT_MODEL_NAME).exists()
    at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT)
    at.session_state[state.CONTEXTUALIZER_PICKER] = "transformer"  # as the radio's click sets it
    at.run()
    assert_no_exception(at)
    assert (models_dir / TRANSFORMER_MODEL_NAME / "model.keras").is_file()
    assert at.sidebar.selectbox(key=state.MODEL_PICKER).options == [TRANSFORMER_MODEL_NAME]
    assert at.session_state[state.ACTIVE_MODEL] == TRANSFORMER_MODEL_NAME
    assert list(at.dataframe[0].value.layer) == [0, 1, 2]
    at.switch_page("pages/pca.py").run()
    assert_no_exception(at)
    assert list(at.dataframe[0].value.layer) == [0, 1, 2]


def test_the_side_by_side_page_compares_both_default_biLMs(models_dir):
    at = open_app("pages/contextualizers.py")
    assert (models_dir / DEFAULT_MODEL_NAME).is_dir() and (models_dir / TRANSFORMER_MODEL_NAME).is_dir()
    assert at.title[0].value == "LSTM vs transformer"
    assert [c.key for c in plotly_charts(at)] == ["contextualizers_side_by_side"]
    summary = at.dataframe[0].value
    assert list(summary.model) == ["LSTM"] * 3 + ["transformer"] * 3 and list(summary.layer) == [0, 1, 2] * 2
    findings = [m.value for m in at.markdown if m.value.startswith("- ")]
    assert findings[0].startswith("- On the corpus's held-out split (72 sense-labelled occurrences")
    assert any("re-drawn held-out splits" in finding for finding in findings)
