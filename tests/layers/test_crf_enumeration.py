"""CRF against exhaustive enumeration in NumPy (``tests/support/crf_reference.py``, whose docstring states the
tolerance):
log-partition, likelihood, marginals, Viterbi and exact top-k on Hypothesis-drawn cases (50 draws per test on
TensorFlow, 12 on the other backends: ``tests.support.backend_support.fuzz_examples``)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.backend_support import fuzz_examples
from tests.support.crf_reference import case_crf, cases, log_sum_exp, numpy, reference


@settings(max_examples=fuzz_examples(50), deadline=None)
@given(case=cases())
def test_log_partition_likelihood_and_marginals_match_enumeration(case):
    _, emissions, mask, rng = case
    crf = case_crf(case)
    rows, atol = reference(crf, emissions, mask)
    gold = np.zeros(mask.shape, np.int32)
    expected_log_z, expected_ll = [], []
    expected_marginals = np.zeros(emissions.shape)
    for b, (paths, scores) in enumerate(rows):
        valid = np.flatnonzero(np.isfinite(scores))
        choice = rng.choice(valid) if valid.size and rng.random() < 0.7 else rng.integers(len(paths))
        gold[b, : paths.shape[1]] = paths[choice]
        log_z = log_sum_exp(scores)
        expected_log_z.append(log_z)
        expected_ll.append(scores[choice] - log_z if np.isfinite(scores[choice]) else -np.inf)
        if np.isfinite(log_z):
            probabilities = np.exp(scores - log_z)
            for t in range(paths.shape[1]):
                expected_marginals[b, t] = np.bincount(paths[:, t], probabilities, minlength=crf.num_tags)
    np.testing.assert_allclose(numpy(crf.log_partition(emissions, mask)), expected_log_z, rtol=0, atol=atol)
    np.testing.assert_allclose(numpy(crf.log_likelihood(emissions, gold, mask)), expected_ll, rtol=0, atol=atol)
    marginals = numpy(crf.marginals(emissions, mask))
    np.testing.assert_allclose(marginals, expected_marginals, rtol=0, atol=atol)
    assert np.all(marginals[~mask] == 0.0)


@settings(max_examples=fuzz_examples(50), deadline=None)
@given(case=cases(), top_k=st.integers(1, 5))
def test_viterbi_and_top_k_match_enumeration(case, top_k):
    _, emissions, mask, _ = case
    crf = case_crf(case)
    rows, atol = reference(crf, emissions, mask)
    best_tags, best_scores = map(numpy, crf.viterbi_decode(emissions, mask))
    tags, scores = map(numpy, crf.viterbi_decode(emissions, mask, top_k=top_k))
    assert best_tags.shape == mask.shape and best_tags.dtype == np.int32 and best_scores.shape == (len(mask),)
    if top_k == 1:  # (batch, time) and (batch,): the same as the default
        np.testing.assert_array_equal(tags, best_tags)
        tags, scores = tags[:, None], scores[:, None]
    kept = min(top_k, crf.num_tags ** mask.shape[1])  # no more paths than tag sequences of the time axis
    assert tags.shape == (len(mask), kept, mask.shape[1]) and scores.shape == (len(mask), kept)
    np.testing.assert_array_equal(scores[:, 0], best_scores)
    for b, (paths, path_scores) in enumerate(rows):
        length = paths.shape[1]
        expected = np.concatenate([np.sort(path_scores)[::-1], np.full(top_k, -np.inf)])[:kept]
        np.testing.assert_allclose(scores[b], expected, rtol=0, atol=atol)
        found = [tuple(path[:length]) for path, score in zip(tags[b], scores[b]) if np.isfinite(score)]
        assert len(set(found)) == len(found), "the k best paths must be distinct"
        by_path = dict(zip(map(tuple, paths), path_scores))
        for path, score in zip(found, scores[b]):
            assert by_path[path] == pytest.approx(score, abs=atol)  # allowed, and the score is its own
        assert np.all(tags[b][~np.isfinite(scores[b])] == 0) and np.all(tags[b][:, length:] == 0)
