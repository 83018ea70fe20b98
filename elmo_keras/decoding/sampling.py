"""Ancestral sampling with temperature, top-k and top-p (nucleus) cuts, reproducible with a seed.

At every step each live sample draws its next token from ``filter_distribution(log_probs, temperature,
top_k, top_p)`` (see ``filtering``); all live samples share one model call. Draws use a NumPy
``Generator``: the same ``seed`` (and arguments) gives the same samples.
"""

from __future__ import annotations

import numpy as np

from elmo_keras.decoding._checks import (
    call_model,
    check_candidates,
    check_decoding_args,
    check_rows,
    check_sampling_args,
    declared_vocab_size,
    start_prefixes,
)
from elmo_keras.decoding.filtering import filter_distribution
from elmo_keras.decoding.hypothesis import make_hypothesis
from elmo_keras.decoding.trace import FINISHED, KEPT, DecodeTrace, StepTrace, ranked_candidates


def draw_tokens(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One token per row of ``probs`` by inverse CDF; zero-probability tokens are never drawn.

    Args:
        probs: ``(n, vocab)`` non-negative weights (rows need not be normalised).
        rng: the ``numpy.random.Generator`` drawn from (advanced by ``n`` draws).

    Returns:
        int ``(n,)`` token ids.
    """
    cumulative = np.cumsum(probs, axis=1)  # (n, V)
    threshold = rng.random(len(probs))[:, None] * cumulative[:, -1:]  # (n, 1), in [0, total)
    return np.minimum((cumulative <= threshold).sum(axis=1), probs.shape[1] - 1)


def sample(
    next_log_probs,
    bos_id: int,
    eos_id: int,
    max_len: int,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    seed=None,
    num_samples: int | None = None,
    return_trace: bool = False,
):
    """Draw sequences token by token.

    Args:
        next_log_probs: ``fn(prefixes int (n, t)) -> float (n, vocab)`` log-probabilities; prefixes start with
            ``bos_id``.
        bos_id, eos_id: boundary token ids.
        max_len: the most tokens generated (``<eos>`` included), at most ``MAX_DECODE_LENGTH``.
        temperature: divides the log-probabilities before the softmax; < 1 sharpens, > 1 flattens. As it goes
            to 0 sampling approaches greedy search, and ``temperature=0`` *is* greedy (the most probable token,
            lower id on ties). Defaults to 1 (the model's distribution).
        top_k: sample only among the ``top_k`` most probable tokens (at or above the vocabulary size: all of
            them). Defaults to None (all).
        top_p: sample only within the nucleus of mass ``top_p`` in ``(0, 1]`` (applied after top-k). Defaults to
            None (no cut).
        seed: int, None (fresh entropy) or a ``numpy.random.Generator`` (used and advanced as is). Defaults to
            None.
        num_samples: None → return one ``Hypothesis``; an int → a list of that many, drawn together. Defaults to
            None. ``num_samples × max_len`` at most ``MAX_DECODE_TOKENS``, ``num_samples × vocab`` at most
            ``MAX_DECODE_CANDIDATES`` (checked before the first call when ``next_log_probs`` has a ``vocab_size``,
            else on the first step's output, for which the model is called once on the shared ``<bos>`` prefix).
        return_trace: also return a ``DecodeTrace``; per step, each live sample's distribution before and after
            the cut and its drawn token (one candidate per live sample, in row order).

    Returns:
        A ``Hypothesis`` (or a list of ``num_samples``); ``log_prob`` sums the *model's* log-probabilities of the
        drawn tokens, unaffected by temperature and cuts. With ``return_trace``: ``(result, trace)``.

    Example:
        >>> from elmo_keras.decoding.worked_examples import nucleus_example
        >>> ex = nucleus_example()
        >>> draws = sample(ex.next_log_probs, ex.bos_id, ex.eos_id, 2, top_p=0.9, seed=0, num_samples=200)
        >>> sorted({ex.words(h.tokens)[0] for h in draws})
        ['fine', 'good', 'great', 'okay']
    """
    bos_id, eos_id, max_len = check_decoding_args(next_log_probs, bos_id, eos_id, max_len)
    temperature, top_k, top_p = check_sampling_args(temperature, top_k, top_p)
    count = 1 if num_samples is None else check_rows("num_samples", num_samples, max_len)
    if declared_vocab_size(next_log_probs) is not None:
        check_candidates("num_samples", count, declared_vocab_size(next_log_probs))
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    params = {"temperature": temperature, "top_k": top_k, "top_p": top_p, "max_len": max_len, "num_samples": count}
    trace = DecodeTrace("sample", params, bos_id, eos_id) if return_trace else None

    prefixes = start_prefixes(bos_id, count)  # (m, t) live samples
    rows = np.arange(count)  # (m,) which sample each live row is
    cumulative = np.zeros(count)  # (m,)
    results = [None] * count
    vocab_size = None
    for step in range(1, max_len + 1):
        if vocab_size is None:  # step 1: every sample's prefix is <bos>: one row tells the vocabulary first
            first = call_model(next_log_probs, prefixes[:1], None, eos_id)  # (1, V)
            check_candidates("num_samples", count, first.shape[1])
            log_probs = np.repeat(first, count, axis=0)  # (m, V)
        else:
            log_probs = call_model(next_log_probs, prefixes, vocab_size, eos_id)  # (m, V)
        vocab_size = log_probs.shape[1]
        probs, filtered = filter_distribution(log_probs, temperature, top_k, top_p)
        tokens = draw_tokens(filtered, rng)  # (m,)
        token_log_probs = log_probs[np.arange(len(tokens)), tokens]
        ends = tokens == eos_id
        if trace is not None:
            trace.steps.append(StepTrace(
                step=step,
                prefixes=[tuple(int(t) for t in row[1:]) for row in prefixes],
                prefix_log_probs=cumulative.copy(),
                log_probs=log_probs,
                probs=probs,
                filtered_probs=filtered,
                candidates=ranked_candidates(
                    np.arange(len(tokens)), tokens, token_log_probs, cumulative + token_log_probs,
                    cumulative + token_log_probs, np.where(ends, FINISHED, KEPT),
                ),
            ))
        prefixes = np.concatenate([prefixes, tokens[:, None]], axis=1)
        cumulative = cumulative + token_log_probs
        for row in np.flatnonzero(ends | (step == max_len)):
            results[rows[row]] = make_hypothesis(prefixes[row, 1:], cumulative[row], eos_id)
            if trace is not None and ends[row]:
                trace.finished.append(results[rows[row]])
        prefixes, rows, cumulative = prefixes[~ends], rows[~ends], cumulative[~ends]
        if len(rows) == 0:
            break
    result = results[0] if num_samples is None else results
    if trace is None:
        return result
    trace.results = list(results)
    return result, trace
