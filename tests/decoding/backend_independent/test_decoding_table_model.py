"""The fixed-table fake models the strategies are tested on."""

import numpy as np
import pytest

from elmo_keras.decoding import NGramTable, PrefixTable
from elmo_keras.text import Vocabulary


def test_ngram_table_uses_the_last_tokens_and_pads_with_bos():
    probs = NGramTable.random(4, 3, seed=0).probs
    table = NGramTable(probs)
    prefixes = np.array([[0], [0]])
    np.testing.assert_allclose(np.exp(table(prefixes)), probs[[0, 0], [0, 0]])  # context (<bos>, <bos>)
    np.testing.assert_allclose(np.exp(table(np.array([[0, 2, 3]]))), probs[[2], [3]])
    unigram = NGramTable([0.5, 0.5])
    assert unigram(np.zeros((3, 2), dtype=int)).shape == (3, 2)


@pytest.mark.parametrize("probs, message", [
    (np.ones((2, 3)) / 3, "shape \\(vocab,\\) \\* order"),
    (np.full((2, 2), 0.6), "every row must sum to 1"),
])
def test_ngram_table_errors(probs, message):
    with pytest.raises(ValueError, match=message):
        NGramTable(probs)


def test_prefix_table_lookup_default_and_errors():
    vocabulary = Vocabulary(["a", "b"])
    table = PrefixTable({(): {"a": 0.25, "b": 0.75}, ("a",): {"b": 1.0}}, vocabulary, "</S>")
    out = np.exp(table(np.array([[2, 4], [2, 5]])))  # after "a" / after "b" (not listed: ends)
    np.testing.assert_allclose(out[0], [0, 0, 0, 0, 0, 1])
    np.testing.assert_allclose(out[1], [0, 0, 0, 1, 0, 0])
    with pytest.raises(ValueError, match="must sum to 1"):
        PrefixTable({(): {"a": 0.5}}, vocabulary, "</S>")
    with pytest.raises(ValueError, match="word 'zebra' is not in the vocabulary"):
        PrefixTable({(): {"zebra": 1.0}}, vocabulary, "</S>")
