"""Analysis helpers: per-layer word vectors, cosine similarity, PCA and sense separation; the gradient-flow study
(vanishing gradients, clipping vs gating) and the worked convolution example (imported on first use, ``_lazy``)."""

from typing import TYPE_CHECKING

from elmo_keras._lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "elmo_keras.analysis.convolution_example": ["convolution_steps", "feature_map", "feature_map_length",
                                                "feature_maps_by_height", "max_pool"],
    "elmo_keras.analysis.embeddings": ["is_unknown_word", "layer_embeddings", "sentence_activations"],
    "elmo_keras.analysis.gradient_study.cells": ["ForgetGateLSTMCell", "TanhRNNCell"],
    "elmo_keras.analysis.gradient_study.flow": ["clip_by_norm", "clipnorm_optimizer_step", "far_near_ratio",
                                          "gradient_norms_by_distance", "state_gradients"],
    "elmo_keras.analysis.gradient_study.models": ["RecurrentClassifier"],
    "elmo_keras.analysis.gradient_study.results": ["GradientStudy", "gradient_study", "measure_gradients"],
    "elmo_keras.analysis.gradient_study.task": ["remember_first_batch", "train_remember_first"],
    "elmo_keras.analysis.senses": ["WordOccurrences", "find_occurrences", "sense_separation", "word_occurrences"],
    "elmo_keras.analysis.similarity": ["LayerProjection", "cosine_similarity_matrices", "nearest_centroid_accuracy",
                                       "pca_per_layer", "within_across_similarity"],
})

if TYPE_CHECKING:  # what static tools and IDEs see
    from elmo_keras.analysis.convolution_example import (
        convolution_steps,
        feature_map,
        feature_map_length,
        feature_maps_by_height,
        max_pool,
    )
    from elmo_keras.analysis.embeddings import is_unknown_word, layer_embeddings, sentence_activations
    from elmo_keras.analysis.gradient_study.cells import ForgetGateLSTMCell, TanhRNNCell
    from elmo_keras.analysis.gradient_study.flow import (
        clip_by_norm,
        clipnorm_optimizer_step,
        far_near_ratio,
        gradient_norms_by_distance,
        state_gradients,
    )
    from elmo_keras.analysis.gradient_study.models import RecurrentClassifier
    from elmo_keras.analysis.gradient_study.results import GradientStudy, gradient_study, measure_gradients
    from elmo_keras.analysis.gradient_study.task import remember_first_batch, train_remember_first
    from elmo_keras.analysis.senses import WordOccurrences, find_occurrences, sense_separation, word_occurrences
    from elmo_keras.analysis.similarity import (
        LayerProjection,
        cosine_similarity_matrices,
        nearest_centroid_accuracy,
        pca_per_layer,
        within_across_similarity,
    )

__all__ = [
    "ForgetGateLSTMCell", "GradientStudy", "LayerProjection", "RecurrentClassifier", "TanhRNNCell", "WordOccurrences",
    "clip_by_norm", "clipnorm_optimizer_step", "convolution_steps", "cosine_similarity_matrices", "far_near_ratio",
    "feature_map", "feature_map_length", "feature_maps_by_height", "find_occurrences", "gradient_norms_by_distance",
    "gradient_study", "is_unknown_word", "layer_embeddings", "max_pool", "measure_gradients",
    "nearest_centroid_accuracy", "pca_per_layer", "remember_first_batch", "sense_separation", "sentence_activations",
    "state_gradients", "train_remember_first", "within_across_similarity", "word_occurrences",
]
