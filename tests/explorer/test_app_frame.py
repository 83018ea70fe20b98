"""The frame (app.py): every page registered, the sidebar's model picker and numbers, the first launch."""

from __future__ import annotations

import ast
import json
import shutil
import time

import pytest

from elmo_keras.explorer import state
from elmo_keras.explorer.model_store import DEFAULT_MODEL_NAME, list_models
from elmo_keras.models import load_bilm
from tests.support.explorer_fixtures import (
    APP,
    CLONE_APP,
    REPO,
    TINY_NAME,
    assert_no_exception,
    open_app,
)


def registered_pages() -> list[str]:
    """The file argument of every ``st.Page(...)`` call in app.py."""
    tree = ast.parse(APP.read_text(encoding="utf-8"))
    return [node.args[0].value for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "Page"
            and node.args and isinstance(node.args[0], ast.Constant)]


def test_every_file_in_pages_is_registered_in_app_py():
    on_disk = sorted(f"pages/{path.name}" for path in (APP.parent / "pages").glob("*.py"))
    assert on_disk and sorted(registered_pages()) == on_disk
    assert len(set(registered_pages())) == len(registered_pages())


def test_the_clone_entry_points_only_hand_over_to_the_packaged_scripts():
    """``app.py`` and ``pages/<name>.py`` at the repository root: one per packaged script, each one call."""
    wrappers = sorted(path.relative_to(REPO).as_posix() for path in [CLONE_APP, *(REPO / "pages").glob("*.py")])
    packaged = sorted(path.relative_to(APP.parent).as_posix() for path in [APP, *(APP.parent / "pages").glob("*.py")])
    assert wrappers == packaged
    for name in wrappers:
        calls = [node for node in ast.walk(ast.parse((REPO / name).read_text(encoding="utf-8")))
                 if isinstance(node, ast.Call)]
        assert [(call.func.id, call.args[0].value) for call in calls] == [("run_script", name)], name


def test_streamlit_run_app_py_from_a_clone_serves_the_same_pages(app_env):
    at = open_app(app=CLONE_APP)
    assert at.title[0].value == "Context similarity"
    at.switch_page("pages/pca.py").run()
    assert at.title[0].value == "PCA per layer" and not at.exception


def test_pages_hold_no_model_code():
    """Pages read widgets, call a service and render: no Keras, no training loops, no PCA of their own."""
    for path in (APP.parent / "pages").glob("*.py"):
        source = path.read_text(encoding="utf-8")
        for forbidden in ("import keras", "from keras", "tensorflow", "sklearn", ".fit(", "PCA(", "np.linalg"):
            assert forbidden not in source, f"{path.name} contains {forbidden!r}"


def test_the_sidebar_shows_the_active_model_and_the_similarity_page_opens(app_env):
    at = open_app()
    picker = at.sidebar.selectbox(key=state.MODEL_PICKER)
    assert picker.options == [TINY_NAME] and picker.value == TINY_NAME
    info = "\n".join(m.value for m in at.sidebar.markdown)
    assert "preset **tiny** (word-level), 2 epochs" in info
    assert "train perplexity: forward" in info and "held-out perplexity: forward" in info
    assert at.title[0].value == "Context similarity"
    assert at.session_state[state.ACTIVE_REF].name == TINY_NAME


def test_the_sidebar_says_1_epoch_not_1_epochs(tiny_models_dir, tmp_path, monkeypatch):
    models = tmp_path / "models"
    shutil.copytree(tiny_models_dir / TINY_NAME, models / TINY_NAME)
    summary_path = models / TINY_NAME / "training.json"
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    summary["config"]["epochs"] = 1
    summary_path.write_text(json.dumps(summary), encoding="utf-8")
    monkeypatch.setenv("ELMO_KERAS_MODELS_DIR", str(models))
    monkeypatch.setenv("HOME", str(tmp_path))
    info = "\n".join(m.value for m in open_app().sidebar.markdown)
    assert "preset **tiny** (word-level), 1 epoch\n" in info and "1 epochs" not in info


