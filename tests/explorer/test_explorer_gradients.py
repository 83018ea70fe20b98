"""The Gradients page's service: first-use training saved in one step, loading, damaged files, the measurements and
the quiz's explanation."""

from __future__ import annotations

import io
import shutil

import numpy as np
import pytest

from elmo_keras.analysis.gradient_study.results import EXPLODING, INITIAL, TRAINED, gradient_study, quiz_numbers
from elmo_keras.analysis.gradient_study.task import INPUT_DIM, TrainingRun, remember_first_batch
from elmo_keras.explorer.gradients import service as gradients
from elmo_keras.explorer.gradients.quiz import ANSWER, OPTIONS, quiz_explanation
from elmo_keras.explorer.gradients.service import (
    MODEL_FILES,
    TRAINING_FILE,
    GradientSettings,
    GradientTraining,
    final_accuracies,
    gradients_dir,
    has_gradient_models,
    load_gradient_models,
    page_measurements,
    saved_version,
    train_gradient_models,
    training_table,
)
from elmo_keras.explorer.gradients.store import (
    LEGACY_MEASUREMENTS_FILE,
    measurements_from_arrays,
    measurements_path,
)
from elmo_keras.explorer.result_cache import stored_arrays


def stored_measurements(path):
    """The measurements kept at ``path`` (None where there are none)."""
    arrays = stored_arrays(path)
    return None if arrays is None else measurements_from_arrays(arrays)

TINY = GradientSettings(length=10, units=8, count=64, epochs=2, batch_size=32)


def default_measurements_path(models_dir, trained):
    """Where the page's default measurements of ``models_dir``'s gradient models are kept."""
    return measurements_path(models_dir, gradients_dir(models_dir), *gradients.page_defaults(trained.settings))


@pytest.fixture(scope="module")
def trained_dir(tmp_path_factory):
    """Trained once, in the background job the page uses (its progress checked on the way)."""
    directory = tmp_path_factory.mktemp("gradient-models")
    job = GradientTraining(directory, settings=TINY)
    assert job.fraction < 1 and "First use" in job.status()
    assert job.wait(120) and job.error is None
    assert job.fraction == 1.0 and job.status() == "Saving the models…"
    assert job.result.settings == TINY
    return directory


def test_training_saves_both_models_and_loading_gives_them_back(trained_dir):
    assert has_gradient_models(trained_dir) and saved_version(trained_dir) > 0
    files = sorted(p.name for p in gradients_dir(trained_dir).iterdir())
    assert files == sorted([*MODEL_FILES.values(), TRAINING_FILE])  # the measurements are in the result cache
    loaded = load_gradient_models(trained_dir)
    assert loaded.settings == TINY and set(loaded.models) == {"vanilla RNN", "LSTM"}
    assert [m.cell_type for m in loaded.models.values()] == ["rnn", "lstm"]
    inputs, _ = remember_first_batch(4, TINY.length, seed=9)
    again = load_gradient_models(trained_dir)
    for label, model in loaded.models.items():  # the same weights twice: deterministic inference
        np.testing.assert_array_equal(np.asarray(model(inputs)), np.asarray(again.models[label](inputs)))
    table = training_table(loaded)
    assert list(table.columns) == ["model", "epoch", "loss", "accuracy"] and len(table) == 2 * TINY.epochs
    assert set(final_accuracies(loaded)) == {"vanilla RNN", "LSTM"}


def test_damaged_files_say_to_retrain(trained_dir, tmp_path):
    with pytest.raises(FileNotFoundError):
        load_gradient_models(tmp_path)
    broken = tmp_path / "models"
    shutil.copytree(trained_dir, broken)
    (gradients_dir(broken) / MODEL_FILES["LSTM"]).write_bytes(b"not a zip")
    with pytest.raises(ValueError, match=r"lstm\.keras cannot be loaded .*retrain the models"):
        load_gradient_models(broken)
    (gradients_dir(broken) / TRAINING_FILE).write_text("{}")
    with pytest.raises(ValueError, match=r"training\.json is damaged"):
        load_gradient_models(broken)


