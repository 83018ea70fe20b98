"""Step-by-step decoding traces: plain dataclasses of NumPy arrays and token ids, for display.

A strategy called with ``return_trace=True`` returns ``(result, DecodeTrace)``. The trace holds, for every
step, the live hypotheses that were expanded, the model's next-token distribution for each of them before and
after filtering (temperature, top-k, top-p), and the ranked candidate extensions with their fate:

* ``"kept"``: the extension stays live (a beam survivor, the greedy pick, the sampled token);
* ``"finished"``: the extension ends with ``<eos>`` and moves to the finished list;
* ``"pruned"``: ranked but not kept (beam search: outside the global top k).

Drawing a beam-search tree needs only ``DecodeTrace.candidate_rows()``: every row names its ``prefix`` (the
parent node) and its ``sequence`` (the child node) as token-id tuples, plus labels through a vocabulary.
A per-step bar chart with the top-k/nucleus cut needs ``DecodeTrace.distribution_rows(step, row)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from elmo_keras.argument_checks import check_int
from elmo_keras.decoding.hypothesis import Hypothesis, token_labels

KEPT = "kept"
FINISHED = "finished"
PRUNED = "pruned"
STATUSES = (KEPT, FINISHED, PRUNED)


@dataclass
class Candidates:
    """Ranked candidate extensions at one step, best first; all arrays have shape ``(m,)``.

    Extensions of probability 0 are left out (they are never kept and only clutter a drawing).

    Attributes:
        parents: row of ``StepTrace.prefixes`` each candidate extends.
        tokens: the token appended.
        token_log_probs: the model's log-probability of that token (unfiltered).
        log_probs: cumulative log-probability of the extended sequence.
        scores: the ranking score (``log_probs`` length-normalised for beam search).
        status: ``"kept"``, ``"finished"`` or ``"pruned"`` per candidate.
    """

    parents: np.ndarray
    tokens: np.ndarray
    token_log_probs: np.ndarray
    log_probs: np.ndarray
    scores: np.ndarray
    status: np.ndarray

    def __len__(self) -> int:
        return len(self.tokens)


@dataclass
class StepTrace:
    """One decoding step (choosing the token at position ``step``, counted from 1 after ``<bos>``).

    Attributes:
        step: position of the chosen token (1 = first token after ``<bos>``).
        prefixes: the ``n`` live hypotheses expanded at this step (token ids without ``<bos>``), row order.
        prefix_log_probs: their cumulative log-probabilities, ``(n,)``.
        log_probs: the model's next-token log-probabilities, ``(n, vocab)``.
        probs: the distribution after temperature, before any cut, ``(n, vocab)`` (``exp(log_probs)`` for
            greedy, beam and exhaustive search).
        filtered_probs: after top-k / top-p, renormalised, ``(n, vocab)``; zero outside the kept set.
        candidates: the ranked extensions and their fate.
    """

    step: int
    prefixes: list[tuple[int, ...]]
    prefix_log_probs: np.ndarray
    log_probs: np.ndarray
    probs: np.ndarray
    filtered_probs: np.ndarray
    candidates: Candidates

    @property
    def kept_mask(self) -> np.ndarray:
        """``(n, vocab)`` bool: tokens that survived the top-k/top-p cut."""
        return self.filtered_probs > 0

    @property
    def dropped_parents(self) -> list[int]:
        """Rows of ``prefixes`` none of whose extensions was kept or finished (a dropped beam branch)."""
        alive = set(self.candidates.parents[self.candidates.status != PRUNED].tolist())
        return [row for row in range(len(self.prefixes)) if row not in alive]


@dataclass
class DecodeTrace:
    """Everything a strategy did, step by step.

    Attributes:
        strategy: ``"greedy"``, ``"beam"``, ``"sample"`` or ``"exhaustive"``.
        params: the strategy's settings (beam size, temperature, top_k, …) as plain values.
        bos_id, eos_id: the boundary ids used.
        steps: one ``StepTrace`` per step.
        finished: hypotheses in the order they emitted ``<eos>``.
        results: what the strategy returned, best first.
    """

    strategy: str
    params: dict
    bos_id: int
    eos_id: int
    steps: list[StepTrace] = field(default_factory=list)
    finished: list[Hypothesis] = field(default_factory=list)
    results: list[Hypothesis] = field(default_factory=list)

    def candidate_rows(self, vocabulary=None, include_pruned: bool = True) -> list[dict]:
        """One dict per candidate of every step (``pandas.DataFrame(rows)`` makes a table).

        Keys: ``step``, ``rank``, ``parent``, ``prefix`` and ``sequence`` (token-id tuples: the tree's parent and
        child nodes), ``prefix_text``, ``token``, ``token_label``, ``token_prob``, ``log_prob``, ``score``,
        ``status``.

        Args:
            vocabulary: names the tokens in the labels (see ``token_labels``). Defaults to None (the ids).
            include_pruned: also list the pruned candidates. Defaults to True.
        """
        rows = []
        for step in self.steps:
            c = step.candidates
            for rank in range(len(c)):
                if not include_pruned and c.status[rank] == PRUNED:
                    continue
                prefix = step.prefixes[int(c.parents[rank])]
                token = int(c.tokens[rank])
                rows.append({
                    "step": step.step,
                    "rank": rank,
                    "parent": int(c.parents[rank]),
                    "prefix": prefix,
                    "sequence": prefix + (token,),
                    "prefix_text": " ".join(token_labels(prefix, vocabulary)),
                    "token": token,
                    "token_label": token_labels([token], vocabulary)[0],
                    "token_prob": float(np.exp(c.token_log_probs[rank])),
                    "log_prob": float(c.log_probs[rank]),
                    "score": float(c.scores[rank]),
                    "status": str(c.status[rank]),
                })
        return rows

    def distribution_rows(self, step_index: int, row: int = 0, vocabulary=None, top: int | None = None) -> list[dict]:
        """The next-token distribution of one live hypothesis at ``steps[step_index]``, most probable first.

        Keys: ``token``, ``token_label``, ``prob`` (after temperature, before the cut), ``model_prob``
        (``exp(log_probs)``), ``filtered_prob`` (after the cut, renormalised), ``kept`` (inside the cut).
        Ties are listed lower id first (the same order the cut uses).

        Args:
            step_index: index into ``steps``.
            row: which live hypothesis of that step (a row of its ``prefixes``). Defaults to 0.
            vocabulary: names the tokens in ``token_label``. Defaults to None (the ids).
            top: int ≥ 1, the most rows returned. Defaults to None (the whole vocabulary).
        """
        top = check_int(top, "top", allow_none=True)
        step = self.steps[step_index]
        probs = step.probs[row]
        order = np.argsort(-probs, kind="stable")[: top if top is not None else len(probs)]
        labels = token_labels(order, vocabulary)
        return [
            {
                "token": int(t),
                "token_label": label,
                "prob": float(probs[t]),
                "model_prob": float(np.exp(step.log_probs[row, t])),
                "filtered_prob": float(step.filtered_probs[row, t]),
                "kept": bool(step.filtered_probs[row, t] > 0),
            }
            for t, label in zip(order, labels)
        ]


def ranked_candidates(parents, tokens, token_log_probs, log_probs, scores, status) -> Candidates:
    """A ``Candidates`` from array-likes (copied, fixed dtypes); impossible (``-inf``) extensions are left out.

    Args:
        parents, tokens, token_log_probs, log_probs, scores, status: ``(m,)`` each, as ``Candidates`` holds them;
            ``log_probs`` decides which are possible.
    """
    log_probs = np.asarray(log_probs, dtype=np.float64)
    possible = np.isfinite(log_probs)
    return Candidates(
        parents=np.asarray(parents, dtype=np.int64)[possible],
        tokens=np.asarray(tokens, dtype=np.int64)[possible],
        token_log_probs=np.asarray(token_log_probs, dtype=np.float64)[possible],
        log_probs=log_probs[possible],
        scores=np.asarray(scores, dtype=np.float64)[possible],
        status=np.asarray(status, dtype=object)[possible],
    )
