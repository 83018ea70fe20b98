"""fine_tune_pretrained: the bilm-tf test model with a new softmax, trained a few steps on polysemy sentences.

Phase 1 (softmax only) leaves every pretrained weight as loaded; phase 2 changes them; held-out perplexity falls;
the model saves as a model directory (load_bilm gives the same logits) and exports back to the original layout
(load_pretrained_bilm gives the same activations).
"""

import json

import numpy as np
import pytest
from keras import ops

from elmo_keras._quiet import keras
from elmo_keras.data.polysemy import polysemy_sentences
from elmo_keras.layers.bilm import BiLM
from elmo_keras.layers.char_cnn import CharCNN
from elmo_keras.models.bilm.directory import load_bilm
from elmo_keras.models.bilm.language_model import BiLanguageModel
from elmo_keras.pretrained.export import export_pretrained
from elmo_keras.pretrained.fine_tuning import fine_tune_pretrained, set_bilm_trainable
from elmo_keras.pretrained.loader import load_pretrained_bilm
from elmo_keras.pretrained.weights import WeightFileError
from elmo_keras.text.batching import lm_inputs_and_targets

pytestmark = pytest.mark.fixtures

TOLERANCE = 1e-6  # same weights, same computation: saved and reloaded models agree to float32 rounding
# 7 to 14 words: with <S> and </S> every batch pads to 16 steps on JAX (``padded_time``), so its jit compiles one
# training step per phase; 16 sentences in both sets: one inference shape for every perplexity
SHORT_WORDS, LONG_WORDS = 7, 14
CORPUS = [s for s in polysemy_sentences("train") if SHORT_WORDS <= len(s) <= LONG_WORDS][:16]
HELDOUT = [s for s in polysemy_sentences("heldout") if SHORT_WORDS <= len(s) <= LONG_WORDS][:16]
TRAINING = dict(batch_size=8, learning_rate=4e-3, seed=0)  # 2 steps per epoch


@pytest.fixture(scope="module")
def files(shared_fixtures):
    model_dir = shared_fixtures / "elmo_bilm_tf"
    return model_dir / "options.json", model_dir / "lm_weights.hdf5"


def bilm_weights(bilm):
    return [ops.convert_to_numpy(weight) for weight in bilm.weights]


def logits(model, sentences=HELDOUT):
    inputs, _ = lm_inputs_and_targets(sentences, model.vocabulary, model.token_input)
    outputs = model(inputs)
    return [ops.convert_to_numpy(outputs[key]) for key in ("forward_logits", "backward_logits")]


class BiLMSnapshots(keras.callbacks.Callback):
    """The biLM's weights after each epoch (Keras sets ``self.model`` to the model being fitted)."""

    def __init__(self):
        super().__init__()
        self.weights = []

    def on_epoch_end(self, epoch, logs=None):
        self.weights.append(bilm_weights(self.model.bilm))


@pytest.fixture(scope="module")
def fine_tuned(files):
    """Fine-tuned for 1 epoch of the softmax alone + 1 of everything; ``snapshots`` after each epoch."""
    snapshots = BiLMSnapshots()
    model = fine_tune_pretrained(*files, CORPUS, heldout=HELDOUT, softmax_epochs=1, epochs=1, callbacks=[snapshots],
                                 **TRAINING)
    model.snapshots = snapshots.weights
    return model


def test_softmax_phase_keeps_the_pretrained_weights(fine_tuned, files):
    original = bilm_weights(load_pretrained_bilm(*files))
    assert len(fine_tuned.snapshots) == 2
    assert all(np.array_equal(a, b) for a, b in zip(fine_tuned.snapshots[0], original))
    assert len(fine_tuned.training_summary["history"]["loss"]) == 2  # epochs numbered on across both phases


