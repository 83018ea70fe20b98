"""The shipped ``transformer-toy`` biLM (``tools/build_shipped_models.py``): the transformer-toy size with two
transformer layers per direction, built from a committed tree (its provenance names the commit), scoring the
held-out perplexity its ``training.json`` records, beside the LSTM toy's held-out perplexity recorded there too,
and separating held-out senses in its top layer."""

from __future__ import annotations

import json

import numpy as np
import pytest

from elmo_keras.analysis import sense_separation, word_occurrences
from elmo_keras.data import TARGET_WORDS, load_polysemy
from elmo_keras.explorer.model_store import DEFAULT_MODEL_NAME, TRANSFORMER_MODEL_NAME, preset_of
from elmo_keras.explorer.shipped_models import shipped_model
from elmo_keras.layers import TransformerBiLM
from elmo_keras.models import load_bilm
from elmo_keras.models.bilm.evaluation import perplexities
from tests.support.backend_support import outcome

TRANSFORMER_SHIPPED = shipped_model(TRANSFORMER_MODEL_NAME)
SCORED_ON_TENSORFLOW = outcome("the shipped models give the same outputs on every backend "
                               "(test_every_shipped_model_gives_the_same_numbers_on_every_backend)")


@pytest.fixture(scope="module")
def transformer():
    assert TRANSFORMER_SHIPPED is not None, "run tools/build_shipped_models.py --transformer-only"
    return load_bilm(TRANSFORMER_SHIPPED)


def test_it_is_the_transformer_toy_size_built_from_a_commit(transformer):
    summary = transformer.training_summary
    assert isinstance(transformer.bilm, TransformerBiLM) and transformer.bilm.num_layers == 2
    assert preset_of(summary["config"]) == summary["preset"] == "transformer-toy" and summary["seed"] == 0
    provenance = summary["provenance"]
    assert len(provenance["git_commit"]) == 40 and provenance["git_dirty"] is False
    lstm = json.loads((shipped_model(DEFAULT_MODEL_NAME) / "training.json").read_text(encoding="utf-8"))
    assert summary["lstm_toy_heldout"] == lstm["heldout"]
    size = sum(path.stat().st_size for path in TRANSFORMER_SHIPPED.iterdir()) / 2**20
    assert size < 2, f"{size:.1f} MiB: keep the wheel small"


@SCORED_ON_TENSORFLOW
def test_it_scores_the_heldout_perplexity_it_records(transformer):
    corpus = load_polysemy()
    scores = perplexities(transformer, list(corpus[corpus.split == "heldout"].tokens))
    for direction, recorded in transformer.training_summary["heldout"].items():
        np.testing.assert_allclose(scores[direction], recorded, rtol=1e-4)
        assert recorded < 0.3 * transformer.training_summary["heldout_unigram_perplexity"]


@SCORED_ON_TENSORFLOW
def test_its_top_layer_separates_heldout_senses(transformer):
    corpus = load_polysemy()
    for word in TARGET_WORDS:
        accuracy = sense_separation(word_occurrences(transformer, word, corpus[corpus.word == word]))
        assert accuracy[0] == 0.0 and accuracy[-1] >= 0.8, f"{word}: {accuracy}"