def test_first_launch_installs_the_shipped_model_and_trains_nothing(tmp_path, monkeypatch):
    from elmo_keras.explorer import training

    empty = tmp_path / "models"
    monkeypatch.setenv("ELMO_KERAS_MODELS_DIR", str(empty))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(training, "train_on_corpus", lambda *args, **kwargs: pytest.fail("nothing is trained"))
    at = open_app()
    assert [info.name for info in list_models(empty)] == [DEFAULT_MODEL_NAME]
    assert at.sidebar.selectbox(key=state.MODEL_PICKER).value == DEFAULT_MODEL_NAME
    assert any("Installed the shipped `toy` biLM" in info.value for info in at.info)
    assert_no_exception(at)


def _first_launch_with_a_stand_in(tiny_models_dir, tmp_path, monkeypatch):
    """An empty models directory, no shipped model, and a training stand-in that returns the tiny model after a
    while; returns the directory and the list of the stand-in's calls."""
    from elmo_keras.explorer import shipped_models, training

    monkeypatch.setattr(shipped_models, "shipped_model", lambda name: None)

    empty = tmp_path / "models"
    monkeypatch.setenv("ELMO_KERAS_MODELS_DIR", str(empty))
    monkeypatch.setenv("HOME", str(tmp_path))
    calls = []

    def stand_in(corpus, settings, progress=None):
        calls.append(settings)
        progress(1, {"loss": 9.0, "forward_perplexity": 90.0, "backward_perplexity": 95.0})
        time.sleep(1.2)  # the page watches the training thread for a while
        return load_bilm(tiny_models_dir / TINY_NAME)

    monkeypatch.setattr(training, "train_on_corpus", stand_in)
    return empty, calls


def test_without_a_shipped_model_first_launch_trains_and_saves_toy(tiny_models_dir, tmp_path, monkeypatch):
    """With no model on disk and none shipped, the frame trains in the background (here: a stand-in returning the
    tiny model), watches its progress and saves 'toy'; the run after that trains nothing."""
    empty, calls = _first_launch_with_a_stand_in(tiny_models_dir, tmp_path, monkeypatch)
    at = open_app()
    assert [s.preset for s in calls] == ["toy"]
    assert [info.name for info in list_models(empty)] == [DEFAULT_MODEL_NAME]
    assert at.sidebar.selectbox(key=state.MODEL_PICKER).value == DEFAULT_MODEL_NAME
    at.run()  # a later run finds the model on disk and trains nothing
    assert len(calls) == 1
    assert_no_exception(at)


def test_a_model_deleted_after_its_first_launch_training_is_trained_again(tiny_models_dir, tmp_path, monkeypatch):
    """The finished first-launch job is stale once its model is gone: a new one starts (the frame reused it and
    reran itself without end)."""
    empty, calls = _first_launch_with_a_stand_in(tiny_models_dir, tmp_path, monkeypatch)
    open_app()
    shutil.rmtree(empty / DEFAULT_MODEL_NAME)
    at = open_app()  # a new session, in the same process as the finished job
    assert len(calls) == 2 and [info.name for info in list_models(empty)] == [DEFAULT_MODEL_NAME]
    assert at.sidebar.selectbox(key=state.MODEL_PICKER).value == DEFAULT_MODEL_NAME


def test_a_failed_first_launch_training_is_reported_and_tried_again(tmp_path, monkeypatch):
    from elmo_keras.explorer import shipped_models, training

    monkeypatch.setattr(shipped_models, "shipped_model", lambda name: None)
    monkeypatch.setenv("ELMO_KERAS_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("HOME", str(tmp_path))
    calls = []

    def failing(corpus, settings, progress=None):
        calls.append(settings)
        raise MemoryError("out of memory while building the model")

    monkeypatch.setattr(training, "train_on_corpus", failing)
    at = open_app()
    assert any("Training the first model failed: out of memory" in error.value for error in at.error)
    at.run()  # the failed job was dropped: the next run trains again
    assert len(calls) == 2


def test_the_app_listens_on_localhost_only_by_default():
    """Streamlit's default listens on every interface, which opened training and uploads to the network."""
    import tomllib

    shipped = (APP.parent / ".streamlit" / "config.toml").read_text(encoding="utf-8")  # elmo-keras explore
    assert (REPO / ".streamlit" / "config.toml").read_text(encoding="utf-8") == shipped  # streamlit run app.py
    assert tomllib.loads(shipped)["server"]["address"] == "localhost"
    safety = (REPO / "docs" / "safety.md").read_text(encoding="utf-8")
    assert "--server.address 0.0.0.0" in safety  # how to expose it deliberately

