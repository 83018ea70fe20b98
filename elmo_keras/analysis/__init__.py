"""Analysis helpers: per-layer word vectors, cosine similarity, PCA and sense separation (imported on first use,
``_lazy``)."""

from typing import TYPE_CHECKING

from elmo_keras._lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "elmo_keras.analysis.embeddings": ["is_unknown_word", "layer_embeddings", "sentence_activations"],
    "elmo_keras.analysis.senses": ["WordOccurrences", "find_occurrences", "sense_separation", "word_occurrences"],
    "elmo_keras.analysis.similarity": ["LayerProjection", "cosine_similarity_matrices", "nearest_centroid_accuracy",
                                       "pca_per_layer", "within_across_similarity"],
})

if TYPE_CHECKING:  # what static tools and IDEs see
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
