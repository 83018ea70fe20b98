"""Shared fixtures for the explorer and app tests: a models directory with a tiny biLM and a tiny seq2seq.

The models are trained once per test session and kept under pytest's session temp directory. ``conftest.py``
registers the fixtures; test modules import the helpers (``open_app``, ``assert_no_exception``, …) from here.
"""

from __future__ import annotations

import pathlib

import pytest

from elmo_keras.explorer.model_store import SEQ2SEQ_DIR_NAME
from tests.support.paths import REPO_ROOT

TINY_NAME = "tiny"


def build_models_dir(directory: pathlib.Path) -> pathlib.Path:
    """Train (once) ``tiny`` (biLM preset tiny, 2 epochs) and the seq2seq model (2 epochs, 16 units)."""
    from elmo_keras.explorer.decoding.service import train_default_seq2seq
    from elmo_keras.explorer.model_store import save_model
    from elmo_keras.models import train_bilm

    if not (directory / TINY_NAME / "model.keras").is_file():
        model = train_bilm(size="tiny", epochs=2)
        save_model(model, directory, TINY_NAME, preset="tiny", corpus="built-in polysemy corpus")
    if not (directory / SEQ2SEQ_DIR_NAME / "model.keras").is_file():
        train_default_seq2seq(directory, epochs=2, units=16, embedding_dim=8)
    return directory


@pytest.fixture(scope="session")
def tiny_models_dir(tmp_path_factory) -> pathlib.Path:
    """A models directory holding ``tiny`` and ``seq2seq-toy`` (read-only: copy it to change it)."""
    return build_models_dir(tmp_path_factory.getbasetemp() / "explorer-models")


@pytest.fixture(scope="session")
def tiny_model(tiny_models_dir):
    from elmo_keras.explorer.model_store import find_model, load_model

    return load_model(find_model(tiny_models_dir, TINY_NAME).ref)


@pytest.fixture(scope="session")
def tagging_models_dir(tiny_models_dir):
    """``tiny_models_dir`` with the Tagging page's two taggers too (1 epoch each: the page's plumbing, not its
    accuracy)."""
    from elmo_keras.explorer.tagging.service import tagger_refs, train_default_taggers

    if tagger_refs(tiny_models_dir) is None:
        train_default_taggers(tiny_models_dir, bilm_epochs=1, tagger_epochs=1, taglm_epochs=1)
    return tiny_models_dir


# -- app tests -----------------------------------------------------------------------------------------------
REPO = REPO_ROOT
APP = REPO / "elmo_keras" / "explorer" / "app" / "app.py"  # the packaged frame, run by `elmo-keras explore`
CLONE_APP = REPO / "app.py"  # `streamlit run app.py` from a clone: hands over to APP
APP_TIMEOUT = 60


@pytest.fixture()
def app_env(tiny_models_dir, tmp_path, monkeypatch) -> pathlib.Path:
    """Point the app at the tiny models and keep Streamlit's disk cache out of the real home directory."""
    monkeypatch.setenv("ELMO_KERAS_MODELS_DIR", str(tiny_models_dir))
    monkeypatch.setenv("HOME", str(tmp_path))
    return tiny_models_dir


def open_app(page: str | None = None, app: pathlib.Path = APP):
    """Run the app (and switch to ``page``, e.g. ``"pages/pca.py"``); fail on any exception shown."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(app), default_timeout=APP_TIMEOUT).run()
    if page is not None:
        at.switch_page(page).run()
    assert_no_exception(at)
    return at


def assert_no_exception(at) -> None:
    assert not at.exception, [e.message for e in at.exception]


def plotly_charts(at) -> list:
    return at.get("plotly_chart")
