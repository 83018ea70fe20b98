"""Analysis helpers against hand-computed values, and layer_embeddings' independence from batch-mates."""

import numpy as np
import pandas as pd
import pytest

import elmo_keras
from elmo_keras.analysis import (
    cosine_similarity_matrices,
    find_occurrences,
    layer_embeddings,
    nearest_centroid_accuracy,
    pca_per_layer,
    within_across_similarity,
)
from elmo_keras.models import train_bilm


def test_cosine_similarity_matrices():
    e = np.array([[[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]])
    sims = cosine_similarity_matrices(e)
    np.testing.assert_allclose(sims[0], [[1, 0, 2**-0.5], [0, 1, 2**-0.5], [2**-0.5, 2**-0.5, 1]], atol=1e-12)
    with pytest.raises(ValueError, match="num_layers, n, dim"):
        cosine_similarity_matrices(np.zeros((3, 2)))


def test_within_across_similarity():
    sims = np.array([[[1, 0.8, 0.1], [0.8, 1, 0.3], [0.1, 0.3, 1]]])
    within, across = within_across_similarity(sims, ["a", "a", "b"])
    assert within[0] == pytest.approx(0.8) and across[0] == pytest.approx(0.2)


def test_nearest_centroid_accuracy_and_ties():
    train = np.array([[[1, 0], [0.9, 0.1], [0, 1], [0.1, 0.9]], [[1, 1]] * 4], float)
    test = np.array([[[0.8, 0.2], [0.2, 0.8], [0.6, 0.4]], [[1, 1]] * 3], float)
    acc = nearest_centroid_accuracy(train, ["x", "x", "y", "y"], test, ["x", "y", "y"])
    assert acc[0] == pytest.approx(2 / 3)  # the third test vector is closer to x
    assert acc[1] == 0.0  # identical vectors: every centroid ties, counted wrong


def test_pca_per_layer_explained_variance_and_constant_layer():
    rng = np.random.default_rng(0)
    spread = rng.normal(size=(20, 5)) * np.array([5, 1, 0.1, 0.1, 0.1])
    projections = pca_per_layer(np.stack([np.ones((20, 5)), spread]))
    assert np.all(projections[0].coordinates == 0) and np.all(projections[0].explained_variance_ratio == 0)
    assert projections[1].coordinates.shape == (20, 2)
    assert projections[1].explained_variance_ratio[0] > 0.8


def test_find_occurrences_uses_target_index_then_first_occurrence():
    frame = pd.DataFrame(
        {
            "word": ["bank", ""], "sense": ["river", ""], "split": ["train", "train"], "target_index": [3, -1],
            "tokens": [["the", "bank", "by", "bank"], ["a", "Bank", "."]],
        }
    )
    found = find_occurrences("bank", frame)
    assert list(found["position"]) == [3, 1] and list(found["sense"]) == ["river", "unlabelled"]


def test_layer_embeddings_do_not_depend_on_batch_mates():
    corpus = ["the bank is by the river .", "money in the bank .", "we walk to the bank every day ."]
    model = train_bilm(corpus, size="tiny", epochs=1)
    sentences = [elmo_keras.tokenize(s) for s in corpus]
    together = layer_embeddings(model, sentences, [1, 3, 4])
    alone = np.concatenate([layer_embeddings(model, [s], [p]) for s, p in zip(sentences, [1, 3, 4])], axis=1)
    np.testing.assert_allclose(together, alone, atol=1e-5)
    assert together.shape == (3, 3, 2 * model.bilm.forward_lstm.output_dim)
    with pytest.raises(ValueError, match="outside sentence 0"):
        layer_embeddings(model, sentences[:1], [40])
    with pytest.raises(TypeError, match="sentence 0 must be a list of tokens, received str"):
        layer_embeddings(model, ["the bank"], [1])  # would otherwise be embedded character by character
    with pytest.raises(TypeError, match="sentence 0, token 1: a token must be a str, received int"):
        layer_embeddings(model, [["the", 5]], [0])
    with pytest.raises(ValueError, match="'zebra' .* is not in the model's vocabulary"):
        layer_embeddings(model, [["the", "zebra"]], [1])
    assert layer_embeddings(model, [["the", "zebra", "bank"]], [2]).shape[1] == 1  # unknown context words are fine
