"""Saving a model directory: all or nothing, over a previous model; nothing else in the directory is lost; models
with NaN/inf weights are neither saved nor loaded."""

import numpy as np
import pytest

from elmo_keras.models import load_bilm, save_model_dir, train_bilm
from elmo_keras.models.directory_files import MODEL_FILE
from elmo_keras.text.vocabulary import Vocabulary
from tests.support.backend_support import to_numpy

CORPUS = ["I deposited money at the bank .", "We sat on the river bank .", "That answer is right ."]
OTHER_CORPUS = ["a b c d", "e f g h", "i j k l", "m n o p"]


@pytest.fixture(scope="module")
def two_models():
    """Two tiny biLMs with different vocabularies (sizes 15 and 20)."""
    return train_bilm(CORPUS, size="tiny", epochs=1), train_bilm(OTHER_CORPUS, size="tiny", epochs=1)


def _weights(model):
    return [to_numpy(w) for w in model.get_weights()]


def test_an_interrupted_save_leaves_the_previous_model_intact(two_models, tmp_path, monkeypatch):
    """An interruption after model.keras is written (here: in Vocabulary.save) used to leave the new model.keras
    beside the old vocabulary."""
    old, new = two_models
    directory = tmp_path / "model"
    old.save(directory)

    def interrupted(self, path):
        raise KeyboardInterrupt

    monkeypatch.setattr(Vocabulary, "save", interrupted)
    with pytest.raises(KeyboardInterrupt):
        new.save(directory)
    monkeypatch.undo()
    loaded = load_bilm(directory)
    assert loaded.vocabulary.tokens == old.vocabulary.tokens
    for saved, expected in zip(_weights(loaded), _weights(old)):
        np.testing.assert_array_equal(saved, expected)
    assert [p.name for p in tmp_path.iterdir()] == ["model"]  # the staging directory is gone


def test_saving_over_a_model_replaces_all_three_files(two_models, tmp_path):
    old, new = two_models
    directory = tmp_path / "model"
    old.save(directory)
    new.save(directory)
    assert load_bilm(directory).vocabulary.tokens == new.vocabulary.tokens
    assert sorted(p.name for p in directory.iterdir()) == [MODEL_FILE, "training.json", "vocabulary.json"]


def test_a_directory_with_other_files_is_not_replaced(two_models, tmp_path):
    directory = tmp_path / "project"
    directory.mkdir()
    (directory / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match=r"holds notes.txt, which is not part of a model directory"):
        save_model_dir(two_models[0], directory)
    assert [p.name for p in directory.iterdir()] == ["notes.txt"]
    with pytest.raises(FileExistsError, match="is an existing file"):
        save_model_dir(two_models[0], directory / "notes.txt")


def test_an_empty_directory_and_a_symlink_can_be_saved_to(two_models, tmp_path):
    (tmp_path / "empty").mkdir()
    save_model_dir(two_models[0], tmp_path / "empty")
    (tmp_path / "link").symlink_to(tmp_path / "empty", target_is_directory=True)
    save_model_dir(two_models[1], tmp_path / "link")
    assert (tmp_path / "link").is_symlink()
    assert load_bilm(tmp_path / "empty").vocabulary.tokens == two_models[1].vocabulary.tokens


def _with_a_nan(model):
    copy = train_bilm(CORPUS, size="tiny", epochs=1)
    weights = copy.get_weights()
    weights[0][0, 0] = np.nan
    copy.set_weights(weights)
    return copy


def test_a_model_with_nan_weights_is_not_saved_over_a_good_one(two_models, tmp_path):
    directory = tmp_path / "model"
    two_models[0].save(directory)
    with pytest.raises(ValueError, match=r"1 non-finite value\(s\) \(NaN or inf\) in '.*'; it is not saved"):
        _with_a_nan(two_models[0]).save(directory)
    assert load_bilm(directory).vocabulary.tokens == two_models[0].vocabulary.tokens


def test_a_saved_model_with_nan_weights_is_refused_on_loading(two_models, tmp_path, monkeypatch):
    from elmo_keras.models import persistence

    broken = _with_a_nan(two_models[0])
    monkeypatch.setattr(persistence, "first_nonfinite_weight", lambda model: None)  # as saved by an older version
    save_model_dir(broken, tmp_path / "model")
    monkeypatch.undo()
    with pytest.raises(ValueError, match=r"model.keras has 1 non-finite value\(s\) .*retrain it with a lower"):
        load_bilm(tmp_path / "model")
