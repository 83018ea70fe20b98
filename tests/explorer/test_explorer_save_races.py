"""Two sessions saving one model name: the name is reserved from its check to the end of the save, so the second
session is refused before it trains, the first session's model stays its own, and no reservation outlives its
session (a failed training, a killed process)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading

import pytest

from elmo_keras.explorer import model_store, training
from elmo_keras.explorer.corpus import builtin_corpus
from elmo_keras.explorer.model_store import list_models, save_model
from elmo_keras.explorer.training import TrainingSettings, train_and_save
from elmo_keras.models.directory_files import MODEL_FILE, SUMMARY_FILE, VOCABULARY_FILE
from tests.support.explorer_fixtures import TINY_NAME

SETTINGS = TrainingSettings.for_preset("tiny")
BUSY = r"A model called 'mine' is being trained or saved by another session right now"


@pytest.fixture
def stand_in(tiny_models_dir, monkeypatch):
    """``train_on_corpus`` replaced by loading the tiny model; ``stand_in.gate(label)`` makes the training of the
    session saving corpus ``label`` wait until ``stand_in.release(label)`` (``stand_in.started[label]`` is set once
    it trains)."""
    from elmo_keras.models import load_bilm

    class StandIn:
        def __init__(self):
            self.started, self.gates, self.trained, self.current = {}, {}, [], threading.local()

        def gate(self, label):
            self.started[label], self.gates[label] = threading.Event(), threading.Event()

        def release(self, label):
            self.gates[label].set()

        def train(self, corpus, settings, progress=None):
            label = self.current.label
            self.trained.append(label)
            if label in self.gates:
                self.started[label].set()
                assert self.gates[label].wait(30)
            return load_bilm(tiny_models_dir / TINY_NAME)

        def session(self, directory, name, label, overwrite=False):
            self.current.label = label
            return train_and_save(builtin_corpus(), SETTINGS, directory, name, label, overwrite=overwrite)

    fake = StandIn()
    monkeypatch.setattr(training, "train_on_corpus", fake.train)
    return fake


def saved_corpus(directory, name="mine") -> str:
    return json.loads((directory / name / SUMMARY_FILE).read_text(encoding="utf-8"))["corpus"]


def in_thread(function, *args, **kwargs):
    outcome = {}

    def run():
        try:
            outcome["result"] = function(*args, **kwargs)
        except BaseException as error:  # noqa: BLE001 - handed to the test
            outcome["error"] = error

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def test_a_second_session_saving_the_same_new_name_is_refused_before_it_trains(stand_in, tmp_path):
    stand_in.gate("corpus A")
    first, outcome = in_thread(stand_in.session, tmp_path, "mine", "corpus A")
    assert stand_in.started["corpus A"].wait(30)
    assert [info.name for info in list_models(tmp_path)] == []  # a reservation is no model in the sidebar
    with pytest.raises(ValueError, match=BUSY):
        stand_in.session(tmp_path, "mine", "corpus B")
    assert stand_in.trained == ["corpus A"]  # the second session never trained
    stand_in.release("corpus A")
    first.join(30)
    assert "error" not in outcome and outcome["result"].name == "mine"
    assert saved_corpus(tmp_path) == "corpus A"
    assert [(info.name, info.corpus) for info in list_models(tmp_path)] == [("mine", "corpus A")]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["mine"]  # the reservation left nothing behind
    with pytest.raises(ValueError, match="A model called 'mine' already exists"):
        stand_in.session(tmp_path, "mine", "corpus B")
    stand_in.session(tmp_path, "mine", "corpus B", overwrite=True)
    assert saved_corpus(tmp_path) == "corpus B"


def test_an_overwriting_save_waits_for_the_session_holding_the_name(stand_in, tmp_path):
    stand_in.gate("corpus A")
    first, first_outcome = in_thread(stand_in.session, tmp_path, "mine", "corpus A")
    assert stand_in.started["corpus A"].wait(30)
    second, second_outcome = in_thread(stand_in.session, tmp_path, "mine", "corpus B", overwrite=True)
    second.join(1.0)
    assert second.is_alive() and not (tmp_path / "mine").exists()  # trained, and waits to save
    stand_in.release("corpus A")
    first.join(30)
    second.join(30)
    assert "error" not in first_outcome and "error" not in second_outcome
    assert saved_corpus(tmp_path) == "corpus B"  # saved after the first, as asked: it overwrites


def test_two_overwriting_saves_take_turns_and_each_leaves_a_whole_model(tiny_models_dir, tmp_path, monkeypatch):
    from elmo_keras.models import load_bilm, persistence

    replace, inside, overlaps = persistence.replace_directory, [], []
    both_there = threading.Barrier(2)

    def slow_replace(staging, target):
        inside.append(threading.get_ident())
        if len(inside) > 1:
            overlaps.append(tuple(inside))
        try:
            both_there.wait(timeout=1.0)  # unserialised saves meet here; serialised ones time out
        except threading.BrokenBarrierError:
            pass
        try:
            return replace(staging, target)
        finally:
            inside.remove(threading.get_ident())

    monkeypatch.setattr(persistence, "replace_directory", slow_replace)
    model_a, model_b = (load_bilm(tiny_models_dir / TINY_NAME) for _ in range(2))
    threads = [in_thread(save_model, model, tmp_path, "mine", corpus=label)
               for model, label in ((model_a, "corpus A"), (model_b, "corpus B"))]
    for thread, _ in threads:
        thread.join(60)
    assert [outcome.get("error") for _, outcome in threads] == [None, None]
    assert overlaps == []  # the two saves never replaced the directory at the same time
    whole = sorted((MODEL_FILE, SUMMARY_FILE, VOCABULARY_FILE))
    assert sorted(path.name for path in (tmp_path / "mine").iterdir()) == whole
    assert saved_corpus(tmp_path) in {"corpus A", "corpus B"}
    assert [info.name for info in list_models(tmp_path)] == ["mine"]


def test_a_failed_training_releases_the_name(stand_in, tmp_path, monkeypatch):
    def failing(corpus, settings, progress=None):
        raise MemoryError("out of memory while building the model")

    monkeypatch.setattr(training, "train_on_corpus", failing)
    with pytest.raises(MemoryError):
        train_and_save(builtin_corpus(), SETTINGS, tmp_path, "mine", "corpus A")
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(training, "train_on_corpus", stand_in.train)
    assert stand_in.session(tmp_path, "mine", "corpus B").name == "mine"


def test_a_name_reserved_by_another_process_is_refused_and_freed_when_it_dies(stand_in, tmp_path):
    holder = textwrap.dedent(f"""
        import sys, time
        from elmo_keras.explorer.model_store import reserve_model_name
        with reserve_model_name({str(tmp_path)!r}, "mine"):
            print("held", flush=True)
            time.sleep(120)
    """)
    process = subprocess.Popen([sys.executable, "-c", holder], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline().strip() == "held"
        with pytest.raises(ValueError, match=BUSY):
            stand_in.session(tmp_path, "mine", "corpus B")
        assert stand_in.trained == []
    finally:
        process.kill()  # SIGKILL: no finally runs there, the kernel drops its lock
        process.wait(30)
    assert (tmp_path / ".mine.lock").exists()  # the dead process's file stays, but holds no one off
    assert stand_in.session(tmp_path, "mine", "corpus B").name == "mine"
    assert saved_corpus(tmp_path) == "corpus B" and not (tmp_path / ".mine.lock").exists()


def test_a_reservation_checks_the_name_first_and_then_that_it_is_free(tmp_path, tiny_models_dir):
    with pytest.raises(ValueError, match="use only letters, digits"):
        with model_store.reserve_model_name(tmp_path, "bad name!"):
            pass
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match=f"A model called {TINY_NAME!r} already exists"):
        with model_store.reserve_model_name(tiny_models_dir, TINY_NAME):
            pass
    assert not (tiny_models_dir / f".{TINY_NAME}.lock").exists()


def test_a_save_in_progress_is_not_listed_as_a_model(tiny_models_dir, tmp_path, monkeypatch):
    """A save writes a complete model into ``.NAME.saving-…`` before renaming it, and the previous model lies
    there while it is deleted: the sidebar must not offer either."""
    import shutil

    shutil.copytree(tiny_models_dir / TINY_NAME, tmp_path / ".mine.saving-0123abcd")
    shutil.copytree(tiny_models_dir / TINY_NAME, tmp_path / ".mine.replaced-0123abcd")
    assert list_models(tmp_path) == []
    # a model deleted between the look at its files and the read of its stamp is skipped, not an error
    shutil.copytree(tiny_models_dir / TINY_NAME, tmp_path / "going")
    monkeypatch.setattr(model_store.ModelRef, "of", classmethod(lambda cls, *a: (_ for _ in ()).throw(
        FileNotFoundError("model.keras"))))
    assert list_models(tmp_path) == []
