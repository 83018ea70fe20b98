"""Training settings, the live history behind the curves, and the name check before training."""

from __future__ import annotations

import math

import pytest

from elmo_keras.explorer import training
from elmo_keras.explorer.corpus import builtin_corpus
from elmo_keras.explorer.training import (
    LiveHistory,
    TrainingSettings,
    epoch_count,
    epoch_status,
    history_frame,
    train_and_save,
)


def test_settings_follow_the_preset_and_are_checked():
    assert TrainingSettings.for_preset("tiny", seed=3) == TrainingSettings("tiny", 3, 1e-2, 3)
    with pytest.raises(ValueError, match="unknown size 'huge'"):
        TrainingSettings("huge")
    with pytest.raises(ValueError, match="epochs must be a positive int"):
        TrainingSettings("toy", epochs=0)
    with pytest.raises(ValueError, match="learning_rate must be a finite number > 0"):
        TrainingSettings("toy", learning_rate=0.0)


def test_live_history_collects_logs_and_calls_on():
    seen = []
    history = LiveHistory(4, on_epoch=lambda epoch, logs: seen.append(epoch))
    history(1, {"loss": 9.0, "forward_perplexity": 100.0, "backward_perplexity": 80.0})
    history(2, {"loss": 8.0, "forward_perplexity": 50.0, "backward_perplexity": 40.0})
    assert seen == [1, 2] and history.fraction == 0.5
    frame = history.frame()
    assert list(frame.columns) == ["epoch", "direction", "loss", "perplexity"]
    assert len(frame) == 4 and frame.loc[0, "loss"] == pytest.approx(math.log(100.0))


def test_history_frame_from_a_keras_history_dict():
    frame = history_frame({"loss": [3.0, 2.0], "forward_perplexity": [10.0, 5.0], "backward_perplexity": [12.0, 6.0]})
    assert list(frame["epoch"]) == [1, 1, 2, 2]
    assert list(frame["direction"]) == ["forward", "backward"] * 2
    assert frame["perplexity"].tolist() == [10.0, 12.0, 5.0, 6.0]
    assert history_frame({}).empty and history_frame([]).empty


def test_the_progress_line_shows_each_directions_perplexity_not_the_summed_loss():
    logs = {"loss": 9.282, "forward_perplexity": 110.2, "backward_perplexity": 99.5}
    status = epoch_status(2, 3, logs)
    assert status == "Epoch 2/3: forward perplexity 110.2, backward 99.5" and "9.28" not in status
    # the same numbers the perplexity curve draws for that epoch
    frame = history_frame([{"epoch": 2, **logs}])
    assert frame["perplexity"].tolist() == [110.2, 99.5]


def test_epoch_count_is_singular_for_one():
    assert [epoch_count(n) for n in (1, 2, 30, None)] == ["1 epoch", "2 epochs", "30 epochs", "? epochs"]


def test_a_bad_name_fails_before_any_training(tmp_path, monkeypatch):
    def must_not_train(*args, **kwargs):
        raise AssertionError("trained although the name was invalid")

    monkeypatch.setattr(training, "train_on_corpus", must_not_train)
    with pytest.raises(ValueError, match="use only letters, digits"):
        train_and_save(builtin_corpus(), TrainingSettings.for_preset("tiny"), tmp_path, "bad name!", "built-in")
    assert not any(tmp_path.iterdir())


def test_background_training_reports_progress_and_the_saved_model(tiny_models_dir, tmp_path, monkeypatch):
    import threading

    from elmo_keras.explorer.model_store import DEFAULT_MODEL_NAME
    from elmo_keras.models import load_bilm
    from tests.support.explorer_fixtures import TINY_NAME

    release = threading.Event()

    def stand_in(corpus, settings, progress=None):
        progress(1, {"loss": 9.0, "forward_perplexity": 90.0, "backward_perplexity": 95.0})
        release.wait(10)
        return load_bilm(tiny_models_dir / TINY_NAME)

    monkeypatch.setattr(training, "train_on_corpus", stand_in)
    job = training.BackgroundTraining(tmp_path)
    assert not job.wait(0.2) and not job.done  # still training: a poll returns without waiting for the end
    assert job.status() == f"Epoch 1/{job.settings.epochs}: forward perplexity 90.0, backward 95.0"
    release.set()
    assert job.wait(10) and job.error is None
    assert job.ref.name == DEFAULT_MODEL_NAME and (tmp_path / DEFAULT_MODEL_NAME).is_dir()


def test_background_training_keeps_the_error_for_the_page(tmp_path, monkeypatch):
    def failing(corpus, settings, progress=None):
        raise MemoryError("out of memory while building the model")

    monkeypatch.setattr(training, "train_on_corpus", failing)
    job = training.BackgroundTraining(tmp_path)
    assert job.wait(10)
    assert isinstance(job.error, MemoryError) and job.ref is None
    assert job.status().startswith("Building the model")
