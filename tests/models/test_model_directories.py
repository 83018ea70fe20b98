"""Every model family saves and loads one way: ``model.save(directory)`` and ``Family.from_preset(directory)``
(``models.model_directory``); the older ``save_*``/``load_*`` functions are aliases that read and write the same
directories; the trainers take the data first and keyword-only options, and the old kind-first order is one line.
The taggers (``MultiTaskTagger``, ``TagLM``, through ``SequenceTagger``) are a family like the others."""

import numpy as np
import pytest

from elmo_keras.models.bilm.language_model import BiLanguageModel
from elmo_keras.models.bilm.training import train_bilm
from elmo_keras.models.classifiers.base import TextClassifier
from elmo_keras.models.classifiers.persistence import load_classifier, save_classifier
from elmo_keras.models.classifiers.training import train_text_classifier
from elmo_keras.models.dialogue.hred import HRED
from elmo_keras.models.dialogue.persistence import load_dialogue_model
from elmo_keras.models.dialogue.training import train_dialogue_model
from elmo_keras.models.dialogue.vhred import VHRED
from elmo_keras.models.seq2seq.model import Seq2Seq
from elmo_keras.models.seq2seq.persistence import load_seq2seq, save_seq2seq
from elmo_keras.models.seq2seq.training import train_seq2seq
from elmo_keras.tagging.multitask import MultiTaskTagger
from elmo_keras.tagging.persistence import load_tagger, save_tagger
from elmo_keras.tagging.sequence_tagger import SequenceTagger
from elmo_keras.tagging.taglm import TagLM
from elmo_keras.tagging.training import train_multitask_tagger, train_taglm

PAIRS = [("a b", "b a"), ("c d", "d c")] * 4
SENTENCES, LABELS = ["good film", "bad film"] * 4, ["pos", "neg"] * 4
DIALOGUES = [(["i had sushi"], "was it tasty ?"), (["my team won"], "who scored ?")] * 4
TAGGED = [(["the", "bank"], ["DET", "NOUN"]), (["a", "river"], ["DET", "NOUN"])] * 4
ENTITIES = [(["George", "went", "home"], ["S-PER", "O", "O"]), (["to", "New", "York"], ["O", "B-LOC", "E-LOC"])] * 4
SMALL_TAGGER = {"epochs": 1, "word_dim": 4, "units": 4, "batch_size": 4, "min_count": 1}
SMALL_DIALOGUE = {"epochs": 1, "embedding_dim": 4, "utterance_units": 4, "context_units": 4, "decoder_units": 4,
                  "batch_size": 4}


def _same_weights(a, b):
    for x, y in zip(a.get_weights(), b.get_weights()):
        np.testing.assert_array_equal(x, y)


def test_seq2seq_saves_and_loads_one_way(tmp_path):
    model = train_seq2seq(PAIRS, config={"units": 8, "embedding_dim": 4, "epochs": 1})
    model.save(tmp_path / "m")
    loaded = Seq2Seq.from_preset(tmp_path / "m")
    assert loaded.vocabulary == model.vocabulary and loaded.config == model.config
    _same_weights(model, loaded)
    save_seq2seq(model, tmp_path / "alias")  # the alias writes what save writes
    _same_weights(load_seq2seq(tmp_path / "alias"), loaded)


def test_a_classifier_saves_and_loads_one_way(tmp_path):
    model = train_text_classifier(SENTENCES, LABELS, kind="cnn", epochs=1, embedding_dim=4, filters_per_height=2)
    model.save(tmp_path / "m")
    loaded = TextClassifier.from_preset(tmp_path / "m")
    assert loaded.class_names == model.class_names and loaded.vocabulary == model.vocabulary
    _same_weights(model, loaded)
    save_classifier(model, tmp_path / "alias")
    _same_weights(load_classifier(tmp_path / "alias"), loaded)


def test_hred_and_vhred_save_and_load_one_way(tmp_path):
    hred = train_dialogue_model(DIALOGUES, kind="hred", **SMALL_DIALOGUE)
    vhred = train_dialogue_model(DIALOGUES, kind="vhred", latent_dim=2, latent_hidden=4, **SMALL_DIALOGUE)
    hred.save(tmp_path / "hred")
    vhred.save(tmp_path / "vhred")
    assert type(HRED.from_preset(tmp_path / "hred")) is HRED
    loaded = VHRED.from_preset(tmp_path / "vhred")
    assert type(loaded) is VHRED and type(HRED.from_preset(tmp_path / "vhred")) is VHRED
    _same_weights(vhred, loaded)
    assert type(load_dialogue_model(tmp_path / "vhred", kind="vhred")) is VHRED  # the alias, insisting on a kind
    with pytest.raises(ValueError, match="holds a HRED, not a VHRED"):
        load_dialogue_model(tmp_path / "hred", kind="vhred")


def test_the_taggers_save_and_load_one_way(tmp_path):
    tagger = train_multitask_tagger({"pos": TAGGED}, heads="crf", **SMALL_TAGGER)
    taglm = train_taglm(ENTITIES, **SMALL_TAGGER)
    tagger.save(tmp_path / "tagger")
    taglm.save(tmp_path / "taglm")
    loaded = MultiTaskTagger.from_preset(tmp_path / "tagger")
    assert type(loaded) is MultiTaskTagger and loaded.vocabulary == tagger.vocabulary and loaded.config == tagger.config
    _same_weights(tagger, loaded)
    assert type(SequenceTagger.from_preset(tmp_path / "taglm")) is TagLM  # the base loads either tagger
    _same_weights(TagLM.from_preset(tmp_path / "taglm"), taglm)
    with pytest.raises(ValueError, match="holds a TagLM, not a MultiTaskTagger"):
        MultiTaskTagger.from_preset(tmp_path / "taglm")
    save_tagger(taglm, tmp_path / "alias")  # the aliases write and read what save / from_preset do
    loaded = load_tagger(tmp_path / "alias")
    sentence = [["George", "went", "home"]]
    assert type(loaded) is TagLM and loaded.predict_tags(sentence) == taglm.predict_tags(sentence)


def test_the_bilm_saves_and_loads_the_same_way(tmp_path):
    model = train_bilm(["the bank", "the river bank"] * 4, size="tiny", epochs=1)
    model.save(tmp_path / "m")
    _same_weights(model, BiLanguageModel.from_preset(tmp_path / "m"))
    with pytest.raises(TypeError, match="takes a model directory"):
        Seq2Seq.from_preset(3)


@pytest.mark.parametrize("call, message", [
    (lambda: train_text_classifier("cnn", SENTENCES), "train_text_classifier(sentences, labels, kind='cnn')"),
    (lambda: train_dialogue_model("vhred"), "train_dialogue_model(examples, kind='vhred')"),
    (lambda: train_seq2seq(PAIRS, {"units": 8}), "positional argument"),
    (lambda: train_bilm(["a b"], "tiny"), "positional argument"),
    (lambda: train_multitask_tagger({"pos": TAGGED}, "crf"), "positional argument"),
    (lambda: train_taglm(ENTITIES, None), "positional argument"),
])
def test_trainers_take_the_data_first_and_keyword_options(call, message):
    with pytest.raises(TypeError) as raised:
        call()
    assert message in str(raised.value) and "\n" not in str(raised.value)
