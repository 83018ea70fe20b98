"""Occurrences, similarity matrices and PCA of one word, on the tiny model — without Streamlit."""

from __future__ import annotations

import numpy as np
import pytest

from elmo_keras.analysis.similarity import cosine_similarity_matrices
from elmo_keras.explorer.corpus import builtin_corpus
from elmo_keras.explorer.occurrences import ordered_occurrences, snippet, split_typed, subsample_per_sense
from elmo_keras.explorer.projection.service import pca_view
from elmo_keras.explorer.similarity.service import context_similarity, one_vector_layers

TYPED = "We fished from the muddy bank all day.\nThis line lacks the word."


@pytest.fixture(scope="module")
def corpus():
    return builtin_corpus()


def test_split_typed_and_snippet():
    accepted, rejected = split_typed(TYPED + "\n\n", "Bank")
    assert accepted == ["We fished from the muddy bank all day."] and rejected == ["This line lacks the word."]
    assert snippet(["a", "b", "c", "bank", "d", "e", "f", "g"], 3, 2) == "…b c BANK d e…"
    assert snippet(["bank", "x"], 0, 3) == "BANK x"


def test_subsample_keeps_at_most_n_per_sense_and_every_typed_sentence():
    senses = ["a"] * 10 + ["b"] * 3 + ["typed"] * 5
    keep = subsample_per_sense(senses, 4)
    chosen = [senses[i] for i in keep]
    assert chosen.count("a") == 4 and chosen.count("b") == 3 and chosen.count("typed") == 5
    assert list(keep) == sorted(keep) and keep[0] == 0 and 9 in keep
    assert len(subsample_per_sense(senses, None)) == len(senses)


def test_occurrences_are_ordered_by_sense_with_typed_last(tiny_model, corpus):
    ordered = ordered_occurrences(tiny_model, corpus, "bank", TYPED)
    senses = ordered.occurrences.senses
    assert ordered.senses_in_order == ["money", "river", "typed"]
    assert senses == sorted(senses, key=ordered.senses_in_order.index)
    assert senses[-1] == "typed" and ordered.rejected_typed == ["This line lacks the word."]
    assert ordered.occurrences.embeddings.shape[:2] == (3, ordered.count)


def test_context_similarity_shows_layer_0_identical_and_summarises_every_layer(tiny_model, corpus):
    view = context_similarity(tiny_model, corpus, "bank", TYPED, per_sense=5)
    assert view.matrices.shape == (3, 11, 11) and len(view.labels) == len(view.sentences) == 11
    assert view.blocks == [("money", 0, 5), ("river", 5, 10), ("typed", 10, 11)]
    assert view.constant_layers == [0] and np.allclose(view.matrices[0], 1.0, atol=1e-5)
    assert not np.allclose(view.matrices[2], 1.0, atol=1e-3)  # context moves the vectors in higher layers
    assert view.labels[-1].startswith("typed · ") and "BANK" in view.labels[0]
    assert list(view.summary["layer"]) == [0, 1, 2]
    assert view.summary.loc[0, "within_sense"] == pytest.approx(1.0) and view.summary.loc[0, "heldout_accuracy"] == 0.0
    labelled = view.labelled
    assert view.total == labelled + 1 and labelled == int((corpus["word"] == "bank").sum())
    assert view.findings[0].startswith("Layer 0: every occurrence of 'bank' has the same vector")
    assert any("Held-out sense separation is best in layer" in f for f in view.findings)


def test_a_word_outside_the_corpus_needs_a_typed_sentence(tiny_model, corpus):
    with pytest.raises(ValueError, match="does not occur in the corpus"):
        context_similarity(tiny_model, corpus, "zebra")
    view = context_similarity(tiny_model, corpus, "zebra", "A zebra ran .\nThe zebra slept .")
    assert view.senses == ["typed", "typed"] and np.isnan(view.summary["heldout_accuracy"]).all()
    assert "'zebra' is not in this word-level model's vocabulary" in view.findings[0]  # it reads <unk>
    assert pca_view(tiny_model, corpus, "zebra", "A zebra ran .\nThe zebra slept .").unknown_note == view.findings[0]
    assert not any("vocabulary" in f for f in context_similarity(tiny_model, corpus, "bank").findings)
    with pytest.raises(ValueError, match="Choose a word"):
        context_similarity(tiny_model, corpus, "  ")


