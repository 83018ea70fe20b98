"""Traces: what the app draws (beam tree, per-step distributions) is consistent with what the search did."""

import numpy as np
import pytest

from elmo_keras.decoding import (
    Hypothesis,
    NGramTable,
    beam_search,
    exhaustive_search,
    greedy,
    sample,
    token_labels,
)
from elmo_keras.decoding.trace import FINISHED, KEPT, PRUNED
from elmo_keras.decoding.worked_examples import nucleus_example
from elmo_keras.text import Vocabulary

BOS, EOS = 0, 1


def test_token_labels_through_any_vocabulary():
    vocabulary = Vocabulary(["a", "b"])
    assert token_labels([4, 5, 3]) == ["4", "5", "3"]
    assert token_labels([4, 5, 3], vocabulary) == ["a", "b", "</S>"]
    assert token_labels([1, 0], ["x", "y"]) == ["y", "x"]
    assert token_labels([7], {7: "seven"}) == ["seven"]
    with pytest.raises(TypeError, match="vocabulary must be None, a Vocabulary"):
        token_labels([1], 3.5)


def test_hypothesis_words_and_text():
    vocabulary = Vocabulary(["turn", "on"])
    h = Hypothesis((4, 5, 3), -1.0, finished=True)
    assert h.words(vocabulary) == ["turn", "on"]
    assert h.words(vocabulary, strip_eos=False) == ["turn", "on", "</S>"]
    assert h.text(vocabulary) == "turn on"
    assert h.score == -1.0 and h.prob == pytest.approx(np.exp(-1.0))


def test_beam_trace_forms_a_tree():
    table = NGramTable.random(6, 2, seed=11)
    results, trace = beam_search(table, BOS, EOS, 6, beam_size=3, length_penalty=0.5, return_trace=True)
    assert trace.strategy == "beam" and trace.params["beam_size"] == 3
    assert trace.results == results
    for step, following in zip(trace.steps, trace.steps[1:]):
        kept = [row["sequence"] for row in trace.candidate_rows() if row["step"] == step.step and row["status"] == KEPT]
        assert kept == following.prefixes  # survivors, in rank order, are the next step's live hypotheses
    finished_rows = [row["sequence"] for row in trace.candidate_rows() if row["status"] == FINISHED]
    assert finished_rows == [h.tokens for h in trace.finished]
    last_kept = {row["sequence"] for row in trace.candidate_rows()
                 if row["step"] == trace.steps[-1].step and row["status"] == KEPT}
    assert {h.tokens for h in results} <= {h.tokens for h in trace.finished} | last_kept
    for step in trace.steps:
        c = step.candidates
        assert len(c) == len(step.prefixes) * 6  # every extension is listed (none has probability 0 here)
        assert (np.diff(c.log_probs) <= 0).all()
        np.testing.assert_allclose(c.log_probs, step.prefix_log_probs[c.parents] + c.token_log_probs)
        assert (c.status[: (c.status != PRUNED).sum()] != PRUNED).all()  # survivors are a prefix of the ranking


def test_candidate_rows_have_labels_and_probabilities():
    vocabulary = ["<s>", "</s>", "x", "y"]
    table = NGramTable.random(4, 2, seed=0)
    _, trace = greedy(table, BOS, EOS, 3, return_trace=True)
    rows = trace.candidate_rows(vocabulary)
    assert set(rows[0]) == {"step", "rank", "parent", "prefix", "sequence", "prefix_text", "token", "token_label",
                            "token_prob", "log_prob", "score", "status"}
    assert rows[0]["token_label"] == vocabulary[rows[0]["token"]]
    assert rows[0]["token_prob"] == pytest.approx(table.probs[BOS, rows[0]["token"]])
    assert [r["status"] for r in rows if r["step"] == 1].count(PRUNED) == 3
    assert len(trace.candidate_rows(include_pruned=False)) == len(trace.steps)


def test_distribution_rows_show_the_cut():
    ex = nucleus_example()
    _, trace = sample(ex.next_log_probs, ex.bos_id, ex.eos_id, 2, top_k=3, top_p=0.9, seed=0, return_trace=True)
    rows = trace.distribution_rows(0, vocabulary=ex.vocabulary, top=6)
    assert [r["token_label"] for r in rows] == ["fine", "good", "okay", "great", "nice", "bad"]
    assert [r["kept"] for r in rows] == [True, True, True, False, False, False]  # top-3 then p=.9 of .85
    assert rows[0]["filtered_prob"] == pytest.approx(0.50 / 0.85)
    assert rows[3]["prob"] == pytest.approx(0.06) and rows[3]["filtered_prob"] == 0.0
    assert trace.steps[0].kept_mask.sum() == 3


def test_sample_trace_rows_follow_the_samples():
    table = NGramTable.random(5, 2, seed=3)
    draws, trace = sample(table, BOS, EOS, 4, seed=2, num_samples=6, return_trace=True)
    assert trace.results == draws
    assert len(trace.steps[0].prefixes) == 6 and len(trace.steps[0].candidates) == 6
    for step in trace.steps:
        np.testing.assert_allclose(step.filtered_probs.sum(axis=1), 1.0)


def test_exhaustive_trace_prunes_nothing_possible():
    table = NGramTable.random(3, 2, seed=5)
    best, trace = exhaustive_search(table, BOS, EOS, 3, return_trace=True)
    assert trace.results == [best]
    assert all((step.candidates.status != PRUNED).all() for step in trace.steps)
    assert [len(step.prefixes) for step in trace.steps] == [1, 2, 4]  # every non-<eos> prefix is expanded
