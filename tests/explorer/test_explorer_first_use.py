"""The first-use models mechanism (``explorer.first_use``): one job per page and models directory, a stale job
replaced, a failed one kept until reported, load errors in words a page can show, and discarding only the page's
own files."""

from __future__ import annotations

import pathlib
import threading

import pytest

from elmo_keras.explorer.background import BackgroundJob
from elmo_keras.explorer.decoding import service as decoding
from elmo_keras.explorer.first_use import (
    DamagedModelsError,
    FirstUseModels,
    forget_job,
    load_models,
    training_job,
)
from elmo_keras.explorer.model_store import discard_page_directories


def _spec(name, outcome, load=None):
    """A spec whose jobs run ``outcome()`` and count their starts in ``spec.started``."""
    started = []

    def start(models_dir):
        started.append(models_dir)
        return BackgroundJob(outcome, f"test-{name}")

    spec = FirstUseModels(name, "test models", start=start, ready=lambda models_dir: None, load=load)
    return spec, started


def test_a_running_job_is_shared_by_every_caller(tmp_path):
    release = threading.Event()
    spec, started = _spec("shared", lambda: release.wait(10))
    first = training_job(spec, tmp_path)
    assert training_job(spec, str(tmp_path)) is first  # a second session, a Path or a str: the same job
    release.set()
    assert first.wait(10) and len(started) == 1


def test_a_finished_job_is_stale_and_replaced(tmp_path):
    """The page asks for a job only while its models are missing: a job that succeeded saved models that are gone
    since (the tagging page reused such a job and showed its vanished models)."""
    spec, started = _spec("stale", lambda: "saved")
    first = training_job(spec, tmp_path)
    assert first.wait(10) and first.error is None
    second = training_job(spec, tmp_path)
    assert second is not first and len(started) == 2
    second.wait(10)


def test_a_failed_job_is_kept_until_it_is_forgotten(tmp_path):
    def failing():
        raise MemoryError("out of memory")

    spec, started = _spec("failed", failing)
    job = training_job(spec, tmp_path)
    assert job.wait(10) and isinstance(job.error, MemoryError)
    assert training_job(spec, tmp_path) is job  # a session that did not watch it still reports the error
    forget_job(spec, tmp_path, job)
    again = training_job(spec, tmp_path)
    assert again is not job and len(started) == 2
    again.wait(10)


def test_forgetting_an_old_job_keeps_the_newer_one(tmp_path):
    release = threading.Event()
    spec, started = _spec("newer", lambda: release.wait(10))
    old = training_job(spec, tmp_path)
    release.set()
    old.wait(10)
    release.clear()
    new = training_job(spec, tmp_path)  # the old one succeeded: replaced by one that runs until released
    forget_job(spec, tmp_path, old)  # a session that watched the old one drops it late
    assert training_job(spec, tmp_path) is new and len(started) == 2
    release.set()
    new.wait(10)


def test_a_load_error_names_the_models_and_keeps_the_loaders_message():
    def load(handle):
        raise ValueError(f"{handle}/model.keras is corrupted or not an elmo_keras model")

    spec, _ = _spec("load", lambda: None, load=load)
    with pytest.raises(DamagedModelsError, match="The saved test models cannot be loaded: /x/model.keras is corr"):
        load_models(spec, "/x")
    missing = FirstUseModels("missing", "test models", start=None, load=lambda handle: open(handle / "nothing"))
    with pytest.raises(DamagedModelsError, match="No such file"):
        load_models(missing, pathlib.Path("/no/such/dir"))


def test_discarding_checks_every_directory_before_deleting_any(tmp_path):
    ours, theirs = tmp_path / "tagger-toy", tmp_path / "taglm-toy"
    for directory in (ours, theirs):
        directory.mkdir()
        (directory / "model.keras").write_bytes(b"x")
    (theirs / "my-notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(ValueError, match="my-notes.txt, which the explorer did not write"):
        discard_page_directories({ours: ["model.keras"], theirs: ["model.keras"]})
    assert (ours / "model.keras").is_file() and (theirs / "my-notes.txt").is_file()
    (theirs / "my-notes.txt").unlink()
    discard_page_directories({ours: ["model.keras"], theirs: ["model.keras"]})
    assert not ours.exists() and not theirs.exists()


def test_the_seq2seq_model_trains_in_the_background_with_its_progress(tmp_path, monkeypatch):
    """The decoding page trained in the page's own run (a click stopped the training, every tab trained again)."""
    release = threading.Event()

    def stand_in(models_dir, progress=None, **overrides):
        progress(1, {"loss": 2.5})
        release.wait(10)
        progress(overrides["epochs"], {"loss": 1.0})
        return "saved"

    monkeypatch.setattr(decoding, "train_default_seq2seq", stand_in)
    job = decoding.Seq2SeqTraining(tmp_path, epochs=4)
    assert not job.wait(0.2)
    assert job.fraction == pytest.approx(0.25)
    assert job.status() == "First use: training the toy seq2seq model: epoch 1/4, loss 2.50"
    release.set()
    assert job.wait(10) and job.result == "saved" and job.status() == "Saving the seq2seq model…"
    assert decoding.SEQ2SEQ_MODELS.start is decoding.Seq2SeqTraining


def test_the_seq2seq_directory_is_discarded_only_when_it_holds_the_pages_files(tmp_path):
    directory = tmp_path / decoding.SEQ2SEQ_DIR_NAME
    directory.mkdir()
    for name in ("model.keras", "vocabulary.json", "my-model.keras"):
        (directory / name).write_bytes(b"x")
    with pytest.raises(ValueError, match="my-model.keras"):
        decoding.discard_seq2seq(tmp_path)
    assert (directory / "model.keras").is_file()
    (directory / "my-model.keras").unlink()
    decoding.discard_seq2seq(tmp_path)
    assert not directory.exists()
