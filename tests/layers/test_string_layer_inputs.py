"""ElmoCharacterIds on every kind of token ``batch_to_ids`` reads, given as nested lists, a NumPy object array or (on
TensorFlow) a string tensor: the same ids for every token both accept (NUL characters, trailing ones included,
multi-byte characters, tokens over 48 bytes, lone surrogates among other characters), and a one-line error naming
the token's position and value for every token they refuse (lone surrogates only; numbers and other non-strings)."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elmo_keras._quiet import keras
from elmo_keras.layers.elmo_character_ids import ElmoCharacterIds
from elmo_keras.text.char_ids import MAX_BYTES_PER_TOKEN, batch_to_ids
from tests.support.backend_support import BACKEND, fuzz_examples, tensorflow_only, to_numpy

# characters of every kind: Hypothesis' own (no surrogates), lone surrogates, and NUL
CHARACTERS = st.one_of(st.characters(), st.characters(categories=["Cs"]), st.just("\x00"))
EDGE_TOKENS = ["\x00", "a\x00", "\x00\x00", "\x00a", "<S>\x00", "\ud800", "\udfff\ud800", "a\ud800b", "\ud800\x00",
               "é" * 30, "x" * MAX_BYTES_PER_TOKEN, "x" * (MAX_BYTES_PER_TOKEN + 1), "😀" * 13, "<S>", "</S>"]
TOKENS = st.one_of(st.text(CHARACTERS, min_size=1, max_size=60), st.sampled_from(EDGE_TOKENS))
SENTENCES = st.lists(st.lists(TOKENS, min_size=1, max_size=4), min_size=1, max_size=3)


def padded(sentences):
    """``sentences`` as nested lists of one length, padded with ``""``."""
    longest = max(len(sentence) for sentence in sentences)
    return [sentence + [""] * (longest - len(sentence)) for sentence in sentences]


def refused(sentences):
    """``(sentence, token, value)`` of the first token ``batch_to_ids`` refuses, else None."""
    for i, sentence in enumerate(sentences):
        for j, token in enumerate(sentence):
            if not token.encode("utf-8", "ignore"):
                return i, j, token
    return None


def input_forms(sentences):
    """The ways a caller hands the layer ``sentences``: nested lists, a NumPy object array, a tf string tensor."""
    tokens = padded(sentences)
    forms = {"list": tokens, "object array": np.array(tokens, dtype=object)}
    if BACKEND == "tensorflow":
        import tensorflow as tf  # here: string tensors exist on TensorFlow only

        # what a caller gets from tf.constant; a token of lone surrogates only cannot be made a tf string at all
        forms["tf string tensor"] = tf.constant([[t.encode("utf-8", "ignore") for t in s] for s in tokens])
    return forms


@settings(max_examples=fuzz_examples(60), deadline=None)
@given(SENTENCES)
@example([["a\x00", "\x00"], ["\x00\x00"]])
@example([["a", "\ud800"]])
def test_every_token_gets_the_ids_of_batch_to_ids_or_a_one_line_error_naming_it(sentences):
    bad = refused(sentences)
    for form, tokens in input_forms(sentences).items():
        if bad is None:
            np.testing.assert_array_equal(to_numpy(ElmoCharacterIds()(tokens)), batch_to_ids(sentences),
                                          err_msg=form)
        elif form != "tf string tensor":  # there the token is b"": the padding of a string tensor
            with pytest.raises(ValueError) as raised:
                ElmoCharacterIds()(tokens)
            message = str(raised.value)
            i, j, token = bad
            assert "\n" not in message and f"at [{i}, {j}]" in message and repr(token)[:60] in message, form
            assert "lone surrogates" in message
    if bad is not None:
        with pytest.raises(ValueError, match=f"sentence {bad[0]}, token {bad[1]}"):
            batch_to_ids(sentences)  # the same token, refused the same way


@pytest.mark.parametrize("token, name", [(3, "int (3)"), (1.5, "float (1.5)"), (None, "NoneType (None)"),
                                         (np.int64(7), "int64 (np.int64(7))"), ({"a": 1}, "dict")])
@pytest.mark.parametrize("form", ["list", "object array", "keyword"])
def test_a_token_that_is_not_a_string_is_refused_in_one_line_naming_it(token, name, form):
    tokens = [["a", "b"], ["c", token]]
    layer = ElmoCharacterIds()
    with pytest.raises(TypeError) as raised:
        if form == "keyword":
            layer(inputs=tokens)
        else:
            layer(tokens if form == "list" else np.array(tokens, dtype=object))
    message = str(raised.value)
    assert "\n" not in message and message.startswith("tokens must be strings: the token at [1, 1] is " + name)
    with pytest.raises(TypeError, match="sentence 1, token 1"):
        batch_to_ids(tokens)  # refused there too


def test_trailing_nuls_in_lists_are_kept_on_every_backend():
    sentences = [["a\x00", "\x00"], ["\x00\x00", "b"]]
    for tokens in (sentences, np.array(sentences, dtype=object)):
        np.testing.assert_array_equal(to_numpy(ElmoCharacterIds()(tokens)), batch_to_ids(sentences))


def test_a_ragged_list_names_where_the_sentence_ends_in_one_line():
    with pytest.raises(ValueError) as raised:
        ElmoCharacterIds()([["a", "b"], ["c"]])
    assert "\n" not in str(raised.value) and "pad every sentence with ''" in str(raised.value)


def test_a_numpy_str_array_without_trailing_nuls_is_read_as_its_lists():
    sentences = [["The", "bänk", "\x00a"], ["😀" * 20, "a\ud800", ""]]
    np.testing.assert_array_equal(to_numpy(ElmoCharacterIds()(np.array(sentences))),
                                  to_numpy(ElmoCharacterIds()(sentences)))
    with pytest.raises(ValueError, match=r"the token at \[0, 1\] \('\\udc00'\)"):
        ElmoCharacterIds()(np.array([["a", "\udc00"]]))


@tensorflow_only("tf.string tensors and tf.function graphs")
def test_string_tensors_and_graphs_are_read_as_before():
    import tensorflow as tf  # here: the test runs on TensorFlow only

    sentences = [["a\x00", "<S>"], ["x" * 60, "é"]]
    layer = ElmoCharacterIds()
    np.testing.assert_array_equal(to_numpy(layer(tf.constant(sentences))), batch_to_ids(sentences))
    traced = tf.function(lambda tokens: layer(tokens), input_signature=[tf.TensorSpec([None, None], tf.string)])
    np.testing.assert_array_equal(traced(tf.constant(sentences)).numpy(), batch_to_ids(sentences))
    tokens = keras.Input(shape=(None,), dtype="string")
    assert ElmoCharacterIds()(tokens).shape == (None, None, 50)
