"""Decoding services: per-token log-probabilities, diversity, beam trees, cuts and the worked examples."""

from __future__ import annotations

import numpy as np
import pytest

from elmo_keras.decoding import beam_search, sample
from elmo_keras.decoding.trace import PRUNED
from elmo_keras.decoding.worked_examples import greedy_trap, nucleus_example, same_branch_beam
from elmo_keras.explorer.decoding.examples import example_titles, example_view
from elmo_keras.explorer.decoding.search_views import step_distribution, tree_layout
from elmo_keras.explorer.decoding.service import (
    BEAM,
    GREEDY,
    NUCLEUS,
    STRATEGIES,
    TOP_K,
    DecodeSettings,
    compare_strategies,
    diversity,
    encode_source,
    load_seq2seq_model,
    outputs_table,
    repetition_rate,
    run_strategies,
    seq2seq_ref,
    source_choices,
    token_log_probs,
)


def test_per_token_log_probs_add_up_to_the_sequence_log_prob():
    ex = greedy_trap()
    results = beam_search(ex.next_log_probs, ex.bos_id, ex.eos_id, ex.max_len, beam_size=3)
    per_token = token_log_probs(ex.next_log_probs, [h.tokens for h in results], ex.bos_id)
    for hypothesis, values in zip(results, per_token):
        assert values.sum() == pytest.approx(hypothesis.log_prob) and len(values) == len(hypothesis.tokens)
    assert np.exp(per_token[0]) == pytest.approx([0.4, 0.9, 1.0])  # B, C, </S>


def test_all_strategies_on_a_table_model():
    ex = greedy_trap()
    settings = DecodeSettings(beam_size=2, top_k=2, top_p=0.9, max_len=ex.max_len, num_samples=20, seed=1)
    results = run_strategies(ex.next_log_probs, ex.vocabulary, settings, ex.bos_id, ex.eos_id)
    assert list(results) == list(STRATEGIES)
    assert results[GREEDY].outputs[0].text == "A B" and results[BEAM].outputs[0].text == "B C"
    assert len(results[BEAM].outputs) == 2 and results[GREEDY].diversity is None
    for name in (TOP_K, NUCLEUS):
        d = results[name].diversity
        assert d["samples"] == 20 and 1 <= d["distinct"] <= 9 and d["distinct_fraction"] == d["distinct"] / 20
    top_k_first = {o.text.split()[0] for o in results[TOP_K].outputs}
    assert top_k_first <= {"A", "B"}  # k = 2 cuts C at the first step
    table = outputs_table(results[BEAM])
    assert list(table.columns) == ["output", "log P", "score", "finished", "per token"]
    assert table.loc[0, "per token"].startswith("B (-0.92)")


def test_the_same_seed_draws_the_same_samples():
    ex = nucleus_example()
    settings = DecodeSettings(max_len=2, num_samples=5, seed=7)
    first = run_strategies(ex.next_log_probs, ex.vocabulary, settings)[NUCLEUS]
    again = run_strategies(ex.next_log_probs, ex.vocabulary, settings)[NUCLEUS]
    assert [o.text for o in first.outputs] == [o.text for o in again.outputs]


def test_repetition_and_diversity_numbers():
    assert repetition_rate("the the lamp".split()) == pytest.approx(1 / 3)
    assert repetition_rate([]) == 0.0
    from elmo_keras.explorer.decoding.service import Output

    outputs = [Output(t, lp, lp, True, None) for t, lp in (("a b", -1.0), ("a b", -1.0), ("a a", -3.0))]
    assert diversity(outputs) == {"samples": 3, "distinct": 2, "distinct_fraction": pytest.approx(2 / 3),
                                  "repetition": pytest.approx(1 / 6), "mean_log_prob": pytest.approx(-5 / 3)}


