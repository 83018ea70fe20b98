"""``train_bilm`` / ``train_seq2seq``: malformed corpora and callbacks are clear errors, raised before training."""

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.models.bilm import training
from elmo_keras.models.bilm.training import train_bilm
from elmo_keras.models.callbacks import as_keras_callbacks
from elmo_keras.models.seq2seq import train_seq2seq
from elmo_keras.text.sentences import as_token_lists, sentence_tokens


@pytest.fixture
def no_model(monkeypatch):
    """The errors must come before a model is built: building one here fails the test."""

    def build_bilm_lm(*args, **kwargs):
        raise AssertionError("a model was built although the input was bad")

    monkeypatch.setattr(training, "build_bilm_lm", build_bilm_lm)


@pytest.mark.parametrize("corpus, error, message", [
    ([["a", 5]], TypeError, r"corpus sentence 0, token 1: a token must be a str, received int: 5; convert tokens "
                            r"first"),
    (["the bank", ["a", None]], TypeError, r"corpus sentence 1, token 1: a token must be a str, received "
                                           r"NoneType: None"),
    (["the bank", 7], TypeError, r"corpus sentence 1 must be a str or a list of str tokens, received int \(7\)"),
    (["the bank", "  "], ValueError, r"corpus sentence 1 is empty"),
    ("the bank", TypeError, r"corpus must be a list of sentences, received a single str; wrap it in a list"),
    ([], ValueError, r"corpus has no sentences"),
])
def test_bad_corpus(no_model, corpus, error, message):
    with pytest.raises(error, match=message):
        train_bilm(corpus, size="tiny", epochs=1)


def test_bad_heldout(no_model):
    with pytest.raises(TypeError, match=r"heldout sentence 0, token 0: a token must be a str, received float"):
        train_bilm(["the bank"], size="tiny", epochs=1, heldout=[[1.5]])


def test_bad_callbacks(no_model):
    def report(epoch, logs):
        pass

    with pytest.raises(TypeError, match=r"callbacks must be a list of Keras callbacks and/or functions fn\(epoch, "
                                        r"logs\), received function .*; wrap a single one in a list: callbacks=\[fn\]"):
        train_bilm(["the bank"], size="tiny", epochs=1, callbacks=report)
    with pytest.raises(TypeError, match=r"callbacks must be a list .* received EarlyStopping"):
        train_bilm(["the bank"], size="tiny", epochs=1, callbacks=keras.callbacks.EarlyStopping())
    with pytest.raises(TypeError, match=r"callbacks\[1\] must be a Keras callback or a function fn\(epoch, logs\), "
                                        r"received str \('loss'\)"):
        train_bilm(["the bank"], size="tiny", epochs=1, callbacks=[report, "loss"])


def test_helpers_keep_good_input():
    assert as_token_lists(["The bank's rates.", ("a", "b")]) == [["The", "bank's", "rates", "."], ["a", "b"]]
    assert sentence_tokens("  x y ", "source") == ["x", "y"]
    stopper = keras.callbacks.EarlyStopping()
    seen = []
    adapted = as_keras_callbacks((stopper, lambda epoch, logs: seen.append((epoch, logs))))
    assert adapted[0] is stopper and isinstance(adapted[1], keras.callbacks.Callback)
    adapted[1].on_epoch_end(0, {"loss": 1.0})
    assert seen == [(1, {"loss": 1.0})] and as_keras_callbacks(None) == []


@pytest.mark.parametrize("kwargs, error, message", [
    ({"pairs": [("a b", "c")], "callbacks": print}, TypeError, r"callbacks must be a list"),
    ({"pairs": [("a b", "c", "d")]}, TypeError, r"pairs\[0\] must be a \(source, target\) pair, received tuple"),
    ({"pairs": ["a b"]}, TypeError, r"pairs\[0\] must be a \(source, target\) pair, received str"),
    ({"pairs": [("a b", "c"), (["a", 1], "c")]}, TypeError, r"pairs\[1\] source, token 1: a token must be a str, "
                                                            r"received int: 1"),
    ({"pairs": [("a b", " ")]}, ValueError, r"pairs\[0\] target is empty"),
    ({"pairs": []}, ValueError, r"pairs is empty"),
])
def test_bad_seq2seq_input(monkeypatch, kwargs, error, message):
    from elmo_keras.models import seq2seq

    monkeypatch.setattr(seq2seq, "Seq2Seq", None)  # never reached: building a model would fail on None()
    with pytest.raises(error, match=message):
        train_seq2seq(epochs=1, **kwargs)


def test_token_sequences_of_any_kind_are_accepted():
    """NumPy arrays of str and generators are token lists too (only the tokens' type is checked)."""
    corpus = [np.array("the bank of the river".split()), (t for t in ["a", "bank"]), ("money", "bank")]
    assert as_token_lists(corpus) == [["the", "bank", "of", "the", "river"], ["a", "bank"], ["money", "bank"]]
    with pytest.raises(TypeError, match="received bytes"):
        sentence_tokens(b"the bank", "corpus sentence 0")
