"""The training input: the batch plan, the tf.data pipeline that gathers it, and compiled inference."""

from __future__ import annotations

import gc
import weakref

import numpy as np

from elmo_keras.data import polysemy_sentences
from elmo_keras.embedding.inference import bilm_activations
from elmo_keras.models.bilm import batches as batches_module
from elmo_keras.models.bilm.batches import ShuffledBatches, training_batches
from elmo_keras.models.bilm.compiled import lm_logits
from elmo_keras.models.bilm.training import train_bilm
from elmo_keras.text import Vocabulary
from elmo_keras.text.batching import lm_inputs_and_targets
from elmo_keras.text.sentences import as_token_lists
from tests.support.backend_support import BACKEND, tensorflow_only, to_numpy


def corpus_batches(seed=0, batch_size=32):
    sentences = as_token_lists(polysemy_sentences("train"))
    vocabulary = Vocabulary.from_corpus(sentences, lowercase=True)
    return ShuffledBatches(sentences, vocabulary, "word", batch_size, seed=seed)


def test_every_epoch_covers_every_sentence_once_in_length_sorted_batches():
    batches = corpus_batches()
    for epoch in range(3):
        plan = batches.epoch_batches(epoch)
        assert sorted(i for batch in plan for i in batch) == list(range(len(batches.sentences)))
        assert len(plan) == len(batches) and all(len(batch) <= 32 for batch in plan)
    assert batches.epoch_batches(0) != batches.epoch_batches(1)  # reshuffled every epoch
    assert batches.epoch_batches(1) == corpus_batches().epoch_batches(1)  # deterministic for a seed
    assert batches.epoch_batches(1) != corpus_batches(seed=1).epoch_batches(1)


def test_first_two_batches_differ_in_length_so_the_time_axis_stays_symbolic():
    for seed in range(5):
        batches = corpus_batches(seed)
        for epoch in range(3):
            first, second = batches.epoch_batches(epoch)[:2]
            assert batches.batch_length(first) != batches.batch_length(second)


def test_padding_per_batch_is_small():
    """Pooled sorting keeps a batch's sentences of similar length: under 15% padding on the corpus."""
    batches = corpus_batches()
    real = sum(len(s) + 2 for s in batches.sentences)
    longest = [max(len(batches.sentences[i]) for i in batch) + 2 for batch in batches.epoch_batches(0)]
    padded = sum(len(batch) * steps for batch, steps in zip(batches.epoch_batches(0), longest))
    assert padded < 1.15 * real  # (JAX pads further, to multiples of 8 steps: _backend.padded_time)


@tensorflow_only("the tf.data pipeline is the TensorFlow backend's way of feeding fit")
def test_the_tf_data_pipeline_yields_the_pydataset_batches():
    batches = corpus_batches(batch_size=48)
    pipeline = list(training_batches(batches, epochs=2).as_numpy_iterator())
    assert len(pipeline) == 2 * len(batches)
    expected = [batches[k] for k in range(len(batches))]
    batches.on_epoch_end()
    expected += [batches[k] for k in range(len(batches))]
    for (inputs, targets), (want_inputs, want_targets) in zip(pipeline, expected):
        np.testing.assert_array_equal(inputs, want_inputs)
        np.testing.assert_array_equal(targets, want_targets)
    assert {inputs.shape[0] for inputs, _ in pipeline} == {48}  # the last batch is filled with empty rows
    assert len({inputs.shape[1] for inputs, _ in pipeline}) > 3  # each batch has its own length


def test_compiled_inference_equals_calling_the_model(tiny_model):
    sentences = [["the", "bank", "of", "the", "river"], ["play"], ["i", "paid", "the", "bank", "right", "away", "."]]
    inputs, _ = lm_inputs_and_targets(sentences, tiny_model.vocabulary, "word")
    eager = np.stack([to_numpy(a) for a in tiny_model.bilm(inputs, training=False)["activations"]])
    np.testing.assert_allclose(bilm_activations(tiny_model.bilm, inputs), eager, atol=1e-6)
    alone, _ = lm_inputs_and_targets(sentences[:1], tiny_model.vocabulary, "word")  # another shape, the same graph
    np.testing.assert_allclose(bilm_activations(tiny_model.bilm, alone), eager[:, :1, : alone.shape[1]], atol=1e-6)
    outputs = tiny_model(inputs, training=False)
    forward, backward = lm_logits(tiny_model, inputs)
    np.testing.assert_allclose(forward, to_numpy(outputs["forward_logits"]), atol=1e-5)
    np.testing.assert_allclose(backward, to_numpy(outputs["backward_logits"]), atol=1e-5)


def test_compiled_inference_does_not_keep_models_alive(tiny_models_dir):
    from elmo_keras.explorer.model_store import find_model, load_model
    from tests.support.explorer_fixtures import TINY_NAME

    model = load_model(find_model(tiny_models_dir, TINY_NAME).ref)
    inputs, _ = lm_inputs_and_targets([["the", "bank"]], model.vocabulary, "word")
    bilm_activations(model.bilm, inputs)
    lm_logits(model, inputs)
    alive = weakref.ref(model)
    del model
    gc.collect()
    assert alive() is None


def test_a_corpus_too_large_to_hold_encoded_is_fed_batch_by_batch(monkeypatch):
    batches = corpus_batches()
    planned = batches_module.PlannedBatches(batches, epochs=2)
    assert len(planned) == 2 * len(batches)
    np.testing.assert_array_equal(planned[len(batches)][0], batches.encoded(batches.epoch_batches(1)[0])[0])
    monkeypatch.setattr(batches_module, "MAX_GATHERED_BYTES", 1000)
    batches = corpus_batches(batch_size=8)
    planned = batches_module.PlannedBatches(batches, epochs=2)
    # resumed where the first two batches fed have the same length: a signature read from them would fix the time
    # axis, and the next batch of another length would fail
    lengths = [batches.batch_length(batch) for batch in batches.epoch_batches(0)]
    start = next(k for k in range(len(lengths) - 2) if lengths[k] == lengths[k + 1] != lengths[k + 2])
    fed = training_batches(batches, epochs=2, start_step=start)
    if BACKEND != "tensorflow":
        assert isinstance(fed, batches_module.PlannedBatches) and len(fed) == 2 * len(batches) - start
        return
    assert fed.element_spec[0].shape.as_list() == [batches.batch_size, None]
    items = list(fed)
    assert len(items) == 2 * len(batches) - start
    for index, (inputs, targets) in enumerate(items):
        expected_inputs, expected_targets = planned[start + index]
        np.testing.assert_array_equal(inputs.numpy(), expected_inputs)
        np.testing.assert_array_equal(targets.numpy(), expected_targets)


def test_training_from_the_pydataset_works_too(monkeypatch):
    monkeypatch.setattr(batches_module, "MAX_GATHERED_BYTES", 0)
    corpus = ["the bank of the river .", "the bank raised its rates .", "they play chess .", "turn right ."] * 10
    model = train_bilm(corpus, size="tiny", epochs=2, batch_size=8, seed=1)
    assert len(model.training_summary["history"]["loss"]) == 2
    assert model.training_summary["history"]["loss"][1] < model.training_summary["history"]["loss"][0]
