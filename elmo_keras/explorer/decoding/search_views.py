"""Plain-data views of decoding traces: the beam-search tree's layout and one step's distribution with its cut.

``tree_layout`` turns a ``DecodeTrace`` into nodes (one per prefix shown, at x = step) and edges, each with
its fate: ``kept``, ``finished`` or ``pruned``. Pruned extensions are many (k × |V| per step), so only the
``pruned_per_parent`` best of each parent are drawn; the count of the rest is kept per step.
``step_distribution`` lists the most probable next tokens at one step with the running total and whether
each survived the top-k / nucleus cut.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from elmo_keras.decoding.hypothesis import token_labels
from elmo_keras.decoding.trace import PRUNED, DecodeTrace

ROOT_LABEL = "<S>"


@dataclass(frozen=True)
class TreeLayout:
    """A search tree ready to draw: one row per node shown and one per edge (see the module docstring)."""

    nodes: pd.DataFrame  # node (token-id tuple), step, label, text, status, token_prob, log_prob, score, rank, y
    edges: pd.DataFrame  # step, x0, y0, x1, y1, status
    hidden_pruned: dict  # step → number of pruned extensions not drawn


def tree_layout(trace: DecodeTrace, vocabulary=None, pruned_per_parent: int = 2) -> TreeLayout:
    """Node positions for a beam-search (or exhaustive/greedy) trace; see the module docstring.

    Leaves take consecutive rows in depth-first order (children by rank), a parent sits at the mean of its
    children, so branches never cross and a dropped branch stays visibly in place.

    Args:
        trace: the ``DecodeTrace`` of a search.
        vocabulary: turns token ids into labels. Defaults to None (ids shown).
        pruned_per_parent: int, pruned extensions drawn per parent, best first. Defaults to 2.
    """
    root = {"node": (), "step": 0, "label": ROOT_LABEL, "text": ROOT_LABEL, "status": "kept",
            "token_prob": 1.0, "log_prob": 0.0, "score": 0.0, "rank": 0}
    info, children, expanded, hidden = {(): root}, {}, {()}, {}
    rows = pd.DataFrame(trace.candidate_rows(vocabulary))
    for step, group in (rows.groupby("step", sort=True) if len(rows) else []):
        group = group[group["prefix"].map(lambda prefix: prefix in expanded)].copy()
        pruned = group["status"] == PRUNED
        group["pruned_rank"] = group[pruned].groupby("parent").cumcount()  # NaN for kept/finished rows
        shown = group[~pruned | (group["pruned_rank"] < pruned_per_parent)]
        hidden[int(step)] = int(len(group) - len(shown))
        for row in shown.sort_values("rank").itertuples(index=False):
            info[row.sequence] = {"node": row.sequence, "step": int(step), "label": row.token_label,
                                  "text": " ".join(token_labels(row.sequence, vocabulary)), "status": row.status,
                                  "token_prob": row.token_prob, "log_prob": row.log_prob, "score": row.score,
                                  "rank": int(row.rank)}
            children.setdefault(row.prefix, []).append(row.sequence)
            if row.status != PRUNED:
                expanded.add(row.sequence)
    y, next_leaf = {}, [0.0]

    def place(node):  # depth-first: a leaf takes the next row, a parent the mean of its children
        kids = children.get(node, [])
        if not kids:
            y[node] = -next_leaf[0]
            next_leaf[0] += 1.0
        else:
            y[node] = float(np.mean([place(kid) for kid in kids]))
        return y[node]

    place(())
    nodes = pd.DataFrame([{**info[node], "y": y[node]} for node in info])
    edges = pd.DataFrame(
        [{"step": info[kid]["step"], "x0": info[kid]["step"] - 1, "y0": y[parent], "x1": info[kid]["step"],
          "y1": y[kid], "status": info[kid]["status"]} for parent, kids in children.items() for kid in kids],
        columns=["step", "x0", "y0", "x1", "y1", "status"],
    )
    return TreeLayout(nodes, edges, hidden)


@dataclass(frozen=True)
class StepDistribution:
    """One step's next-token distribution for one hypothesis, with the top-k / nucleus cut."""

    table: pd.DataFrame  # token_label, prob, cumulative, filtered_prob, kept (most probable first)
    kept: int  # tokens inside the cut (over the whole vocabulary)
    kept_mass: float  # probability mass inside the cut (before renormalising)
    prefix: str
    chosen: str | None  # the token drawn / kept for this row at this step


def step_distribution(trace: DecodeTrace, step_index: int, row: int = 0, vocabulary=None,
                      top: int = 15) -> StepDistribution:
    """The next-token distribution of live hypothesis ``row`` at ``trace.steps[step_index]``.

    Args:
        trace: the ``DecodeTrace`` of a sampling (or search) run.
        step_index: int, index into ``trace.steps``.
        row: int, the live hypothesis. Defaults to 0.
        vocabulary: turns token ids into labels. Defaults to None (ids shown).
        top: int, tokens listed in ``table`` (most probable first). Defaults to 15.

    Raises:
        ValueError: ``step_index`` or ``row`` outside the trace.
    """
    if not 0 <= step_index < len(trace.steps):
        raise ValueError(f"step_index must be in [0, {len(trace.steps)}), received {step_index}")
    step = trace.steps[step_index]
    if not 0 <= row < len(step.prefixes):
        raise ValueError(f"row must be in [0, {len(step.prefixes)}) at step {step.step}, received {row}")
    full = pd.DataFrame(trace.distribution_rows(step_index, row, vocabulary))
    full = full[full["prob"] > 0].reset_index(drop=True)  # impossible tokens (e.g. <pad>) are not drawn
    full["cumulative"] = full["prob"].cumsum()
    chosen = None
    c = step.candidates
    picks = [int(t) for p, t, s in zip(c.parents, c.tokens, c.status) if p == row and s != PRUNED]
    if picks:
        chosen = token_labels(picks[:1], vocabulary)[0]
    return StepDistribution(
        table=full.head(top)[["token_label", "prob", "cumulative", "filtered_prob", "kept"]].reset_index(drop=True),
        kept=int(full["kept"].sum()),
        kept_mass=float(full.loc[full["kept"], "prob"].sum()),
        prefix=" ".join(token_labels(step.prefixes[row], vocabulary)),
        chosen=chosen,
    )