def test_progress_is_reported_before_each_model(monkeypatch, tmp_path):
    steps = []
    def fake_training(model, *args, **kwargs):  # the bookkeeping only: build the model, skip the training
        model(np.zeros((1, TINY.length, INPUT_DIM), "float32"))
        return TrainingRun([1.0], [0.5], 0.0)

    monkeypatch.setattr(gradients, "train_remember_first", fake_training)
    train_gradient_models(tmp_path, progress=lambda step, what: steps.append((step, what)), settings=TINY)
    assert steps == [(0, "vanilla RNN"), (1, "LSTM"), (2, "gradients"), (3, "done")]
    assert load_gradient_models(tmp_path).histories["LSTM"]["accuracy"] == [0.5]


def test_measurements_study_and_quiz(trained_dir):
    trained = load_gradient_models(trained_dir)
    study = gradient_study(page_measurements(trained, length=10, rnn_scale=0.5, forget_bias=3.0), theta=0.01)
    stages = set(map(tuple, study.clip_summary[["model", "stage"]].to_numpy()))
    assert stages == {("vanilla RNN", INITIAL), ("LSTM", INITIAL), ("vanilla RNN", EXPLODING),
                      ("vanilla RNN", TRAINED), ("LSTM", TRAINED)}
    assert set(study.curves["distance"]) == set(range(10)) and study.far == 9
    np.testing.assert_allclose(study.clip_summary["clipped_ratio"], study.clip_summary["ratio"], rtol=1e-9)
    numbers = quiz_numbers(study)
    correct, text = quiz_explanation(study, final_accuracies(trained), ANSWER)
    assert correct and "The answer is **B**" in text
    assert f"**{numbers['rnn_ratio']:.2g}×**" in text and f"**{numbers['rnn_clipped_ratio']:.2g}**" in text
    wrong, text = quiz_explanation(study, final_accuracies(trained), OPTIONS.index("D: A and B"))
    assert not wrong and text.startswith("**Not D")
    with pytest.raises(ValueError, match="choice must be an index into OPTIONS"):
        quiz_explanation(study, final_accuracies(trained), 7)


def no_measuring(*args):
    raise AssertionError("the page's defaults must come from disk")


def test_default_measurements_are_read_back_from_disk(trained_dir, monkeypatch):
    """The first-use training keeps the page's default measurements (an ``.npz`` read without pickle, exact float32
    values)."""
    trained = load_gradient_models(trained_dir)
    defaults = gradients.page_defaults(trained.settings)
    path = default_measurements_path(trained_dir, trained)
    assert path.parent == trained_dir / ".results" / "gradients" and path.suffix == ".npz"
    stored = stored_measurements(path)
    computed = page_measurements(trained, *defaults)
    assert stored is not None and list(stored.runs) == list(computed.runs) and stored.length == computed.length
    assert list(stored.decay) == list(computed.decay)
    for key, measured in [*computed.runs.items(), *computed.decay.items()]:
        kept = (stored.runs if isinstance(key, tuple) else stored.decay)[key]
        assert kept.loss == measured.loss
        for name in ("hidden", "cell", "forget"):  # deterministic: the same numbers, dtype and shape
            if getattr(measured, name) is None:
                assert getattr(kept, name) is None
            else:
                np.testing.assert_array_equal(getattr(kept, name), getattr(measured, name), strict=True)

    monkeypatch.setattr(gradients, "page_measurements", no_measuring)
    assert gradients.measurements_for(trained_dir, trained, *defaults).runs.keys() == computed.runs.keys()


def _npz(**arrays) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


@pytest.mark.parametrize("content", [_npz(length=np.asarray(10), **{"run|x|y|hidden": np.ones(3)})[:-40],
                                     _npz(length=np.asarray(10), **{"run|x|y|hidden": np.ones(3)}),
                                     _npz(other=np.ones(2)), b"{\"length\": 10}"],
                         ids=["truncated", "foreign keys", "foreign arrays", "not an npz"])