def test_fine_tuning_changes_the_bilm_and_lowers_heldout_perplexity(fine_tuned, files):
    summary = fine_tuned.training_summary
    original = bilm_weights(load_pretrained_bilm(*files))
    changed = [not np.array_equal(a, b) for a, b in zip(bilm_weights(fine_tuned.bilm), original)]
    assert all(changed)
    for direction in ("forward_perplexity", "backward_perplexity"):
        assert summary["heldout"][direction] < summary["heldout_after_softmax"][direction] < \
            summary["heldout_before"][direction]
    assert summary["history"]["loss"][1] < summary["history"]["loss"][0]
    assert fine_tuned.vocabulary.token_to_id("bank") > 3 and fine_tuned.vocab_size == len(fine_tuned.vocabulary)
    assert (fine_tuned.config.token_input, fine_tuned.config.units, fine_tuned.config.projection_dim) == \
        ("char", 64, 16)


def test_model_directory_round_trip(fine_tuned, tmp_path):
    fine_tuned.save(tmp_path / "model")
    loaded = load_bilm(tmp_path / "model")
    assert loaded.config == fine_tuned.config
    assert loaded.vocabulary == fine_tuned.vocabulary
    for ours, theirs in zip(logits(fine_tuned), logits(loaded)):
        np.testing.assert_allclose(theirs, ours, rtol=0, atol=TOLERANCE)
    saved = json.loads((tmp_path / "model" / "training.json").read_text(encoding="utf-8"))
    assert saved["heldout"] == fine_tuned.training_summary["heldout"]


def test_export_of_the_fine_tuned_model_reloads_with_the_same_outputs(fine_tuned, files, tmp_path):
    with pytest.raises(ValueError, match="fine-tuned from"):
        export_pretrained(fine_tuned, tmp_path / "options.json", files[1])
    export_pretrained(fine_tuned, tmp_path / "options.json", tmp_path / "weights.hdf5")
    reloaded = load_pretrained_bilm(tmp_path / "options.json", tmp_path / "weights.hdf5")
    inputs, _ = lm_inputs_and_targets(HELDOUT, fine_tuned.vocabulary, "char")
    for ours, theirs in zip(fine_tuned.bilm(inputs)["activations"], reloaded(inputs)["activations"]):
        np.testing.assert_allclose(ops.convert_to_numpy(theirs), ops.convert_to_numpy(ours), rtol=0, atol=TOLERANCE)


def test_bad_requests_fail_before_training(files, tmp_path):
    with pytest.raises(ValueError, match="corpus has no sentences"):
        fine_tune_pretrained(*files, [])
    with pytest.raises(ValueError, match="original ELMo models read characters"):
        fine_tune_pretrained(*files, CORPUS, token_input="word")
    with pytest.raises(ValueError, match="nothing to train"):
        fine_tune_pretrained(*files, CORPUS, epochs=0, softmax_epochs=0)
    options = json.loads(files[0].read_text(encoding="utf-8"))
    options["lstm"]["dim"] = 32
    (tmp_path / "options.json").write_text(json.dumps(options), encoding="utf-8")
    with pytest.raises(WeightFileError, match="lstm.dim = 32"):
        fine_tune_pretrained(tmp_path / "options.json", files[1], CORPUS)


def test_an_identity_token_projection_stays_frozen():
    """Filters as wide as the LSTM: bilm-tf has no CNN_proj, the loader puts an identity there, and exporting
    needs it unchanged, so the biLM trains without it."""
    encoder = CharCNN(embedding_dim=4, filters=[[1, 4], [2, 4]], n_highway=1, projection_dim=8)
    model = BiLanguageModel(BiLM(encoder, units=8, num_layers=1), vocab_size=5)
    model.build((None, None, 50))
    softmax = {id(model.softmax.kernel), id(model.softmax.bias)}
    projection = {id(model.bilm.token_encoder.projection.kernel), id(model.bilm.token_encoder.projection.bias)}
    set_bilm_trainable(model, False)
    assert {id(v) for v in model.trainable_variables} == softmax
    set_bilm_trainable(model, True)
    assert {id(v) for v in model.trainable_variables} == {id(v) for v in model.weights} - projection
