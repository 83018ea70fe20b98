"""The shipped default model (``elmo_keras/data/default_model``, built by ``tools/build_default_model.py``) loads
with the current code, is the ``toy`` preset, separates the senses of held-out sentences like a freshly trained
one, and is installed into a models directory without ever replacing a model there."""

import numpy as np
import pytest

from elmo_keras.analysis import sense_separation, word_occurrences
from elmo_keras.data import TARGET_WORDS, load_polysemy
from elmo_keras.explorer.default_model import SHIPPED_FILES, install_default_model, shipped_default_model
from elmo_keras.explorer.model_store import DEFAULT_MODEL_NAME, list_models, preset_of
from elmo_keras.models import load_bilm


@pytest.fixture(scope="module")
def shipped():
    directory = shipped_default_model()
    assert directory is not None, "elmo_keras/data/default_model is missing: run tools/build_default_model.py"
    return load_bilm(directory)


def test_the_shipped_model_is_the_toy_preset_and_beats_a_unigram_model(shipped):
    summary = shipped.training_summary
    assert preset_of(summary["config"]) == "toy" and summary["seed"] == 0
    for direction in ("forward_perplexity", "backward_perplexity"):
        assert summary["heldout"][direction] < 0.6 * summary["heldout_unigram_perplexity"]


@pytest.mark.parametrize("word", TARGET_WORDS)
def test_the_shipped_model_separates_heldout_senses(shipped, word):
    corpus = load_polysemy()
    accuracy = sense_separation(word_occurrences(shipped, word, corpus[corpus.word == word]))
    assert accuracy[0] == 0.0 and accuracy[-1] >= 0.9, f"{word}: {accuracy}"


def test_install_copies_it_once_and_never_replaces_a_model(tmp_path):
    models = tmp_path / "models"
    ref = install_default_model(models)
    assert ref is not None and ref.name == DEFAULT_MODEL_NAME
    assert sorted(p.name for p in (models / DEFAULT_MODEL_NAME).iterdir()) == sorted(SHIPPED_FILES)
    assert [info.name for info in list_models(models)] == [DEFAULT_MODEL_NAME]
    assert not [p for p in models.iterdir() if p.name.startswith(".")]  # no staging directory left behind
    vocabulary = models / DEFAULT_MODEL_NAME / "vocabulary.json"
    vocabulary.write_text(vocabulary.read_text(encoding="utf-8"), encoding="utf-8")
    before = vocabulary.stat().st_mtime_ns
    assert install_default_model(models) is None  # a toy is there: kept as it is
    assert vocabulary.stat().st_mtime_ns == before
    loaded = load_bilm(models / DEFAULT_MODEL_NAME)
    np.testing.assert_array_equal(loaded.get_weights()[0], load_bilm(shipped_default_model()).get_weights()[0])
