"""A broken model in the models directory: the biLM pages say what is wrong, fall back to a model that loads and
keep the picker usable; the pages with models of their own say which file is damaged and offer to start again
(they used to show an uncaught traceback)."""

import filecmp
import json
import shutil

import pytest

from elmo_keras.explorer import state
from elmo_keras.explorer.model_store import find_model
from elmo_keras.explorer.shipped_models import SHIPPED_NAMES, install_shipped_model, shipped_models_directory
from tests.support.explorer_fixtures import TINY_NAME, assert_no_exception, open_app

BROKEN = "a-broken"  # sorts before "tiny": the frame makes it the active model on the first run
MODEL_PAGES = ["pages/context_similarity.py", "pages/pca.py", "pages/layer_weights.py"]


def _truncate_model(directory):
    _truncate(directory / "model.keras")


def _truncate(model_file):
    data = model_file.read_bytes()
    model_file.write_bytes(data[: len(data) // 2])


def _add_a_token(directory):
    path = directory / "vocabulary.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    words = data.get("words", data) if isinstance(data, dict) else data  # a tagger's: {"words": ..., "tags": ...}
    tokens = words["tokens"] if isinstance(words, dict) else words
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


# -- the pages with models of their own (``first_use``): a damaged file is named, and the page can start again ----
# page: (the widget-key prefix, the model.keras it truncates, the model directory whose vocabulary.json it edits)
OWN_MODEL_PAGES = {
    "pages/decoding.py": ("decoding", "seq2seq-toy/model.keras", "seq2seq-toy"),
    "pages/tagging.py": ("tagging", "taglm-toy/model.keras", "tagger-toy"),
    "pages/classification.py": ("classification", "classifiers-toy/cnn/model.keras", "classifiers-toy/rnn-last"),
    "pages/dialogue.py": ("dialogue", "dialogue-toy/vhred/model.keras", "dialogue-toy/hred"),
    "pages/gradients.py": ("gradients", "gradients-toy/rnn.keras", None),  # no vocabulary
}
DAMAGES = [(page, "truncated") for page in OWN_MODEL_PAGES] + [
    (page, "another-vocabulary") for page, (_, _, vocabulary) in OWN_MODEL_PAGES.items() if vocabulary]


@pytest.fixture
def shipped_page_models(tiny_models_dir, tmp_path, monkeypatch):
    """A models directory with the tiny biLM and every page's shipped models."""
    models = tmp_path / "models"
    shutil.copytree(tiny_models_dir / TINY_NAME, models / TINY_NAME)
    for name in SHIPPED_NAMES:
        install_shipped_model(models, name)
    monkeypatch.setenv("ELMO_KERAS_MODELS_DIR", str(models))
    monkeypatch.setenv("HOME", str(tmp_path))
    return models


def _damage(models, page, damage):
    """Damage the page's models; returns the file the error must name."""
    _, model_file, vocabulary_dir = OWN_MODEL_PAGES[page]
    if damage == "truncated":
        _truncate(models / model_file)
        return models / model_file
    _add_a_token(models / vocabulary_dir)
    return models / vocabulary_dir / "vocabulary.json"


@pytest.mark.parametrize("page, damage", DAMAGES, ids=[f"{page[6:-3]}-{damage}" for page, damage in DAMAGES])
def test_a_damaged_page_model_is_named_and_the_page_starts_again(shipped_page_models, page, damage):
    """Every page that loads models of its own: an error box naming the bad file (the decoding page raised), and a
    button that deletes the page's files, after which the shipped ones are installed again."""
    bad_file = _damage(shipped_page_models, page, damage)
    at = open_app(page)
    errors = _errors(at)
    assert "cannot be loaded" in errors and str(bad_file) in errors and "Delete them and start again" in errors
    name = OWN_MODEL_PAGES[page][0]
    at.button(key=f"{name}_retrain").click().run()
    assert_no_exception(at)
    assert not at.error and at.title
    shipped = shipped_models_directory() / bad_file.relative_to(shipped_page_models)
    assert filecmp.cmp(bad_file, shipped, shallow=False)  # the shipped copy is back


def test_starting_again_never_deletes_a_file_the_page_did_not_write(shipped_page_models):
    bad_file = _damage(shipped_page_models, "pages/decoding.py", "truncated")
    notes = bad_file.parent / "my-notes.txt"
    notes.write_text("mine", encoding="utf-8")
    at = open_app("pages/decoding.py")
    at.button(key="decoding_retrain").click().run()
    assert_no_exception(at)
    assert "my-notes.txt, which the explorer did not write" in _errors(at)
    assert notes.is_file() and bad_file.is_file()
