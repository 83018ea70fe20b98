"""Beam search over a next-token log-probability function: the global top k of k × |V| at every step.

At every step each live hypothesis is extended by every token, all candidates are ranked *together* by
their sequence log-probability ``log P(y_1 … y_t)``, and the best ``slots`` survive, where
``slots = beam_size − len(finished)``. Survivors ending in ``<eos>`` move to the finished list; the others
stay live (so the beam shrinks as hypotheses finish). The search stops when ``beam_size`` hypotheses have
finished or after ``max_len`` tokens; the live hypotheses left at ``max_len`` join the results unfinished.
Results are ranked by ``score = log_prob / length ** length_penalty`` (``length`` counts ``<eos>``).

Ties are broken by position in the flattened ``(live, vocab)`` candidate array, lower first: the better-ranked
parent, then the lower token id. Candidates with probability 0 (``-inf``) are never kept. With
``beam_size=1`` this is greedy search; with ``beam_size >= |V| ** max_len`` nothing is ever pruned and it
equals exhaustive search (tests check both).
"""

from __future__ import annotations

import numpy as np

from elmo_keras.argument_checks import check_int
from elmo_keras.decoding._checks import (
    call_model,
    check_candidates,
    check_decoding_args,
    check_length_penalty,
    check_rows,
    declared_vocab_size,
    start_prefixes,
)
from elmo_keras.decoding.hypothesis import length_normalized_score, make_hypothesis, rank_hypotheses
from elmo_keras.decoding.trace import FINISHED, KEPT, PRUNED, DecodeTrace, StepTrace, ranked_candidates


def beam_search(
    next_log_probs,
    bos_id: int,
    eos_id: int,
    max_len: int,
    beam_size: int,
    length_penalty: float = 0.0,
    num_return: int | None = None,
    return_trace: bool = False,
):
    """Beam search; one call of ``next_log_probs`` per step on all live hypotheses.

    Args:
        next_log_probs: ``fn(prefixes int (n, t)) -> float (n, vocab)`` log-probabilities; prefixes start with
            ``bos_id``.
        bos_id, eos_id: boundary token ids.
        max_len: the most tokens generated (``<eos>`` included), at most ``MAX_DECODE_LENGTH``.
        beam_size: k, the number of hypotheses kept (live + finished); ``beam_size × max_len`` at most
            ``MAX_DECODE_TOKENS`` and ``beam_size × vocab`` at most ``MAX_DECODE_CANDIDATES`` (checked before the
            first call when ``next_log_probs`` has a ``vocab_size``, else on its first, one-row output).
        length_penalty: α in ``score = log_prob / length ** α``; 0 ranks by plain log-probability (favours
            short outputs), 1 by mean token log-probability. Defaults to 0.
        num_return: how many hypotheses to return, at most ``beam_size``. Defaults to None (``beam_size``).
        return_trace: also return a ``DecodeTrace``; each step lists all ``n × vocab`` candidates ranked, marked
            kept / finished / pruned.

    Returns:
        A list of ``Hypothesis``, best ``score`` first (fewer than ``num_return`` only if fewer sequences have
        non-zero probability), or ``(hypotheses, trace)``.

    Example:
        >>> from elmo_keras.decoding.worked_examples import same_branch_beam
        >>> ex = same_branch_beam()
        >>> [ex.words(h.tokens) for h in beam_search(ex.next_log_probs, ex.bos_id, ex.eos_id, 3, beam_size=2)]
        [['A', 'B', '</S>'], ['A', 'D', '</S>']]
    """
    bos_id, eos_id, max_len = check_decoding_args(next_log_probs, bos_id, eos_id, max_len)
    beam_size = check_rows("beam_size", beam_size, max_len)
    length_penalty = check_length_penalty(length_penalty)
    num_return = check_int(num_return, "num_return", allow_none=True) or beam_size
    if num_return > beam_size:
        raise ValueError(f"num_return must be <= beam_size ({beam_size}), received {num_return}")
    if declared_vocab_size(next_log_probs) is not None:
        check_candidates("beam_size", beam_size, declared_vocab_size(next_log_probs))
    params = {"beam_size": beam_size, "length_penalty": length_penalty, "max_len": max_len}
    trace = DecodeTrace("beam", params, bos_id, eos_id) if return_trace else None

    prefixes = start_prefixes(bos_id)  # (n, t) live hypotheses, bos included
    cumulative = np.zeros(1)  # (n,)
    finished = []
    vocab_size = None
    for step in range(1, max_len + 1):
        slots = beam_size - len(finished)
        log_probs = call_model(next_log_probs, prefixes, vocab_size, eos_id)  # (n, V)
        if vocab_size is None:  # the first call (one row) tells the vocabulary: the later ones must fit
            check_candidates("beam_size", beam_size, log_probs.shape[1])
        vocab_size = log_probs.shape[1]
        candidates = (cumulative[:, None] + log_probs).ravel()  # (n * V,) flat index = parent * V + token
        order = np.argsort(-candidates, kind="stable")
        chosen = order[:slots]
        chosen = chosen[np.isfinite(candidates[chosen])]
        parents, tokens = np.divmod(chosen, vocab_size)
        ends = tokens == eos_id
        sequences = np.concatenate([prefixes[parents], tokens[:, None]], axis=1)  # (slots, t + 1)
        finished += [
            make_hypothesis(seq[1:], candidates[flat], eos_id, length_penalty)
            for seq, flat in zip(sequences[ends], chosen[ends])
        ]
        if trace is not None:
            trace.steps.append(
                _beam_step(step, prefixes, cumulative, log_probs, order, len(chosen), ends, length_penalty, eos_id)
            )
            trace.finished += finished[len(finished) - int(ends.sum()):]
        prefixes, cumulative = sequences[~ends], candidates[chosen[~ends]]
        if len(prefixes) == 0:
            break
    unfinished = [make_hypothesis(seq[1:], lp, eos_id, length_penalty) for seq, lp in zip(prefixes, cumulative)]
    results = rank_hypotheses(finished + unfinished)[:num_return]
    if trace is None:
        return results
    trace.results = results
    return results, trace


def _beam_step(step, prefixes, cumulative, log_probs, order, num_chosen, ends, length_penalty, eos_id) -> StepTrace:
    vocab_size = log_probs.shape[1]
    parents, tokens = np.divmod(order, vocab_size)
    status = np.full(len(order), PRUNED, dtype=object)
    status[:num_chosen] = np.where(ends, FINISHED, KEPT)
    totals = cumulative[parents] + log_probs[parents, tokens]
    probs = np.exp(log_probs)
    return StepTrace(
        step=step,
        prefixes=[tuple(int(t) for t in row[1:]) for row in prefixes],
        prefix_log_probs=cumulative.copy(),
        log_probs=log_probs,
        probs=probs,
        filtered_probs=probs,
        candidates=ranked_candidates(
            parents, tokens, log_probs[parents, tokens], totals,
            length_normalized_score(totals, step, length_penalty), status,
        ),
    )
