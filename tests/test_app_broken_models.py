"""A broken model in the models directory: the model pages say what is wrong, fall back to a model that loads and
keep the picker usable (they used to show an uncaught traceback)."""

import json
import shutil

import pytest

from elmo_keras.explorer import state
from elmo_keras.explorer.model_store import find_model
from tests.explorer_fixtures import TINY_NAME, assert_no_exception, open_app

BROKEN = "a-broken"  # sorts before "tiny": the frame makes it the active model on the first run
MODEL_PAGES = ["pages/context_similarity.py", "pages/pca.py", "pages/layer_weights.py"]


def _truncate_model(directory):
    model_file = directory / "model.keras"
    data = model_file.read_bytes()
    model_file.write_bytes(data[: len(data) // 2])


def _add_a_token(directory):
    path = directory / "vocabulary.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    tokens = data["tokens"] if isinstance(data, dict) else data
    tokens.append("one-token-too-many")
    path.write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture
def models_with_a_broken_one(tiny_models_dir, tmp_path, monkeypatch):
    models = tmp_path / "models"
    shutil.copytree(tiny_models_dir / TINY_NAME, models / TINY_NAME)
    shutil.copytree(tiny_models_dir / TINY_NAME, models / BROKEN)
    monkeypatch.setenv("ELMO_KERAS_MODELS_DIR", str(models))
    monkeypatch.setenv("HOME", str(tmp_path))
    return models


def _errors(at) -> str:
    return "\n".join(error.value for error in at.error)


@pytest.mark.parametrize("damage", [_truncate_model, _add_a_token], ids=["truncated", "extra-token"])
def test_a_broken_active_model_is_reported_on_the_first_page(models_with_a_broken_one, damage):
    damage(models_with_a_broken_one / BROKEN)
    at = open_app()
    errors = _errors(at)
    assert f"Cannot load a saved model; showing **{TINY_NAME}** instead" in errors and f"**{BROKEN}**" in errors
    assert str(models_with_a_broken_one / BROKEN) in errors  # the message names the bad file
    assert at.title[0].value == "Context similarity"
    assert at.session_state[state.ACTIVE_REF].name == TINY_NAME


@pytest.mark.parametrize("page, damage", list(zip(MODEL_PAGES, [_truncate_model, _add_a_token, _truncate_model])),
                         ids=MODEL_PAGES)
def test_every_model_page_falls_back_from_a_broken_model(models_with_a_broken_one, page, damage):
    """Each page on its own (AppTest runs a switched-to page without the frame): the broken model becomes active,
    the page falls back to the working one and leaves the message for the frame to show."""
    damage(models_with_a_broken_one / BROKEN)
    at = open_app(page)
    broken = find_model(models_with_a_broken_one, BROKEN).ref
    at.session_state[state.ACTIVE_REF] = broken
    at.run()
    assert_no_exception(at)
    assert at.session_state[state.ACTIVE_REF].name == TINY_NAME and at.title
    assert at.session_state[state.REQUESTED_MODEL] == TINY_NAME  # the frame moves the picker there
    kind, text = at.session_state[state.MESSAGE]
    assert kind == "error" and f"showing **{TINY_NAME}** instead" in text and str(broken.path) in text


def test_with_no_loadable_model_the_page_says_how_to_recover(models_with_a_broken_one):
    for name in (BROKEN, TINY_NAME):
        _truncate_model(models_with_a_broken_one / name)
    at = open_app()
    errors = _errors(at)
    assert "No saved biLM can be loaded" in errors and f"**{TINY_NAME}**" in errors and f"**{BROKEN}**" in errors
    assert "Train a new one on the *Corpus & training* page" in errors
    at.switch_page("pages/corpus_training.py").run()  # training a new model stays possible
    assert_no_exception(at)
    assert at.title[0].value == "Corpus & training" and not at.error
