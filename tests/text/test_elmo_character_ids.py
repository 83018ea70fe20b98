"""ElmoCharacterIds: the ids ``batch_to_ids`` gives, for every token (multi-byte, cut at 48 bytes, ``<S>``/``</S>``
literals), ``""`` as an all-zero padding row; serializable; inside a model on TensorFlow, eager elsewhere."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elmo_keras._quiet import keras
from elmo_keras.layers.elmo_character_ids import ElmoCharacterIds
from elmo_keras.text.char_ids import (
    BEGIN_OF_SENTENCE_ROW,
    END_OF_SENTENCE_ROW,
    MAX_BYTES_PER_TOKEN,
    MAX_CHARS_PER_TOKEN,
    batch_to_ids,
)
from tests.support.backend_support import fuzz_examples, tensorflow_only, to_numpy

# tokens that meet each rule of the encoding: a 2-byte character cut in two at byte 48, exactly 48 and 49 bytes,
# 4-byte characters, a NUL byte, the boundary literals and near misses, a literal inside a longer token
EDGE_TOKENS = ["a" + "é" * 30, "x" * MAX_BYTES_PER_TOKEN, "x" * (MAX_BYTES_PER_TOKEN + 1), "😀" * 13, "\x00",
               "<S>", "</S>", "<S", "</S> ", "<s>", "<S>" * 20, "a"]


def padded(sentences):
    """``sentences`` as a `(batch, longest)` object array of tokens, padded with ``""``."""
    longest = max(len(sentence) for sentence in sentences)
    return np.array([sentence + [""] * (longest - len(sentence)) for sentence in sentences], dtype=object)


def test_edge_tokens_get_the_ids_of_batch_to_ids():
    sentences = [EDGE_TOKENS, EDGE_TOKENS[:3], ["<S>"]]
    ids = to_numpy(ElmoCharacterIds()(padded(sentences)))
    assert ids.dtype == np.int32 and ids.shape == (3, len(EDGE_TOKENS), MAX_CHARS_PER_TOKEN)
    np.testing.assert_array_equal(ids, batch_to_ids(sentences))
    np.testing.assert_array_equal(ids[0, 5], BEGIN_OF_SENTENCE_ROW)
    np.testing.assert_array_equal(ids[0, 6], END_OF_SENTENCE_ROW)
    assert not ids[1, 3:].any() and not ids[2, 1:].any()  # "" → all-zero rows


tokens = st.one_of(st.text(min_size=1, max_size=60), st.sampled_from(EDGE_TOKENS))


@settings(max_examples=fuzz_examples(80), deadline=None)
@given(st.lists(st.lists(tokens, min_size=1, max_size=6), min_size=1, max_size=4))
def test_random_unicode_tokens_get_the_ids_of_batch_to_ids(sentences):
    """Hypothesis' text excludes lone surrogates, so every non-empty token has at least one UTF-8 byte."""
    np.testing.assert_array_equal(to_numpy(ElmoCharacterIds()(padded(sentences))), batch_to_ids(sentences))


def test_bytes_tokens_any_shape_config_and_output_shape():
    layer = ElmoCharacterIds(name="char_ids")
    np.testing.assert_array_equal(to_numpy(layer(np.array([b"caf\xc3\xa9", b""], dtype=object))),
                                  np.concatenate([batch_to_ids([["café"]])[0], np.zeros((1, 50), np.int32)]))
    assert to_numpy(layer([[["a", "b"]]])).shape == (1, 1, 2, MAX_CHARS_PER_TOKEN)
    clone = ElmoCharacterIds.from_config(layer.get_config())
    assert clone.get_config() == layer.get_config() and clone.name == "char_ids"
    assert layer.compute_output_shape((None, 7)) == (None, 7, MAX_CHARS_PER_TOKEN)
    assert not layer.weights


@pytest.mark.parametrize("inputs", [np.zeros((2, 3), np.int32), [[1.5, 2.0]]])
def test_ids_instead_of_strings_are_refused(inputs):
    with pytest.raises(TypeError, match="tokens must be strings"):
        ElmoCharacterIds()(inputs)


def test_sentences_of_different_lengths_must_be_padded():
    with pytest.raises(ValueError, match="pad every sentence with ''"):
        ElmoCharacterIds()([["a", "b"], ["c"]])


@tensorflow_only("string tensors inside a graph (tf.io.decode_raw) and tf.RaggedTensor inputs")
def test_inside_a_model_and_from_ragged_tokens(tmp_path):
    import tensorflow as tf  # here: the test runs on TensorFlow only (the other backends may lack it)

    sentences = [["The", "bänk", "<S>"], ["😀" * 20]]
    expected = batch_to_ids(sentences)
    np.testing.assert_array_equal(to_numpy(ElmoCharacterIds()(tf.ragged.constant(sentences))), expected)
    tokens = keras.Input(shape=(None,), dtype="string")
    ids = ElmoCharacterIds()(tokens)
    assert ids.shape == (None, None, MAX_CHARS_PER_TOKEN) and ids.dtype == "int32"
    model = keras.Model(tokens, ids)
    np.testing.assert_array_equal(model.predict(tf.constant(padded(sentences).tolist()), verbose=0), expected)
    model.save(tmp_path / "char_ids.keras")
    reloaded = keras.saving.load_model(tmp_path / "char_ids.keras")
    np.testing.assert_array_equal(reloaded.predict(tf.constant(padded(sentences).tolist()), verbose=0), expected)
