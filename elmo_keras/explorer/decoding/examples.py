"""The classic worked examples of greedy, beam and nucleus decoding as tables computed by the decoding library
(nothing typed in).

* ``greedy_trap``: every two-word sequence with its probability (exhaustive search), greedy's pick and the best;
* ``same_branch_beam``: beam search with k = 2, every candidate of steps 1 and 2 ranked, kept or pruned,
  plus the tree;
* ``nucleus``: the first-word distribution sorted, its running total and the p = 0.9 nucleus.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from elmo_keras.decoding import beam_search, exhaustive_search, filter_distribution, greedy, sample
from elmo_keras.decoding.worked_examples import WorkedExample, all_examples
from elmo_keras.explorer.decoding.search_views import StepDistribution, TreeLayout, step_distribution, tree_layout


@dataclass(frozen=True)
class ExampleView:
    """One worked example as the page shows it: tables, a conclusion computed from them, a tree or a chart."""

    name: str
    title: str
    description: str
    tables: dict  # caption → DataFrame
    conclusion: str  # computed from the tables
    tree: TreeLayout | None = None
    distribution: StepDistribution | None = None


def example_titles() -> dict[str, str]:
    """``{name: title}``: greedy, beam, nucleus."""
    return {ex.name: ex.title for ex in all_examples()}


def _by_name(name: str) -> WorkedExample:
    examples = {ex.name: ex for ex in all_examples()}
    if name not in examples:
        raise ValueError(f"unknown worked example {name!r}; choose one of {sorted(examples)}")
    return examples[name]


def _greedy_trap(ex: WorkedExample) -> ExampleView:
    picked = greedy(ex.next_log_probs, ex.bos_id, ex.eos_id, ex.max_len)
    every = exhaustive_search(ex.next_log_probs, ex.bos_id, ex.eos_id, ex.max_len, num_return=50)
    rows = [{"sequence": h.text(ex.vocabulary), "P(sequence)": round(h.prob, 4),
             "greedy's pick": h.tokens == picked.tokens, "best": i == 0} for i, h in enumerate(every) if h.prob > 0]
    first = np.exp(ex.next_log_probs(np.array([[ex.bos_id]]))[0])
    first_rows = [{"first word": w, "P(first word)": round(float(first[i]), 4)}
                  for w, i in zip(ex.vocabulary.ids_to_tokens(np.argsort(-first)), np.argsort(-first)) if first[i] > 0]
    best = every[0]
    conclusion = (f"Greedy takes the most probable first word and ends with '{picked.text(ex.vocabulary)}' "
                  f"(P = {picked.prob:.2f}); the most probable sequence is '{best.text(ex.vocabulary)}' "
                  f"(P = {best.prob:.2f}), which starts with a less probable first word.")
    return ExampleView(ex.name, ex.title, ex.description,
                       {"Step 1: first-word probabilities": pd.DataFrame(first_rows),
                        "Every sequence, most probable first (exhaustive search)": pd.DataFrame(rows)},
                       conclusion)


def _same_branch_beam(ex: WorkedExample) -> ExampleView:
    k = int(ex.expected.get("beam_size", 2))
    results, trace = beam_search(ex.next_log_probs, ex.bos_id, ex.eos_id, ex.max_len, beam_size=k, return_trace=True)
    rows = pd.DataFrame(trace.candidate_rows(ex.vocabulary))
    tables = {}
    for step in (1, 2):
        part = rows[rows["step"] == step]
        tables[f"Step {step}: all {len(part)} candidates ranked together"] = pd.DataFrame({
            "sequence": [f"{p} {t}".strip() for p, t in zip(part["prefix_text"], part["token_label"])],
            "from branch": [p or "<S>" for p in part["prefix_text"]],
            "P(sequence)": np.exp(part["log_prob"]).round(4).to_numpy(),
            "status": part["status"].to_numpy(),
        })
    step2 = rows[(rows["step"] == 2) & (rows["status"] != "pruned")]
    branches = sorted(set(step2["prefix_text"]))
    step_two = trace.steps[1]
    dropped = [" ".join(ex.vocabulary.ids_to_tokens(step_two.prefixes[r])) for r in step_two.dropped_parents]
    survivors = ", ".join(f"{p} {t}" for p, t in zip(step2["prefix_text"], step2["token_label"]))
    plural = len(dropped) > 1
    conclusion = (f"Both survivors of step 2 ({survivors}) come from branch{'es' if len(branches) > 1 else ''} "
                  f"{', '.join(branches)}; branch{'es' if plural else ''} {', '.join(dropped) or 'none'} "
                  f"{'are' if plural else 'is'} dropped entirely, even though per-branch greedy would keep one of "
                  f"{'their' if plural else 'its'} extensions.")
    return ExampleView(ex.name, ex.title, ex.description, tables, conclusion,
                       tree=tree_layout(trace, ex.vocabulary, pruned_per_parent=5))


def _nucleus(ex: WorkedExample) -> ExampleView:
    p = float(ex.expected.get("top_p", 0.9))
    log_probs = ex.next_log_probs(np.array([[ex.bos_id]]))
    probs, filtered = filter_distribution(log_probs, top_p=p)
    order = np.argsort(-probs[0], kind="stable")
    order = order[probs[0, order] > 0]
    table = pd.DataFrame({
        "word": ex.vocabulary.ids_to_tokens(order),
        "P": probs[0, order].round(4),
        "running total": np.cumsum(probs[0, order]).round(4),
        "in nucleus": filtered[0, order] > 0,
        "P renormalised": filtered[0, order].round(4),
    })
    kept = table[table["in nucleus"]]
    conclusion = (f"The running total first reaches p = {p:g} at '{kept['word'].iloc[-1]}' "
                  f"({kept['running total'].iloc[-1]:.2f}), so the nucleus is exactly "
                  f"{{{', '.join(kept['word'])}}}; each is divided by {kept['P'].sum():.2f}.")
    # a sampling trace of one step gives the same chart as the decoding page
    _, trace = sample(ex.next_log_probs, ex.bos_id, ex.eos_id, 1, top_p=p, seed=0, return_trace=True)
    return ExampleView(ex.name, ex.title, ex.description, {f"Next-word distribution, nucleus p = {p:g}": table},
                       conclusion, distribution=step_distribution(trace, 0, 0, ex.vocabulary))


def example_view(name: str) -> ExampleView:
    """The tables, conclusion and (where useful) tree or distribution of one worked example.

    Raises:
        ValueError: an unknown ``name`` (the known ones are listed).
    """
    ex = _by_name(name)
    build = {"greedy_trap": _greedy_trap, "same_branch_beam": _same_branch_beam, "nucleus": _nucleus}
    return build[ex.name](ex)
