"""Greedy and beam search: against each other and against exhaustive search on random n-gram tables."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elmo_keras.decoding import NGramTable, beam_search, exhaustive_search, greedy, sample
from elmo_keras.decoding._checks import call_model, start_prefixes

BOS, EOS = 0, 1
tables = st.builds(
    lambda vocab, order, seed: NGramTable.random(vocab, order, seed=seed),
    vocab=st.integers(2, 4), order=st.integers(1, 3), seed=st.integers(0, 2**32 - 1),
)


def tokens(hypotheses):
    return [h.tokens for h in hypotheses]


@settings(max_examples=60, deadline=None)
@given(table=tables, max_len=st.integers(1, 5))
def test_beam_of_one_is_greedy(table, max_len):
    best = greedy(table, BOS, EOS, max_len)
    (beam,) = beam_search(table, BOS, EOS, max_len, beam_size=1)
    assert beam.tokens == best.tokens
    assert beam.log_prob == pytest.approx(best.log_prob, abs=1e-12)




def table_without_bos(vocab, order, seed):
    """A random n-gram table that never emits <bos>, so <bos> is a context no output token shares."""
    probs = NGramTable.random(vocab, order, seed=seed).probs.copy()
    probs[..., BOS] = 0.0
    return NGramTable(probs / probs.sum(axis=-1, keepdims=True))


# bigram/trigram tables over contexts <bos> never appears in: then ties between different outputs have
# probability 0 (a unigram table gives permutations equal probabilities, and the two searches may list tied
# hypotheses in different, equally documented, orders)
context_tables = st.builds(table_without_bos, vocab=st.integers(3, 5), order=st.integers(2, 3),
                           seed=st.integers(0, 2**32 - 1))


@settings(max_examples=60, deadline=None)
@given(table=context_tables, max_len=st.integers(1, 3), alpha=st.sampled_from([0.0, 0.7, 1.0]))
def test_beam_wider_than_the_search_space_is_exhaustive(table, max_len, alpha):
    k = table.vocab_size**max_len
    beam = beam_search(table, BOS, EOS, max_len, beam_size=k, length_penalty=alpha, num_return=min(k, 5))
    exact = exhaustive_search(table, BOS, EOS, max_len, length_penalty=alpha, num_return=min(k, 5))
    assert tokens(beam) == tokens(exact)
    assert [h.score for h in beam] == pytest.approx([h.score for h in exact], abs=1e-12)


def test_greedy_misses_what_beam_finds():
    """A hand table where greedy is not optimal and k=2 is enough (the classic worked example's situation)."""
    table = NGramTable(np.array([
        [0.0, 0.0, 0.6, 0.4],  # after <bos>: word 2 (0.6) or word 3 (0.4)
        [0.25, 0.25, 0.25, 0.25],  # after <eos> (never used)
        [0.0, 0.5, 0.25, 0.25],  # after 2: <eos> 0.5
        [0.0, 1.0, 0.0, 0.0],  # after 3: <eos> 1.0
    ]))
    assert greedy(table, BOS, EOS, 4).tokens == (2, EOS)  # 0.3
    assert beam_search(table, BOS, EOS, 4, beam_size=2)[0].tokens == (3, EOS)  # 0.4
    assert exhaustive_search(table, BOS, EOS, 4).tokens == (3, EOS)


def test_beam_results_are_ranked_scored_and_flagged():
    table = NGramTable.random(5, 2, seed=3)
    results = beam_search(table, BOS, EOS, 6, beam_size=4, length_penalty=1.0)
    assert len(results) == 4
    for h in results:
        expected = sum(table.log_probs[a, b] for a, b in zip((BOS,) + h.tokens[:-1], h.tokens))
        assert h.log_prob == pytest.approx(expected)
        assert h.score == pytest.approx(h.log_prob / len(h.tokens))
        assert h.finished == (h.tokens[-1] == EOS)
    assert [h.score for h in results] == sorted((h.score for h in results), reverse=True)


def test_beam_stops_at_max_len_with_unfinished_hypotheses():
    never_ends = NGramTable(np.array([[0.0, 0.0, 0.7, 0.3]] * 4))  # <eos> has probability 0
    results = beam_search(never_ends, BOS, EOS, 3, beam_size=2)
    assert tokens(results) == [(2, 2, 2), (2, 2, 3)]
    assert not any(h.finished for h in results)
    assert results[0].log_prob == pytest.approx(3 * math.log(0.7))


def test_beam_ties_go_to_the_better_parent_then_the_lower_token():
    uniform = NGramTable(np.full((3, 3), 1 / 3))
    results = beam_search(uniform, BOS, EOS, 2, beam_size=3)
    # step 1 keeps (0,), (1=eos, finished), (2,); step 2 has two slots, ties by flat index: (0, 0) and (0, 1)
    # (finished). Final ranking is stable: finished hypotheses (in order of finishing) before live ones.
    assert tokens(results) == [(1,), (0, 1), (0, 0)]


def test_zero_probability_extensions_are_never_kept():
    table = NGramTable(np.array([[0.0, 0.9, 0.1], [1, 0, 0], [0.0, 1.0, 0.0]]))
    results = beam_search(table, BOS, EOS, 3, beam_size=3)
    assert tokens(results) == [(1,), (2, 1)]  # only two sequences have non-zero probability


def test_length_penalty_prefers_longer_outputs():
    table = NGramTable(np.array([
        [0.0, 0.4, 0.6, 0.0],
        [1, 0, 0, 0],
        [0.0, 0.0, 0.0, 1.0],
        [0.0, 0.5, 0.0, 0.5],
    ]))
    assert beam_search(table, BOS, EOS, 6, beam_size=3, length_penalty=0.0)[0].tokens == (1,)  # 0.4 vs 0.3
    assert beam_search(table, BOS, EOS, 6, beam_size=3, length_penalty=1.0)[0].tokens == (2, 3, 1)


@pytest.mark.parametrize("kwargs, message", [
    ({"beam_size": 0}, "beam_size must be a positive int, received 0"),
    ({"beam_size": 2.0}, "beam_size must be a positive int, received 2.0"),
    ({"beam_size": 2, "max_len": 0}, "max_len must be a positive int, received 0"),
    ({"beam_size": 2, "length_penalty": -1}, "length_penalty must be a finite number >= 0, received -1"),
    ({"beam_size": 2, "num_return": 3}, "num_return must be <= beam_size (2), received 3"),
])
def test_beam_argument_errors(kwargs, message):
    args = {"bos_id": BOS, "eos_id": EOS, "max_len": 3, **kwargs}
    with pytest.raises(ValueError) as error:
        beam_search(NGramTable.random(3), **args)
    assert message in str(error.value)


@pytest.mark.parametrize("strategy", [greedy, exhaustive_search, lambda *a: beam_search(*a, beam_size=2)])
@pytest.mark.parametrize("bad, message", [
    (lambda p: np.zeros((len(p) + 1, 3)), "must return shape (n, vocab) = (1, vocab)"),
    (lambda p: np.zeros(3), "received shape (3,)"),
    (lambda p: np.full((len(p), 3), np.nan), "returned NaN"),
    (lambda p: np.full((len(p), 3), np.inf), "+inf"),
    (lambda p: np.full((len(p), 3), -np.inf), "every token probability 0"),
    (lambda p: np.full((len(p), 3), 2.5), "returned 2.5 > 0 after prefix [0]; it must return log-probabilities (<= 0): "
                                          "apply log_softmax to the logits"),
])
def test_bad_models_are_reported(strategy, bad, message):
    with pytest.raises(ValueError) as error:
        strategy(bad, BOS, EOS, 3)
    assert message in str(error.value)


def test_raw_logits_are_refused_but_rounding_above_0_is_not():
    """Positive values used to be taken as log-probabilities: beam ranked a logit of 10 first."""
    logits = np.array([[-3.0, 2.0, 10.0]])
    with pytest.raises(ValueError, match=r"returned 10 > 0 after prefix \[0\]"):
        beam_search(lambda p: np.repeat(logits, len(p), axis=0), BOS, EOS, 2, beam_size=2)
    rounded = np.array([[-np.inf, np.log(0.1), 5e-5]])  # float32 log_softmax can round a hair above 0
    assert beam_search(lambda p: np.repeat(rounded, len(p), axis=0), BOS, EOS, 2, beam_size=2)[0].tokens == (2, 2)


def test_eos_outside_the_vocabulary_is_refused_by_call_model():
    table = NGramTable.random(3)
    assert call_model(table, start_prefixes(BOS), eos_id=2).shape == (1, 3)
    with pytest.raises(ValueError, match=r"eos_id must be a token id in \[0, vocab size 3\) of what next_log_probs "
                                         r"returns, received 3: <eos> could never be generated"):
        call_model(table, start_prefixes(BOS), eos_id=3)


def test_vocabulary_size_must_not_change():
    def shrinking(prefixes):
        return np.log(np.full((len(prefixes), 5 - prefixes.shape[1]), 1 / (5 - prefixes.shape[1])))

    with pytest.raises(ValueError, match="returned vocab size 3, but 4 on an earlier call"):
        greedy(shrinking, BOS, EOS, 3)  # uniform rows: token 0 every step, never <eos>


def test_each_step_is_one_model_call_on_all_live_hypotheses():
    table = NGramTable.random(6, 2, seed=0)
    calls = []

    def counting(prefixes):
        calls.append(prefixes.shape)
        assert (prefixes[:, 0] == BOS).all()
        return table(prefixes)

    beam_search(counting, BOS, EOS, 5, beam_size=3)
    assert calls[0] == (1, 1)
    assert all(shape[1] == step + 1 for step, shape in enumerate(calls))
    assert all(shape[0] <= 3 for shape in calls)


def test_beam_shrinks_as_hypotheses_finish():
    """k = 2: once one hypothesis has finished, only one slot is left for the live ones."""
    table = NGramTable(np.array([
        [0.0, 0.5, 0.3, 0.2],  # after <bos>: <eos> .5, 2 .3, 3 .2
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 0.1, 0.6, 0.3],
        [0.0, 0.1, 0.6, 0.3],
    ]))
    results, trace = beam_search(table, BOS, EOS, 3, beam_size=2, return_trace=True)
    assert [len(step.prefixes) for step in trace.steps] == [1, 1, 1]
    assert [(step.candidates.status != "pruned").sum() for step in trace.steps] == [2, 1, 1]
    assert tokens(results) == [(EOS,), (2, 2, 2)]  # 0.5, then 0.3 * 0.6 * 0.6 = 0.108 (cut off at max_len)


@pytest.mark.parametrize("strategy", [greedy, exhaustive_search, sample, lambda *a: beam_search(*a, beam_size=2)])
def test_eos_outside_the_vocabulary_is_refused(strategy):
    """<eos> the model cannot emit: every output used to run to max_len unfinished."""
    with pytest.raises(ValueError, match=r"eos_id must be a token id in \[0, vocab size 3\) of what "
                                         r"next_log_probs returns, received 3"):
        strategy(NGramTable.random(3), BOS, 3, 3)
