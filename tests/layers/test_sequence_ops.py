"""sequence_ops: sentence boundaries added and removed, reversal within each length."""

import numpy as np

from elmo_keras.layers import (
    add_sentence_boundaries,
    remove_sentence_boundaries,
    reverse_within_length,
)
from elmo_keras.text import batch_to_ids
from tests.support.backend_support import to_numpy

RNG = np.random.default_rng(0)


def test_sentence_boundaries_round_trip():
    ids = np.array([[5, 6, 7], [8, 0, 0]], "int32")
    mask = ids != 0
    wrapped, wrapped_mask = add_sentence_boundaries(ids, mask, 2, 3)
    np.testing.assert_array_equal(to_numpy(wrapped), [[2, 5, 6, 7, 3], [2, 8, 3, 0, 0]])
    np.testing.assert_array_equal(to_numpy(wrapped_mask), to_numpy(wrapped) != 0)
    features = to_numpy(wrapped).astype("float32")[..., None]
    inner, inner_mask = remove_sentence_boundaries(features, wrapped_mask)
    np.testing.assert_array_equal(to_numpy(inner)[..., 0], ids)
    np.testing.assert_array_equal(to_numpy(inner_mask), mask)
    chars = batch_to_ids([["a", "b"], ["c"]])
    wrapped_chars, _ = add_sentence_boundaries(chars, chars.any(-1), batch_to_ids([["<S>"]])[0, 0],
                                               batch_to_ids([["</S>"]])[0, 0])
    np.testing.assert_array_equal(to_numpy(wrapped_chars)[1],
                                  batch_to_ids([["<S>", "c", "</S>", "x"]])[0] * np.array([1, 1, 1, 0])[:, None])


def test_reverse_within_length_is_an_involution():
    x = RNG.normal(size=(2, 5, 3)).astype("float32")
    mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], bool)
    once = to_numpy(reverse_within_length(x, mask))
    np.testing.assert_array_equal(once[0, :3], x[0, 2::-1])
    np.testing.assert_array_equal(once[0, 3:], x[0, 3:])
    np.testing.assert_array_equal(to_numpy(reverse_within_length(once, mask)), x)