def test_pca_view_has_a_point_per_occurrence_and_layer(tiny_model, corpus):
    view = pca_view(tiny_model, corpus, "play", TYPED.replace("bank", "play"), n_components=2)
    n = int((corpus["word"] == "play").sum()) + 1
    assert len(view.points) == 3 * n and set(view.points["layer"]) == {0, 1, 2}
    assert list(view.variance.columns) == ["layer", "PC1", "PC2", "total"]
    assert view.collapsed_layers == [0] and view.variance.loc[0, "total"] == 0.0
    assert 0 < view.variance.loc[2, "PC1"] <= 1 and view.variance.loc[2, "PC1"] >= view.variance.loc[2, "PC2"]
    layer2 = view.points[view.points["layer"] == 2]
    assert layer2[["x", "y"]].abs().to_numpy().max() > 0 and (layer2["z"] == 0).all()
    three = pca_view(tiny_model, corpus, "play", n_components=3)
    assert "PC3" in three.variance.columns and (three.points["z"] != 0).any()
    with pytest.raises(ValueError, match="n_components must be 2 or 3"):
        pca_view(tiny_model, corpus, "play", n_components=4)


def test_one_vector_layers_compares_the_vectors_not_a_noisy_statistic():
    rng = np.random.default_rng(0)
    vector = rng.normal(0, 2.0, 512).astype(np.float32)
    same = np.repeat(vector[None], 523, axis=0)  # a frequent word's context-free layer: bit-identical vectors
    assert float(np.var(same, axis=0).sum()) > 1e-9  # float32 rounding: the old variance test missed this layer
    moved = same + rng.normal(0, 0.01, same.shape).astype(np.float32)  # context moves the vectors
    scaled = same * np.linspace(0.5, 2.0, 523, dtype=np.float32)[:, None]  # parallel (cosine 1), not the same
    assert one_vector_layers(np.stack([same, moved, scaled])) == [0]
    assert one_vector_layers(np.stack([same * (1 + 1e-7 * (np.arange(523) % 2))[:, None].astype(np.float32)])) == [0]
    assert one_vector_layers(same[None, :1]) == []  # one occurrence: nothing to compare


def test_a_frequent_words_context_free_layer_is_one_point(tiny_model, corpus):
    view = pca_view(tiny_model, corpus, "the")
    assert view.collapsed_layers == [0] and view.variance.loc[0, "total"] == 0.0
    assert (view.points.loc[view.points["layer"] == 0, ["x", "y"]].to_numpy() == 0).all()
    assert context_similarity(tiny_model, corpus, "the").constant_layers == [0]


def test_a_word_without_sense_labels_says_why_there_is_no_summary(tiny_model, corpus):
    view = context_similarity(tiny_model, corpus, "the", per_sense=4)
    assert view.labelled == 0 and not view.has_summary and list(view.computed_summary.columns) == ["layer"]
    assert view.summary_note.startswith("No occurrence of 'the' has a sense label")
    assert "pick a word the corpus labels (bank, play, right)" in view.summary_note
    assert view.matrices.shape == (3, 4, 4)  # the matrices stay
    unlabelled = corpus.assign(word="", sense="")  # e.g. an uploaded plain-text corpus
    assert "this corpus labels no word at all" in context_similarity(tiny_model, unlabelled, "bank").summary_note
    labelled = context_similarity(tiny_model, corpus, "bank")
    assert labelled.summary_note is None and labelled.has_summary
    assert list(labelled.computed_summary.columns) == list(labelled.summary.columns)


def test_a_word_with_one_sense_or_no_heldout_labels_says_what_is_missing(tiny_model, corpus):
    one_sense = corpus[(corpus["word"] != "bank") | (corpus["sense"] == "money")]
    view = context_similarity(tiny_model, one_sense, "bank")
    assert view.summary_note.startswith(f"All {view.labelled} sense-labelled occurrences of 'bank' have the sense "
                                        "'money'") and view.has_summary
    assert list(view.computed_summary.columns) == ["layer", "within_sense"]
    train_only = corpus[corpus["split"] == "train"]
    view = context_similarity(tiny_model, train_only, "bank")
    assert view.summary_note.startswith("Held-out sense separation cannot be computed for 'bank'")
    assert "heldout_accuracy" not in view.computed_summary.columns and "gap" in view.computed_summary.columns


def test_pca_needs_two_occurrences(tiny_model, corpus):
    with pytest.raises(ValueError, match="occurs only once"):
        pca_view(tiny_model, corpus, "zebra", "A zebra ran .")


def test_matrices_agree_with_the_analysis_helpers(tiny_model, corpus):
    ordered = ordered_occurrences(tiny_model, corpus, "right")
    view = context_similarity(tiny_model, corpus, "right", per_sense=None)
    np.testing.assert_allclose(view.matrices, cosine_similarity_matrices(ordered.occurrences.embeddings))
