"""TagLM: the frozen biLM's vectors join between the two BiLSTM layers; the biLM never trains; the constrained CRF
never outputs an invalid BIOES sequence; it saves and loads with its biLM."""

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.data import ner_examples, tagging_unlabelled_sentences
from elmo_keras.models import train_bilm
from elmo_keras.tagging import is_valid_sequence
from elmo_keras.tagging.layers import frozen_elmo
from elmo_keras.tagging.persistence import load_tagger, save_tagger
from elmo_keras.tagging.training import train_taglm

HELDOUT = ner_examples("heldout")


@pytest.fixture(scope="module")
def bilm():
    return train_bilm(tagging_unlabelled_sentences()[:400], size="tiny", epochs=1, seed=0)


@pytest.fixture(scope="module")
def taglm(bilm):
    return train_taglm(ner_examples("train")[:80], bilm=bilm, epochs=2, seed=0)


def test_the_bilm_stays_frozen_and_the_callers_model_stays_trainable(bilm, taglm):
    inner = taglm.elmo.bilm
    assert not inner.trainable and inner is not bilm.bilm and bilm.bilm.trainable
    for ours, original in zip(inner.get_weights(), bilm.bilm.get_weights()):
        np.testing.assert_array_equal(ours, original)  # two epochs of TagLM training did not move it
    assert not any(v is w for v in taglm.trainable_variables for w in inner.weights)


def test_top_mode_reads_exactly_the_top_layer(bilm):
    elmo = frozen_elmo(bilm.bilm, "top")
    ids = np.array([[5, 6, 7, 0], [8, 9, 0, 0]], np.int32)
    outputs = elmo(ids)
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(outputs["elmo_representations"][0]),
                                  keras.ops.convert_to_numpy(outputs["activations"][-1]))
    assert not elmo.trainable_weights


def test_constrained_decoding_never_outputs_an_invalid_bioes_sequence(taglm):
    predicted = taglm.predict_tags([tokens for tokens, _ in HELDOUT])["ner"]
    assert len(predicted) == len(HELDOUT) and all(is_valid_sequence(tags, "BIOES") for tags in predicted)


def test_saved_with_its_bilm_and_loaded_back(taglm, tmp_path):
    save_tagger(taglm, tmp_path / "taglm")
    loaded = load_tagger(tmp_path / "taglm")
    assert type(loaded).__name__ == "TagLM" and loaded.vocabulary.use_bilm
    inputs = taglm.vocabulary.encode_inputs([tokens for tokens, _ in HELDOUT[:8]])
    np.testing.assert_allclose(keras.ops.convert_to_numpy(loaded(inputs)["ner"]),
                               keras.ops.convert_to_numpy(taglm(inputs)["ner"]), atol=1e-6)


def test_without_a_bilm_and_with_a_softmax_head():
    model = train_taglm(ner_examples("train")[:40], head="softmax", epochs=1, seed=0)
    assert model.elmo is None and model.head("ner").crf is None and not model.vocabulary.use_bilm
    assert len(model.predict_tags(["Jordan visited Paris ."])["ner"][0]) == 4


def test_a_word_level_bilm_layer_without_its_vocabulary_is_refused(bilm):
    with pytest.raises(ValueError, match="a word-level BiLM layer needs its vocabulary"):
        train_taglm(ner_examples("train")[:10], bilm=bilm.bilm)