def test_damaged_measurements_are_measured_again_and_replaced(trained_dir, tmp_path, monkeypatch, content):
    models_dir = tmp_path / "models"
    shutil.copytree(trained_dir, models_dir)
    trained = load_gradient_models(models_dir)
    path = default_measurements_path(models_dir, trained)
    path.write_bytes(content)
    measured = gradients.measurements_for(models_dir, trained, *gradients.page_defaults(trained.settings))
    assert stored_measurements(path).runs.keys() == measured.runs.keys()
    monkeypatch.setattr(gradients, "page_measurements", no_measuring)  # replaced: read from disk next time
    gradients.measurements_for(models_dir, trained, *gradients.page_defaults(trained.settings))


def test_measurements_missing_from_disk_are_measured_once_and_kept(trained_dir, tmp_path, monkeypatch):
    """The shipped models come without measurements: the first visit measures and keeps them; a later process
    reads them; other settings are measured, not kept."""
    copy = tmp_path / "models"
    shutil.copytree(gradients_dir(trained_dir), gradients_dir(copy))
    trained = load_gradient_models(copy)
    path = default_measurements_path(copy, trained)
    assert not path.exists()
    measured = gradients.measurements_for(copy, trained, *gradients.page_defaults(trained.settings))
    kept = stored_measurements(path)
    assert kept is not None and kept.runs.keys() == measured.runs.keys()
    gradients.measurements_for(copy, trained, 20, 0.5, 1.0)  # a slider's setting
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no temporary file, no slider's result
    assert sorted(p.name for p in gradients_dir(copy).iterdir()) == sorted([*MODEL_FILES.values(), TRAINING_FILE])
    monkeypatch.setattr(gradients, "page_measurements", no_measuring)
    gradients.measurements_for(copy, trained, *gradients.page_defaults(trained.settings))


def test_measurements_of_earlier_models_are_deleted_when_new_ones_are_kept(trained_dir, tmp_path):
    models_dir = tmp_path / "models"
    shutil.copytree(trained_dir, models_dir)
    trained = load_gradient_models(models_dir)
    earlier = default_measurements_path(models_dir, trained)
    assert earlier.is_file()
    training = gradients_dir(models_dir) / TRAINING_FILE
    training.write_text(training.read_text() + " ")  # the same models saved again: a new key
    measured = gradients.measurements_for(models_dir, trained, *gradients.page_defaults(trained.settings))
    now = default_measurements_path(models_dir, trained)
    assert now != earlier and not earlier.exists() and sorted(now.parent.iterdir()) == [now]
    assert stored_measurements(now).runs.keys() == measured.runs.keys()


def test_a_directory_that_takes_no_file_only_costs_a_measurement(trained_dir, tmp_path):
    models_dir = tmp_path / "models"
    shutil.copytree(gradients_dir(trained_dir), gradients_dir(models_dir))
    (models_dir / ".results").write_text("a file where the results directory would be")
    trained = load_gradient_models(models_dir)
    measured = gradients.measurements_for(models_dir, trained, *gradients.page_defaults(trained.settings))
    assert measured.length == TINY.length
    assert sorted(p.name for p in models_dir.iterdir()) == [".results", gradients.GRADIENTS_DIR_NAME]


def test_an_earlier_versions_measurements_file_is_the_pages_own(trained_dir, tmp_path):
    """A directory from an earlier version still holds measurements.npz: it loads, is measured and kept in the
    result cache, and is neither refused nor left behind when deleted or retrained."""
    models_dir = tmp_path / "models"
    shutil.copytree(gradients_dir(trained_dir), gradients_dir(models_dir))
    (gradients_dir(models_dir) / LEGACY_MEASUREMENTS_FILE).write_bytes(b"PK\x03\x04 an old npz")
    trained = load_gradient_models(models_dir)
    gradients.measurements_for(models_dir, trained, *gradients.page_defaults(trained.settings))
    assert default_measurements_path(models_dir, trained).is_file()
    gradients.discard_gradient_models(models_dir)
    assert not gradients_dir(models_dir).exists()


def test_a_users_model_under_the_reserved_name_is_never_replaced(tmp_path):
    user_model = gradients_dir(tmp_path)
    user_model.mkdir()
    (user_model / "model.keras").write_bytes(b"a biLM saved before the name was reserved")
    with pytest.raises(ValueError, match="model.keras, which the explorer did not write"):
        train_gradient_models(tmp_path, settings=TINY)
    assert (user_model / "model.keras").read_bytes() == b"a biLM saved before the name was reserved"
