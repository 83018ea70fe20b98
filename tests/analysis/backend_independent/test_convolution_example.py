"""The classic lecture example of a CNN: "I like this movie very much !" (7 × 5) under a 2 × 5 filter."""

import numpy as np
import pytest

from elmo_keras.analysis.convolution_example import (
    BIGRAM_FILTER,
    FILTERS,
    SENTENCE,
    SENTENCE_MATRIX,
    convolution_steps,
    feature_map,
    feature_map_length,
    feature_maps_by_height,
    max_pool,
)

ATOL = 1e-12  # float64 sums of 10 products with 2 decimals each


def test_the_example_has_the_shapes_of_the_notes_and_two_decimal_numbers():
    assert len(SENTENCE) == 7 and SENTENCE_MATRIX.shape == (7, 5) and BIGRAM_FILTER.shape == (2, 5)
    for values in [SENTENCE_MATRIX, *FILTERS.values()]:
        np.testing.assert_allclose(values, np.round(values, 2), atol=ATOL)


def test_the_feature_map_has_7_minus_2_plus_1_values_each_the_sum_of_an_elementwise_product():
    values = feature_map(SENTENCE_MATRIX, BIGRAM_FILTER)
    assert len(values) == feature_map_length(7, 2) == 6
    for t, value in enumerate(values):
        assert value == pytest.approx(np.sum(SENTENCE_MATRIX[t : t + 2] * BIGRAM_FILTER), abs=ATOL)


def test_like_this_gives_053_and_max_pooling_keeps_it():
    steps = convolution_steps(SENTENCE_MATRIX, BIGRAM_FILTER, SENTENCE)
    assert steps[1].words == ("like", "this")
    np.testing.assert_allclose(steps[1].product, SENTENCE_MATRIX[1:3] * BIGRAM_FILTER, atol=ATOL)
    assert steps[1].value == pytest.approx(0.53, abs=ATOL)
    value, position = max_pool([s.value for s in steps])
    assert (value, position) == (pytest.approx(0.53, abs=ATOL), 1)


def test_heights_2_3_4_give_6_5_4_values():
    maps = feature_maps_by_height()
    assert {h: len(v) for h, v in maps.items()} == {2: 6, 3: 5, 4: 4}
    for height, values in maps.items():  # a brute-force re-derivation per height
        expected = [np.sum(SENTENCE_MATRIX[t : t + height] * FILTERS[height]) for t in range(8 - height)]
        np.testing.assert_allclose(values, expected, atol=ATOL)


def test_a_bias_is_added_and_bad_shapes_are_explained():
    np.testing.assert_allclose(feature_map(SENTENCE_MATRIX, BIGRAM_FILTER, bias=0.5),
                               feature_map(SENTENCE_MATRIX, BIGRAM_FILTER) + 0.5, atol=ATOL)
    with pytest.raises(ValueError, match="does not fit a sentence of 3 words"):
        feature_map(SENTENCE_MATRIX[:3], FILTERS[4])
    with pytest.raises(ValueError, match="spans the whole embedding width"):
        feature_map(SENTENCE_MATRIX[:, :4], BIGRAM_FILTER)
    with pytest.raises(ValueError, match="non-empty vector"):
        max_pool([])
