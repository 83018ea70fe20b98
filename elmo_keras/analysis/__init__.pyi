"""The names ``elmo_keras.analysis`` exports (read by ``_lazy.attach_stub``)."""

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
