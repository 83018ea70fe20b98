"""Greedy search: ``y_t = argmax_y P(y | y_<t)``, stopping at ``<eos>`` or after ``max_len`` tokens.

Ties go to the lower token id. Greedy is beam search with ``beam_size=1``; it is written out on its own so
that the two can be tested against each other.
"""

from __future__ import annotations

import numpy as np

from elmo_keras.decoding._checks import call_model, check_decoding_args, start_prefixes
from elmo_keras.decoding.hypothesis import make_hypothesis
from elmo_keras.decoding.trace import FINISHED, KEPT, PRUNED, DecodeTrace, StepTrace, ranked_candidates


def greedy(next_log_probs, bos_id: int, eos_id: int, max_len: int, return_trace: bool = False):
    """Pick the most probable next token at every step.

    Args:
        next_log_probs: ``fn(prefixes int (n, t)) -> float (n, vocab)`` log-probabilities; prefixes start with
            ``bos_id``.
        bos_id, eos_id: boundary token ids.
        max_len: the most tokens generated (``<eos>`` included), at most ``MAX_DECODE_LENGTH``.
        return_trace: also return a ``DecodeTrace`` (every token ranked per step, the pick marked kept or
            finished).

    Returns:
        The ``Hypothesis`` (``tokens`` without ``<bos>``, ending with ``<eos>`` unless cut at ``max_len``),
        or ``(hypothesis, trace)``.

    Example:
        >>> from elmo_keras.decoding.worked_examples import greedy_trap
        >>> ex = greedy_trap()
        >>> ex.words(greedy(ex.next_log_probs, ex.bos_id, ex.eos_id, ex.max_len).tokens)
        ['A', 'B', '</S>']
    """
    bos_id, eos_id, max_len = check_decoding_args(next_log_probs, bos_id, eos_id, max_len)
    trace = DecodeTrace("greedy", {"max_len": max_len}, bos_id, eos_id) if return_trace else None
    prefix = start_prefixes(bos_id)  # (1, t)
    log_prob = 0.0
    vocab_size = None
    for step in range(1, max_len + 1):
        log_probs = call_model(next_log_probs, prefix, vocab_size, eos_id)  # (1, V)
        vocab_size = log_probs.shape[1]
        token = int(np.argmax(log_probs[0]))  # first maximum: lower id wins ties
        if trace is not None:
            trace.steps.append(_greedy_step(step, prefix, log_prob, log_probs, token, eos_id))
        log_prob += float(log_probs[0, token])
        prefix = np.concatenate([prefix, [[token]]], axis=1)
        if token == eos_id:
            break
    result = make_hypothesis(prefix[0, 1:], log_prob, eos_id)
    if trace is None:
        return result
    if result.finished:
        trace.finished.append(result)
    trace.results.append(result)
    return result, trace


def _greedy_step(step: int, prefix: np.ndarray, log_prob: float, log_probs: np.ndarray, token: int, eos_id: int):
    order = np.argsort(-log_probs[0], kind="stable")  # (V,) best first, ties lower id first
    status = np.full(len(order), PRUNED, dtype=object)
    status[order == token] = FINISHED if token == eos_id else KEPT
    cumulative = log_prob + log_probs[0, order]
    probs = np.exp(log_probs)
    return StepTrace(
        step=step,
        prefixes=[tuple(int(t) for t in prefix[0, 1:])],
        prefix_log_probs=np.array([log_prob]),
        log_probs=log_probs,
        probs=probs,
        filtered_probs=probs,
        candidates=ranked_candidates(np.zeros_like(order), order, log_probs[0, order], cumulative, cumulative, status),
    )