def test_tree_layout_of_the_same_branch_example():
    ex = same_branch_beam()
    _, trace = beam_search(ex.next_log_probs, ex.bos_id, ex.eos_id, ex.max_len, beam_size=2, return_trace=True)
    layout = tree_layout(trace, ex.vocabulary, pruned_per_parent=5)
    nodes = layout.nodes.set_index("text")
    assert nodes.loc["<S>", "step"] == 0
    assert nodes.loc["A B", "status"] == "kept" and nodes.loc["A D", "status"] == "kept"
    assert nodes.loc["C E", "status"] == PRUNED and nodes.loc["A B </S>", "status"] == "finished"
    # a parent sits between its children, branches do not cross: every A child above every C child
    a_children = layout.nodes[layout.nodes["text"].str.startswith("A ") & (layout.nodes["step"] == 2)]
    c_children = layout.nodes[layout.nodes["text"].str.startswith("C ") & (layout.nodes["step"] == 2)]
    assert a_children["y"].min() > c_children["y"].max()
    assert len(layout.edges) == len(layout.nodes) - 1 and layout.hidden_pruned == {1: 0, 2: 0, 3: 0}
    few = tree_layout(trace, ex.vocabulary, pruned_per_parent=1)
    assert few.hidden_pruned[2] == 6 and len(few.nodes) < len(layout.nodes)


def test_step_distribution_marks_the_nucleus():
    ex = nucleus_example()
    _, trace = sample(ex.next_log_probs, ex.bos_id, ex.eos_id, 1, top_p=0.9, seed=0, return_trace=True)
    view = step_distribution(trace, 0, 0, ex.vocabulary)
    assert view.kept == 4 and view.kept_mass == pytest.approx(0.91)
    assert list(view.table["token_label"][:4]) == ["fine", "good", "okay", "great"]
    assert view.table["kept"].tolist() == [True] * 4 + [False] * 3  # zero-probability tokens left out
    assert view.table["cumulative"].iloc[3] == pytest.approx(0.91) and view.chosen in {"fine", "good", "okay", "great"}
    with pytest.raises(ValueError, match="step_index must be in"):
        step_distribution(trace, 5)
    with pytest.raises(ValueError, match="row must be in"):
        step_distribution(trace, 0, 3)


def test_worked_examples_reproduce_the_notes():
    assert list(example_titles()) == ["greedy_trap", "same_branch_beam", "nucleus"]
    trap = example_view("greedy_trap")
    sequences = trap.tables["Every sequence, most probable first (exhaustive search)"]
    assert sequences.iloc[0]["sequence"] == "B C" and sequences.iloc[0]["P(sequence)"] == pytest.approx(0.36)
    assert sequences[sequences["greedy's pick"]]["sequence"].tolist() == ["A B"]
    assert "'A B' (P = 0.20)" in trap.conclusion and "'B C' (P = 0.36)" in trap.conclusion
    beam = example_view("same_branch_beam")
    step2 = beam.tables["Step 2: all 10 candidates ranked together"]
    assert step2[step2["status"] != PRUNED]["sequence"].tolist() == ["A B", "A D"]
    assert step2.iloc[2]["sequence"] == "C E" and step2.iloc[2]["status"] == PRUNED
    assert "branch C is dropped" in beam.conclusion and beam.tree is not None
    nucleus = example_view("nucleus")
    table = nucleus.tables["Next-word distribution, nucleus p = 0.9"]
    assert table[table["in nucleus"]]["word"].tolist() == ["fine", "good", "okay", "great"]
    assert "{fine, good, okay, great}" in nucleus.conclusion and nucleus.distribution.kept == 4
    with pytest.raises(ValueError, match="unknown worked example"):
        example_view("nope")


def test_the_seq2seq_model_on_disk(tiny_models_dir, tmp_path):
    assert seq2seq_ref(tmp_path) is None
    model = load_seq2seq_model(seq2seq_ref(tiny_models_dir))
    sources = source_choices()
    assert len(sources) == len(set(sources)) > 20
    assert encode_source("Turn ON the lamp", model.vocabulary) == model.vocabulary.encode(["turn", "on", "the", "lamp"])
    with pytest.raises(ValueError, match="does not know 'zebra'"):
        encode_source("turn on the zebra", model.vocabulary)
    with pytest.raises(ValueError, match="Type a source"):
        encode_source("  ", model.vocabulary)
    view = compare_strategies(model, sources[0], DecodeSettings(max_len=4, num_samples=3))
    assert view.source == sources[0] and list(view.results) == list(STRATEGIES)
    for result in view.results.values():
        for output in result.outputs:
            assert output.tokens["log_prob"].sum() == pytest.approx(output.log_prob, abs=1e-4)
            assert len(output.tokens) <= 4
