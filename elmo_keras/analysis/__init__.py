"""Analysis helpers: per-layer word vectors, cosine similarity, PCA and sense separation."""

from elmo_keras.analysis.embeddings import is_unknown_word, layer_embeddings, sentence_activations
from elmo_keras.analysis.senses import WordOccurrences, find_occurrences, sense_separation, word_occurrences
from elmo_keras.analysis.similarity import (
    LayerProjection,
    cosine_similarity_matrices,
    nearest_centroid_accuracy,
    pca_per_layer,
    within_across_similarity,
)

__all__ = [
    "LayerProjection", "WordOccurrences", "cosine_similarity_matrices", "find_occurrences", "is_unknown_word",
    "layer_embeddings",
    "nearest_centroid_accuracy", "pca_per_layer", "sense_separation", "sentence_activations", "word_occurrences",
    "within_across_similarity",
]
