"""Exhaustive search: score every possible output and return the best — for tiny vocabularies and lengths.

The outputs are all token sequences that end at their first ``<eos>`` within ``max_len`` tokens, plus all
sequences of exactly ``max_len`` tokens without ``<eos>`` (cut off, as greedy and beam search cut them).
Their number is ``Σ_{t=1..T} (|V|−1)^(t−1) + (|V|−1)^T`` — the ``O(|V|^T)`` that makes exhaustive search
impossible in practice; above ``max_sequences`` the search refuses with a ``ValueError`` giving the count.
Branches of probability 0 are not expanded. The search runs breadth first, one model call per length on
all prefixes of that length.
"""

from __future__ import annotations

import numpy as np

from elmo_keras.argument_checks import check_int
from elmo_keras.decoding._checks import (
    MAX_DECODE_TOKENS,
    call_model,
    check_decoding_args,
    check_length_penalty,
    check_max_len,
    declared_vocab_size,
    start_prefixes,
)
from elmo_keras.decoding.hypothesis import length_normalized_score, make_hypothesis
from elmo_keras.decoding.trace import FINISHED, KEPT, PRUNED, DecodeTrace, StepTrace, ranked_candidates

MAX_EXHAUSTIVE_SEQUENCES = 200_000


def count_sequences(vocab_size: int, max_len: int) -> int:
    """How many outputs exhaustive search scores (the formula in the module docstring).

    Args:
        vocab_size: int ≥ 1, the number of tokens, ``<eos>`` included.
        max_len: int in ``[1, MAX_DECODE_LENGTH]``, the most tokens generated.

    Example:
        >>> count_sequences(3, 2)  # <eos>, a <eos>, b <eos>, and the cut-off a a, a b, b a, b b
        7
    """
    others, max_len = check_int(vocab_size, "vocab_size") - 1, check_max_len(max_len)
    return sum(others ** (t - 1) for t in range(1, max_len + 1)) + others**max_len


