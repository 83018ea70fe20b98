"""The LSTM vs transformer comparison (``explorer.contextualizers.service``): per model and layer, held-out sense
separation, within- vs across-sense similarity and a spread over re-drawn held-out splits, the layer counts read from
each model; the findings say which model leads only as far as the splits agree; the sidebar's contextualizer is read
from a saved model's config."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from elmo_keras.analysis.senses import WordOccurrences
from elmo_keras.explorer.contextualizers.service import (
    compare_contextualizers,
    comparison_findings,
    parameter_count,
    resplit_accuracies,
)
from elmo_keras.explorer.corpus import builtin_corpus
from elmo_keras.explorer.model_store import find_model
from elmo_keras.layers import TransformerBiLM, WordEmbedding
from elmo_keras.models.bilm.language_model import BiLanguageModel

TRANSFORMER_LAYERS = 3


@pytest.fixture(scope="module")
def transformer(tiny_model):
    vocabulary = tiny_model.vocabulary
    bilm = TransformerBiLM(WordEmbedding(len(vocabulary), 8), hidden_dim=16, num_layers=TRANSFORMER_LAYERS,
                           num_heads=2)
    model = BiLanguageModel(bilm, vocab_size=len(vocabulary))
    model.vocabulary = vocabulary
    return model


def test_both_models_every_layer_and_the_spread(tiny_model, transformer):
    view = compare_contextualizers({"LSTM": tiny_model, "transformer": transformer}, builtin_corpus(), resplits=4)
    assert view.num_layers == {"LSTM": tiny_model.bilm.num_layers + 1, "transformer": TRANSFORMER_LAYERS + 1}
    assert view.heldout_occurrences == 72  # 12 per sense, 2 senses, bank / play / right
    assert list(view.summary.groupby("model", sort=False).size()) == [3, TRANSFORMER_LAYERS + 1]
    assert set(view.by_word.word) == {"bank", "play", "right"}
    layer_zero = view.summary[view.summary.layer == 0]
    assert (layer_zero.heldout_accuracy == 0).all()  # one word vector: every held-out occurrence a tie
    assert np.allclose(layer_zero.gap, 0, atol=1e-6)
    assert (view.summary.resplit_low <= view.summary.resplit_mean + 1e-12).all()
    assert (view.summary.resplit_mean <= view.summary.resplit_high + 1e-12).all()
    assert np.allclose(view.summary.gap, view.summary.within_sense - view.summary.across_senses)
    assert view.parameters == {"LSTM": tiny_model.count_params(), "transformer": parameter_count(transformer)}
    assert len(view.findings) == 5 and "parameters" in view.findings[-1]
    assert "LSTM" in view.findings[0] and "transformer" in view.findings[0]
    with pytest.raises(ValueError, match="at least two models"):
        compare_contextualizers({"LSTM": tiny_model}, builtin_corpus())


def _occurrences(separable_layer: np.ndarray) -> WordOccurrences:
    senses = ["a"] * 8 + ["b"] * 8
    splits = (["train"] * 6 + ["heldout"] * 2) * 2
    constant = np.ones((16, 2))
    return WordOccurrences("w", [["w"]] * 16, [0] * 16, senses, splits, np.stack([constant, separable_layer]))


def test_resplits_keep_each_senses_heldout_count_and_are_the_same_for_the_same_seed():
    rng = np.random.default_rng(1)
    separable = np.concatenate([rng.normal([5, 0], 0.1, (8, 2)), rng.normal([0, 5], 0.1, (8, 2))])
    accuracies = resplit_accuracies(_occurrences(separable), resplits=6, seed=3)
    assert accuracies.shape == (6, 2)
    np.testing.assert_array_equal(accuracies[:, 0], 0.0)  # the constant layer: ties
    np.testing.assert_array_equal(accuracies[:, 1], 1.0)
    noisy = rng.normal(0, 1, (16, 2))
    np.testing.assert_array_equal(resplit_accuracies(_occurrences(noisy), 6, seed=3),
                                  resplit_accuracies(_occurrences(noisy), 6, seed=3))
    # accuracy over 4 held-out occurrences (2 per sense) is a multiple of 1/4
    assert np.allclose(resplit_accuracies(_occurrences(noisy), 6, seed=3) * 4 % 1, 0)


def _summary(accuracy_a: float, accuracy_b: float) -> pd.DataFrame:
    rows = [("A", 0, 0.0), ("A", 1, accuracy_a), ("B", 0, 0.0), ("B", 1, accuracy_b)]
    frame = pd.DataFrame(rows, columns=["model", "layer", "heldout_accuracy"])
    frame["within_sense"], frame["across_senses"] = 0.6, 0.4
    frame["gap"] = 0.2
    return frame


def test_the_verdict_follows_the_splits():
    splits = 8
    ahead = {"A": np.tile([[0.0, 0.9]], (splits, 1)), "B": np.tile([[0.0, 0.8]], (splits, 1))}
    findings = comparison_findings(_summary(0.9, 0.8), ahead, 72)
    assert "layer 1 (90.0%" in findings[0] and "ahead in 8, behind in 0 and level in 0" in findings[1]
    assert findings[2].startswith("The A separates the senses better in every split, by 10.0 points")
    mixed = {"A": np.array([[0.0, v] for v in (0.9, 0.7) * 4]), "B": np.tile([[0.0, 0.8]], (splits, 1))}
    findings = comparison_findings(_summary(0.9, 0.8), mixed, 72)
    assert "ahead in 4, behind in 4" in findings[1] and "within the spread" in findings[2]
    mostly = {"A": np.array([[0.0, v] for v in (0.9,) * 6 + (0.7,) * 2]), "B": np.tile([[0.0, 0.8]], (splits, 1))}
    assert "ahead in most splits (6 of 8)" in comparison_findings(_summary(0.9, 0.8), mostly, 72)[2]


def test_a_saved_models_contextualizer_is_read_from_its_config(tiny_models_dir):
    assert find_model(tiny_models_dir, "tiny").contextualizer == "lstm"
