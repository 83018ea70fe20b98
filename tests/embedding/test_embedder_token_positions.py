"""Errors about a token name it by the caller's positions, 0-based as given: not shifted by the ``<S>`` that
``char_ids_with_boundaries`` adds, nor by the empty sentences ``embed_batch`` leaves out, nor by the sorting and
batching of ``embed_sentences``; and a token that is not a str is refused by word-level models too."""

import numpy as np
import pytest

from elmo_keras.embedding.embedder import ElmoEmbedder
from elmo_keras.layers import CharCNN, WordEmbedding
from elmo_keras.layers.bilm import BiLM
from elmo_keras.text.batching import WordIds, char_ids_with_boundaries
from elmo_keras.text.vocabulary import Vocabulary

BAD_BATCHES = [
    ([["a", 3]], TypeError, "sentence 0, token 1: a token must be a str, received int: 3"),
    ([["a"], ["b", "c", None]], TypeError, "sentence 1, token 2: a token must be a str, received NoneType"),
    ([[], ["a", ""]], ValueError, "sentence 1, token 1: token is empty"),
    ([["a"], [], [], ["b", "\udc80"]], ValueError, "sentence 3, token 1: token has no UTF-8-encodable character"),
    ([["a"], "b c"], TypeError, "sentence 1 must be a list of tokens, received str"),
    ([["a"], 7], TypeError, "sentence 1 must be a list of tokens, received int"),
]


def one_line(raised) -> str:
    assert "\n" not in str(raised.value)
    return str(raised.value)


@pytest.fixture(scope="module")
def char_embedder():
    bilm = BiLM(CharCNN(embedding_dim=4, filters=((1, 8), (2, 8)), projection_dim=4), units=8, projection_dim=4)
    bilm(char_ids_with_boundaries([["build"]]))
    return ElmoEmbedder(bilm=bilm, execution="eager")


@pytest.mark.parametrize("sentences, error, message", BAD_BATCHES)
def test_char_ids_with_boundaries_names_the_token_as_given(sentences, error, message):
    with pytest.raises(error) as raised:
        char_ids_with_boundaries(sentences)
    assert one_line(raised).startswith(message)


@pytest.mark.parametrize("sentences, error, message", BAD_BATCHES)
def test_embed_batch_names_the_token_as_given(char_embedder, sentences, error, message):
    with pytest.raises(error) as raised:
        char_embedder.embed_batch(sentences)
    assert one_line(raised).startswith(message)


def test_embed_sentences_names_the_sentence_by_its_index_in_the_stream(char_embedder):
    sentences = [["x"] * (1 + i % 3) for i in range(9)] + [["y", "z", 3]]  # sorted and batched before the bad one
    for given in (sentences, iter(sentences)):
        with pytest.raises(TypeError) as raised:
            list(char_embedder.embed_sentences(given, batch_size=2))
        assert one_line(raised).startswith("sentence 9, token 2: a token must be a str, received int: 3")


def test_stateful_embed_sentences_names_an_empty_sentence_by_its_index_in_the_stream(char_embedder):
    stateful = ElmoEmbedder(bilm=char_embedder.bilm, stateful=True)
    with pytest.raises(ValueError, match="^sentence 5 is empty; stateful mode"):
        list(stateful.embed_sentences([["a"], ["b"], ["c", "d"], ["e"], ["f"], []], batch_size=2))


def test_a_string_sentence_is_not_split_into_characters():
    with pytest.raises(TypeError, match="sentence 0 must be a list of tokens, received str"):
        char_ids_with_boundaries(["abc"])  # was <S> a b c </S>


def test_a_word_level_model_refuses_a_token_that_is_not_a_str():
    vocabulary = Vocabulary.from_corpus([["a", "b"]])
    bilm = BiLM(WordEmbedding(len(vocabulary), 4), units=8, projection_dim=4)
    bilm(np.array([[2, 4, 3]], dtype=np.int32))
    embedder = ElmoEmbedder(bilm=bilm, sentence_ids=WordIds(vocabulary), execution="eager")
    assert embedder.embed_batch([["a", "unknown", ""]])[0].shape == (3, 3, 8)  # words: unknown ones are <unk>
    with pytest.raises(TypeError) as raised:
        embedder.embed_batch([["a"], ["b", 3]])  # was encoded as <unk>
    assert one_line(raised).startswith("sentence 1, token 1: a token must be a str, received int: 3")