def exhaustive_search(
    next_log_probs,
    bos_id: int,
    eos_id: int,
    max_len: int,
    length_penalty: float = 0.0,
    num_return: int | None = None,
    max_sequences: int = MAX_EXHAUSTIVE_SEQUENCES,
    return_trace: bool = False,
):
    """The most probable output over all sequences up to ``max_len`` tokens.

    Args:
        next_log_probs: ``fn(prefixes int (n, t)) -> float (n, vocab)`` log-probabilities; prefixes start with
            ``bos_id``.
        bos_id, eos_id: boundary token ids.
        max_len: the most tokens generated (``<eos>`` included).
        length_penalty: α in ``score = log_prob / length ** α``. Defaults to 0 (plain log-probability).
        num_return: None → the best ``Hypothesis``; an int → the best ``num_return``, best first. Defaults to None.
        max_sequences: refuse when ``count_sequences(vocab, max_len)`` exceeds this (checked before the first
            call when ``next_log_probs`` has a ``vocab_size``); at most ``MAX_DECODE_TOKENS``. Defaults to
            ``MAX_EXHAUSTIVE_SEQUENCES``.
        return_trace: also return a ``DecodeTrace`` (every extension at every length; none pruned except those
            of probability 0).

    Raises:
        ValueError: the search space is larger than ``max_sequences`` (the message gives both numbers).

    Returns:
        The best ``Hypothesis`` (or a list), ties in enumeration order; ``(result, trace)`` with ``return_trace``.

    Example:
        >>> from elmo_keras.decoding.worked_examples import greedy_trap
        >>> ex = greedy_trap()
        >>> best = exhaustive_search(ex.next_log_probs, ex.bos_id, ex.eos_id, ex.max_len)
        >>> ex.words(best.tokens), round(best.prob, 2)
        (['B', 'C', '</S>'], 0.36)
    """
    bos_id, eos_id, max_len = check_decoding_args(next_log_probs, bos_id, eos_id, max_len)
    length_penalty = check_length_penalty(length_penalty)
    wanted = check_int(num_return, "num_return", allow_none=True) or 1
    max_sequences = check_int(max_sequences, "max_sequences")
    if max_sequences > MAX_DECODE_TOKENS:
        raise ValueError(f"max_sequences = {max_sequences:,} is more sequences than exhaustive search holds (at most "
                         f"{MAX_DECODE_TOKENS:,}, MAX_DECODE_TOKENS): use beam_search for larger searches")
    if declared_vocab_size(next_log_probs) is not None:
        _check_search_space(declared_vocab_size(next_log_probs), max_len, max_sequences)
    params = {"length_penalty": length_penalty, "max_len": max_len}
    trace = DecodeTrace("exhaustive", params, bos_id, eos_id) if return_trace else None

    prefixes = start_prefixes(bos_id)  # (n, t): every live prefix of length t − 1
    cumulative = np.zeros(1)
    done_tokens, done_log_probs = [], []  # complete outputs, grouped by length
    vocab_size = None
    for step in range(1, max_len + 1):
        log_probs = call_model(next_log_probs, prefixes, vocab_size, eos_id)  # (n, V)
        if vocab_size is None:
            vocab_size = log_probs.shape[1]
            _check_search_space(vocab_size, max_len, max_sequences)
        totals = cumulative[:, None] + log_probs  # (n, V)
        parents, tokens = np.divmod(np.arange(totals.size), vocab_size)
        flat = totals.ravel()
        possible = np.isfinite(flat)
        ends = (tokens == eos_id) | (step == max_len)  # complete now: ended, or cut off at max_len
        sequences = np.concatenate([prefixes[parents], tokens[:, None]], axis=1)  # (n * V, t + 1)
        done = possible & ends
        done_tokens.append(sequences[done, 1:])
        done_log_probs.append(flat[done])
        if trace is not None:
            status = np.where(possible, np.where(tokens == eos_id, FINISHED, KEPT), PRUNED)
            trace.steps.append(_exhaustive_step(step, prefixes, cumulative, log_probs, totals, status, length_penalty))
            trace.finished += [make_hypothesis(s[1:], lp, eos_id, length_penalty)
                               for s, lp, end in zip(sequences[done], flat[done], tokens[done] == eos_id) if end]
        keep = possible & ~ends
        prefixes, cumulative = sequences[keep], flat[keep]
        if len(prefixes) == 0:
            break

    lengths = np.concatenate([np.full(len(lp), seqs.shape[1]) for seqs, lp in zip(done_tokens, done_log_probs)])
    log_probs_all = np.concatenate(done_log_probs)
    scores = length_normalized_score(log_probs_all, lengths, length_penalty)
    best = np.argsort(-scores, kind="stable")[:wanted]
    offsets = np.cumsum([0] + [len(lp) for lp in done_log_probs])
    results = []
    for index in best:
        group = int(np.searchsorted(offsets, index, side="right") - 1)
        tokens = done_tokens[group][index - offsets[group]]
        results.append(make_hypothesis(tokens, log_probs_all[index], eos_id, length_penalty))
    result = results[0] if num_return is None else results
    if trace is None:
        return result
    trace.results = results
    return result, trace


def _check_search_space(vocab_size: int, max_len: int, max_sequences: int) -> None:
    total = count_sequences(vocab_size, max_len)
    if total > max_sequences:
        shown = f"{total:,}" if total < 10**15 else f"about 10^{len(str(total)) - 1}"  # one line, however large
        raise ValueError(
            f"exhaustive search would score {shown} sequences (vocab {vocab_size}, max_len {max_len}), "
            f"more than the limit max_sequences={max_sequences:,}; use beam_search instead"
        )


def _exhaustive_step(step, prefixes, cumulative, log_probs, totals, status, length_penalty) -> StepTrace:
    vocab_size = log_probs.shape[1]
    order = np.argsort(-totals.ravel(), kind="stable")
    parents, tokens = np.divmod(order, vocab_size)
    ranked_totals = totals.ravel()[order]
    probs = np.exp(log_probs)
    return StepTrace(
        step=step,
        prefixes=[tuple(int(t) for t in row[1:]) for row in prefixes],
        prefix_log_probs=cumulative.copy(),
        log_probs=log_probs,
        probs=probs,
        filtered_probs=probs,
        candidates=ranked_candidates(
            parents, tokens, log_probs[parents, tokens], ranked_totals,
            length_normalized_score(ranked_totals, step, length_penalty), status[order],
        ),
    )
