"""Sampling: frequencies match the (filtered, renormalised) distribution, seeds reproduce, T → 0 is greedy."""

from collections import Counter

import numpy as np
import pytest

from elmo_keras.decoding import NGramTable, filter_distribution, greedy, sample
from elmo_keras.decoding.sampling import draw_tokens

BOS, EOS = 0, 1
FIRST = np.array([0.0, 0.05, 0.40, 0.25, 0.15, 0.10, 0.05])  # after <bos>; <eos> = 1
with np.errstate(divide="ignore"):
    LOG_FIRST = np.log(FIRST)[None]  # (1, 7)


def one_step_table():
    """After <bos>: FIRST; after any word: <eos>. Each sample is one word then <eos>."""
    probs = np.zeros((7, 7))
    probs[:, EOS] = 1.0
    probs[BOS] = FIRST
    return NGramTable(probs)


def chi_square(counts, expected_probs):
    """Pearson's statistic and its 99.9% critical value (scipy when installed, else Wilson–Hilferty)."""
    keep = expected_probs > 0
    total = counts.sum()
    expected = expected_probs[keep] * total
    statistic = float(((counts[keep] - expected) ** 2 / expected).sum())
    dof = int(keep.sum()) - 1
    try:
        from scipy.stats import chi2

        critical = float(chi2.ppf(0.999, dof))
    except ImportError:
        z = 3.0902  # standard normal 99.9% quantile
        critical = dof * (1 - 2 / (9 * dof) + z * np.sqrt(2 / (9 * dof))) ** 3
    return statistic, critical


def first_word_counts(draws):
    counts = Counter(h.tokens[0] for h in draws)
    return np.array([counts.get(t, 0) for t in range(7)])


@pytest.mark.parametrize("kwargs", [
    {},
    {"temperature": 0.7},
    {"top_k": 3},
    {"top_p": 0.8},
    {"temperature": 1.5, "top_k": 4, "top_p": 0.9},
])
def test_frequencies_match_the_renormalised_distribution(kwargs):
    draws = sample(one_step_table(), BOS, EOS, 3, seed=1234, num_samples=8000, **kwargs)
    counts = first_word_counts(draws)
    _, expected = filter_distribution(LOG_FIRST, **kwargs)
    assert (counts[expected[0] == 0] == 0).all()  # nothing outside the cut is ever drawn
    statistic, critical = chi_square(counts, expected[0])
    assert statistic < critical


def test_the_chi_square_check_can_fail():
    """The statistic rejects samples from the *unfiltered* distribution when top-k was asked for."""
    draws = sample(one_step_table(), BOS, EOS, 3, seed=5, num_samples=8000)
    _, top3 = filter_distribution(LOG_FIRST, top_k=3)
    counts = first_word_counts(draws)
    statistic, critical = chi_square(counts, top3[0])
    assert statistic > critical


def test_draw_tokens_never_draws_zero_probability():
    probs = np.array([[0.0, 0.5, 0.0, 0.5, 0.0]] * 2000)
    drawn = draw_tokens(probs, np.random.default_rng(0))
    assert set(drawn.tolist()) == {1, 3}


def test_same_seed_same_samples_and_generator_is_advanced():
    table = NGramTable.random(6, 2, seed=0)
    a = sample(table, BOS, EOS, 8, seed=7, num_samples=20)
    b = sample(table, BOS, EOS, 8, seed=7, num_samples=20)
    c = sample(table, BOS, EOS, 8, seed=8, num_samples=20)
    assert [h.tokens for h in a] == [h.tokens for h in b] != [h.tokens for h in c]
    rng = np.random.default_rng(7)
    assert sample(table, BOS, EOS, 8, seed=rng, num_samples=20) == a  # a Generator is used as is
    assert rng.bit_generator.state != np.random.default_rng(7).bit_generator.state  # … and advanced


def test_sample_log_prob_is_the_model_log_prob():
    table = NGramTable.random(5, 2, seed=2)
    for h in sample(table, BOS, EOS, 6, temperature=0.5, top_k=2, seed=0, num_samples=10):
        expected = sum(table.log_probs[a, b] for a, b in zip((BOS,) + h.tokens[:-1], h.tokens))
        assert h.log_prob == pytest.approx(expected)
        assert len(h.tokens) <= 6 and (h.finished == (h.tokens[-1] == EOS))


def test_temperature_zero_is_greedy_and_small_temperatures_approach_it():
    table = NGramTable(np.array([
        [0.0, 0.2, 0.5, 0.3],  # after <bos>: greedy takes 2
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 0.3, 0.2, 0.5],  # after 2: greedy takes 3
        [0.0, 0.6, 0.25, 0.15],  # after 3: greedy ends
    ]))
    best = greedy(table, BOS, EOS, 8)
    assert best.tokens == (2, 3, EOS)
    assert sample(table, BOS, EOS, 8, temperature=0.0, seed=0).tokens == best.tokens
    agreement = {}
    for t in (1.0, 0.3, 0.05):
        draws = sample(table, BOS, EOS, 8, temperature=t, seed=0, num_samples=300)
        agreement[t] = np.mean([h.tokens == best.tokens for h in draws])
    assert agreement[1.0] < agreement[0.3] < agreement[0.05] == 1.0


def test_single_sample_vs_list():
    table = NGramTable.random(4, 2, seed=1)
    single = sample(table, BOS, EOS, 5, seed=3)
    several = sample(table, BOS, EOS, 5, seed=3, num_samples=1)
    assert isinstance(several, list) and several[0] == single


@pytest.mark.parametrize("kwargs, message", [
    ({"temperature": -0.5}, "temperature must be a finite number >= 0 (0 = greedy), received -0.5"),
    ({"top_k": 0}, "top_k must be a positive int or None, received 0"),
    ({"top_p": 1.2}, "top_p must be in (0, 1], received 1.2"),
    ({"num_samples": 0}, "num_samples must be a positive int, received 0"),
    ({"max_len": 0}, "max_len must be a positive int, received 0"),
])
def test_sample_argument_errors(kwargs, message):
    args = {"max_len": 4, **kwargs}
    with pytest.raises(ValueError) as error:
        sample(NGramTable.random(3), BOS, EOS, **args)
    assert message in str(error.value)
