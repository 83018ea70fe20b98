"""The explorer's computations read the number of layers from the model: over an (untrained) word-level
``TransformerBiLM`` with 4 layers per direction, Context similarity, PCA and Layer weights show its 1 + 4 layers, as
do their charts — nothing assumes the LSTM toy model's 3."""

from __future__ import annotations

import pytest

from elmo_keras.explorer.corpus import builtin_corpus
from elmo_keras.explorer.layer_weights import charts as layer_weight_charts
from elmo_keras.explorer.layer_weights.probe_tasks import corpus_activations, sense_task
from elmo_keras.explorer.layer_weights.service import fit_mix_and_probes
from elmo_keras.explorer.projection import charts as projection_charts
from elmo_keras.explorer.projection.service import pca_view
from elmo_keras.explorer.similarity import charts as similarity_charts
from elmo_keras.explorer.similarity.service import context_similarity
from elmo_keras.layers import TransformerBiLM, WordEmbedding
from elmo_keras.models.bilm.language_model import BiLanguageModel
from elmo_keras.text.vocabulary import Vocabulary

NUM_LAYERS = 4


@pytest.fixture(scope="module")
def corpus():
    return builtin_corpus()


@pytest.fixture(scope="module")
def model(corpus):
    vocabulary = Vocabulary.from_corpus(list(corpus["tokens"]))
    bilm = TransformerBiLM(WordEmbedding(len(vocabulary), 8), hidden_dim=16, num_layers=NUM_LAYERS, num_heads=2)
    model = BiLanguageModel(bilm, vocab_size=len(vocabulary))
    model.vocabulary = vocabulary
    return model


def test_similarity_and_pca_show_every_layer_of_the_model(model, corpus):
    similarity = context_similarity(model, corpus, "bank", per_sense=4)
    assert similarity.num_layers == NUM_LAYERS + 1 == len(similarity.summary)
    heatmaps = similarity_charts.similarity_heatmaps(similarity)
    titles = [f"layer {j}" for j in range(NUM_LAYERS + 1)]
    assert [annotation.text for annotation in heatmaps.layout.annotations][: NUM_LAYERS + 1] == titles
    projection = pca_view(model, corpus, "bank")
    assert projection.num_layers == NUM_LAYERS + 1 == len(projection.variance)
    assert len(projection_charts.pca_scatter(projection).layout.annotations) == NUM_LAYERS + 1


def test_layer_weights_mix_and_probe_every_layer_of_the_model(model, corpus):
    task = sense_task(corpus, corpus_activations(model, corpus))
    assert task.num_layers == NUM_LAYERS + 1 == task.train_features.shape[1]
    head, probe_accuracies = fit_mix_and_probes(task, seed=0, epochs=1)
    assert head.weights.shape == probe_accuracies.shape == (NUM_LAYERS + 1,)
    chart = layer_weight_charts.mix_weights(head.weights, head.gamma, "learned")
    assert list(chart.data[0].x) == [f"layer {j}" for j in range(NUM_LAYERS + 1)]  # one bar per layer
