"""Top-k, top-p (nucleus) and temperature on hand tables, ties included."""

import numpy as np
import pytest

from elmo_keras.decoding import apply_temperature, filter_distribution, nucleus_indices, top_k_indices

#            0     1     2     3     4     5     6
SEED_ROW = [0.04, 0.50, 0.03, 0.25, 0.10, 0.06, 0.02]  # nice fine bad good okay great awful


@pytest.mark.parametrize("p, expected", [
    (0.9, [1, 3, 4, 5]),  # .50 .75 .85 .91 → reaches 0.9 at the 4th
    (0.91, [1, 3, 4, 5]),  # exactly reached (within rounding)
    (0.5, [1]),  # the top word alone reaches 0.5
    (0.49, [1]),
    (0.75, [1, 3]),  # .50 + .25 = .75 exactly
    (0.7500001, [1, 3, 4]),
    (1.0, [1, 3, 4, 5, 0, 2, 6]),
])
def test_nucleus_is_the_smallest_prefix_reaching_p(p, expected):
    assert nucleus_indices(SEED_ROW, p).tolist() == expected


def test_nucleus_ties_keep_the_lower_id():
    probs = [0.2, 0.3, 0.2, 0.3]
    assert nucleus_indices(probs, 0.3).tolist() == [1]
    assert nucleus_indices(probs, 0.6).tolist() == [1, 3]
    assert nucleus_indices(probs, 0.7).tolist() == [1, 3, 0]  # 0 and 2 tie: lower id first


def test_nucleus_rounding_does_not_add_a_token():
    probs = [0.7, 0.2, 0.1]  # 0.7 + 0.2 == 0.8999999999999999 in floating point
    assert nucleus_indices(probs, 0.9).tolist() == [0, 1]


def test_nucleus_never_keeps_zero_probability_and_normalises():
    assert nucleus_indices([0.0, 3.0, 1.0, 0.0], 1.0).tolist() == [1, 2]  # weights 3:1 → .75, 1.0
    assert nucleus_indices([0.0, 3.0, 1.0, 0.0], 0.75).tolist() == [1]


@pytest.mark.parametrize("k, expected", [(1, [1]), (3, [1, 3, 4]), (7, [1, 3, 4, 5, 0, 2, 6])])
def test_top_k(k, expected):
    assert top_k_indices(SEED_ROW, k).tolist() == expected


def test_top_k_ties_and_zeros():
    probs = [0.25, 0.0, 0.25, 0.25, 0.25]
    assert top_k_indices(probs, 2).tolist() == [0, 2]
    assert top_k_indices(probs, 5).tolist() == [0, 2, 3, 4]  # the zero is never kept


@pytest.mark.parametrize("bad_p", [0.0, -0.1, 1.5, True])
def test_top_p_out_of_range(bad_p):
    with pytest.raises(ValueError, match=f"top_p must be in \\(0, 1\\], received {bad_p!r}"):
        nucleus_indices(SEED_ROW, bad_p)


def test_filter_distribution_top_k_then_top_p_renormalised():
    log_probs = np.log([SEED_ROW])
    probs, filtered = filter_distribution(log_probs, top_k=3, top_p=0.8)
    np.testing.assert_allclose(probs, [SEED_ROW])
    # top-3: .50 .25 .10 → renormalised .588 .294 .118; nucleus 0.8 of that: .588 + .294 = .882 → two kept
    expected = np.zeros(7)
    expected[[1, 3]] = [0.50 / 0.75, 0.25 / 0.75]
    np.testing.assert_allclose(filtered[0], expected)


def test_filter_distribution_rows_are_independent():
    rows = np.log([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]])
    _, filtered = filter_distribution(rows, top_p=0.6)
    np.testing.assert_allclose(filtered, [[0.625, 0.375, 0.0], [0.0, 0.0, 1.0]])


def test_temperature_sharpens_and_flattens():
    log_probs = np.log([[0.6, 0.3, 0.1]])
    np.testing.assert_allclose(apply_temperature(log_probs, 1.0), [[0.6, 0.3, 0.1]])
    cold = apply_temperature(log_probs, 0.5)  # ∝ p²
    np.testing.assert_allclose(cold, [[0.36, 0.09, 0.01]] / np.float64(0.46))
    hot = apply_temperature(log_probs, 1e6)
    np.testing.assert_allclose(hot, [[1 / 3] * 3], atol=1e-5)
    np.testing.assert_array_equal(apply_temperature(np.log([[0.4, 0.4, 0.2]]), 0.0), [[1.0, 0.0, 0.0]])


@pytest.mark.parametrize("temperature", [-1.0, float("nan"), float("inf")])
def test_bad_temperature(temperature):
    with pytest.raises(ValueError, match="temperature must be a finite number >= 0"):
        apply_temperature(np.zeros((1, 3)), temperature)


def test_tiny_temperature_is_greedy_not_nan():
    """log_probs / 1e-310 overflows to -inf everywhere; shifting by the maximum first keeps the argmax."""
    log_probs = np.log([[0.4, 0.6]])
    for temperature in (1e-300, 1e-310, 5e-324):
        np.testing.assert_array_equal(apply_temperature(log_probs, temperature), [[0.0, 1.0]])


def test_top_p_one_keeps_even_a_tiny_tail():
    log_probs = np.log([[0.7, 0.3 - 1e-10, 1e-10]])
    assert (filter_distribution(log_probs, top_p=1.0)[1] > 0).all()


@pytest.mark.parametrize("row", [[float("nan"), 0.0], [-np.inf, -np.inf]])
def test_rows_without_a_finite_maximum_are_refused(row):
    with pytest.raises(ValueError, match="finite maximum in every row"):
        filter_distribution(np.array([row]), temperature=1.0)
