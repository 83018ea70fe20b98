"""The three classic worked examples (greedy, beam, nucleus) give their known answers."""

import numpy as np
import pytest

from elmo_keras.decoding import (
    beam_search,
    exhaustive_search,
    greedy,
    nucleus_indices,
    sample,
)
from elmo_keras.decoding.trace import FINISHED, KEPT, PRUNED
from elmo_keras.decoding.worked_examples import all_examples, greedy_trap, nucleus_example, same_branch_beam


def test_greedy_trap():
    ex = greedy_trap()
    picked = greedy(ex.next_log_probs, ex.bos_id, ex.eos_id, ex.max_len)
    best = exhaustive_search(ex.next_log_probs, ex.bos_id, ex.eos_id, ex.max_len)
    assert ex.words(picked.tokens) == ex.expected["greedy"] == ["A", "B", "</S>"]
    assert picked.prob == pytest.approx(ex.expected["greedy_prob"])
    assert ex.words(best.tokens) == ex.expected["best"] == ["B", "C", "</S>"]
    assert best.prob == pytest.approx(ex.expected["best_prob"])
    # greedy's first pick is the most probable first word, yet the best sequence starts with another
    first = np.exp(ex.next_log_probs(np.array([[ex.bos_id]]))[0])
    assert ex.words([int(np.argmax(first))]) == ["A"] != ex.words(best.tokens[:1])
    beam = beam_search(ex.next_log_probs, ex.bos_id, ex.eos_id, ex.max_len, beam_size=2)
    assert ex.words(beam[0].tokens) == ex.expected["best"]


def test_same_branch_beam_drops_the_c_branch():
    ex = same_branch_beam()
    k = ex.expected["beam_size"]
    results, trace = beam_search(ex.next_log_probs, ex.bos_id, ex.eos_id, ex.max_len, beam_size=k, return_trace=True)
    step1, step2 = trace.steps[0], trace.steps[1]

    def survivors(step):
        c = step.candidates
        return [ex.words(step.prefixes[p] + (t,)) for p, t, s in zip(c.parents, c.tokens, c.status) if s != PRUNED]

    assert survivors(step1) == ex.expected["step1"] == [["A"], ["C"]]
    assert survivors(step2) == ex.expected["step2"] == [["A", "B"], ["A", "D"]]
    assert [ex.words(step2.prefixes[row]) for row in step2.dropped_parents] == [ex.expected["pruned_branch"]]
    # the best C extension (C E, 0.18) was ranked third and pruned; per-branch greedy would have kept it
    third = 2
    assert ex.words([step2.candidates.tokens[third]]) == ["E"] and step2.candidates.status[third] == PRUNED
    assert np.exp(step2.candidates.log_probs[:3]) == pytest.approx([0.225, 0.20, 0.18])
    assert [ex.words(h.tokens) for h in results] == [["A", "B", "</S>"], ["A", "D", "</S>"]]


def test_nucleus_keeps_exactly_the_first_four():
    ex = nucleus_example()
    probs = np.exp(ex.next_log_probs(np.array([[ex.bos_id]]))[0])
    kept = nucleus_indices(probs, ex.expected["top_p"])
    assert ex.words(kept) == ex.expected["nucleus"] == ["fine", "good", "okay", "great"]
    assert probs[kept].sum() == pytest.approx(ex.expected["nucleus_mass"])
    draws, trace = sample(ex.next_log_probs, ex.bos_id, ex.eos_id, ex.max_len, top_p=0.9, seed=0, num_samples=500,
                          return_trace=True)
    assert {ex.words(h.tokens)[0] for h in draws} == set(ex.expected["nucleus"])
    filtered = trace.steps[0].filtered_probs[0]
    np.testing.assert_allclose(filtered[kept], probs[kept] / 0.91)
    assert trace.steps[0].candidates.status.tolist().count(KEPT) == 500
    assert trace.steps[1].candidates.status.tolist() == [FINISHED] * 500


def test_all_examples_are_consistent_tables():
    for ex in all_examples():
        rows = np.exp(ex.next_log_probs(np.array([[ex.bos_id]])))
        assert rows.sum() == pytest.approx(1.0)
        assert ex.vocabulary.id_to_token(ex.bos_id) == "<S>" and ex.vocabulary.id_to_token(ex.eos_id) == "</S>"
