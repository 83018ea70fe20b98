"""Reshaping a next-token distribution before sampling: temperature, top-k and top-p (nucleus) cuts.

Order of operations (as in most libraries): ``probs = softmax(log_probs / temperature)``, then keep the top
``k`` tokens, renormalise, then keep the nucleus — the smallest set of most probable tokens whose total
reaches ``p`` — and renormalise again.

Tie-breaking is stable: tokens are ordered by probability, highest first, and equal probabilities keep id
order (lower id first), so a cut through a tie keeps the lower ids. Tokens with probability 0 are never kept.
A running total counts as reaching ``p`` when it is within ``NUCLEUS_TOLERANCE`` of it, so rounding
(``0.7 + 0.2 = 0.8999…``) does not add a token.
"""

from __future__ import annotations

import numpy as np

from elmo_keras.argument_checks import check_int
from elmo_keras.decoding._checks import check_temperature, check_top_p

NUCLEUS_TOLERANCE = 1e-9


def _as_probs(probs, name: str = "probs") -> np.ndarray:
    probs = np.asarray(probs, dtype=np.float64)
    if probs.ndim == 0 or probs.size == 0:
        raise ValueError(f"{name} must be a non-empty array, received shape {probs.shape}")
    if not np.isfinite(probs).all() or (probs < 0).any():
        raise ValueError(f"{name} must be finite and >= 0")
    if (probs.sum(axis=-1) <= 0).any():
        raise ValueError(f"{name} must have positive total mass in every row")
    return probs


def probability_order(probs) -> np.ndarray:
    """Token ids by probability, highest first, ties lower id first (stable), along the last axis.

    Args:
        probs: ``(..., vocab)`` probabilities (or any scores ordered like them).

    Returns:
        int ``(..., vocab)``, the ids in that order.
    """
    return np.argsort(-np.asarray(probs), axis=-1, kind="stable")


def top_k_indices(probs, k: int) -> np.ndarray:
    """The ``k`` most probable token ids of a 1-D distribution, most probable first (zero-probability ids dropped).

    Args:
        probs: ``(vocab,)`` probabilities (non-negative; need not be normalised).
        k: int ≥ 1.

    Returns:
        int ``(m,)`` ids, ``m ≤ k``.
    """
    probs = _as_probs(probs)
    if probs.ndim != 1:
        raise ValueError(f"probs must be 1-D, received shape {probs.shape}")
    k = check_int(k, "top_k")
    order = probability_order(probs)[:k]
    return order[probs[order] > 0]


def nucleus_indices(probs, p: float) -> np.ndarray:
    """The nucleus ``V(p)``: the smallest set of most probable ids whose total probability reaches ``p``.

    Args:
        probs: a 1-D distribution ``(vocab,)`` (normalised here, so unnormalised weights work too).
        p: in ``(0, 1]``.

    Returns:
        int array of kept ids, most probable first (ties: lower id first).

    Example:
        >>> nucleus_indices([0.06, 0.5, 0.04, 0.25, 0.1, 0.05], 0.9).tolist()   # .5 + .25 + .1 + .06 = .91
        [1, 3, 4, 0]
    """
    probs = _as_probs(probs)
    if probs.ndim != 1:
        raise ValueError(f"probs must be 1-D, received shape {probs.shape}")
    p = check_top_p(p)
    order = probability_order(probs)
    return order[_nucleus_mask(probs[None], p)[0][order]]


def _top_k_mask(probs: np.ndarray, k: int) -> np.ndarray:
    """``(n, V)`` bool: the ``k`` most probable (non-zero) tokens of each row."""
    order = probability_order(probs)[:, :k]
    mask = np.zeros(probs.shape, dtype=bool)
    np.put_along_axis(mask, order, True, axis=1)
    return mask & (probs > 0)


def _nucleus_mask(probs: np.ndarray, p: float) -> np.ndarray:
    """``(n, V)`` bool: each row's nucleus (rows normalised first)."""
    order = probability_order(probs)
    sorted_probs = np.take_along_axis(probs, order, axis=1)
    running = np.cumsum(sorted_probs, axis=1) / sorted_probs.sum(axis=1, keepdims=True)
    count = (running < p - NUCLEUS_TOLERANCE).sum(axis=1) + 1  # up to and including the first total >= p
    keep_sorted = np.arange(probs.shape[1])[None, :] < count[:, None]
    mask = np.zeros(probs.shape, dtype=bool)
    np.put_along_axis(mask, order, keep_sorted, axis=1)
    return mask & (probs > 0)


def apply_temperature(log_probs, temperature: float) -> np.ndarray:
    """``softmax(log_probs / temperature)`` row-wise; ``temperature=0`` → one-hot on the argmax (lower id on ties).

    Args:
        log_probs: ``(..., vocab)`` log-probabilities (or logits); every row needs a finite maximum.
        temperature: float ≥ 0.

    Returns:
        float64 ``(..., vocab)`` probabilities, each row summing to 1.
    """
    log_probs = np.asarray(log_probs, dtype=np.float64)
    temperature = check_temperature(temperature)
    if temperature == 0.0:
        probs = np.zeros_like(log_probs)
        np.put_along_axis(probs, np.argmax(log_probs, axis=-1)[..., None], 1.0, axis=-1)
        return probs
    if not np.isfinite(log_probs.max(axis=-1)).all():
        raise ValueError("log_probs need a finite maximum in every row (no NaN, no row of only -inf)")
    # shift before dividing: (log_probs / T) overflows to -inf everywhere for a tiny T (1e-310), giving NaN
    with np.errstate(over="ignore"):  # a gap / tiny T overflowing to -inf is exactly probability 0
        scaled = (log_probs - log_probs.max(axis=-1, keepdims=True)) / temperature
    weights = np.exp(scaled)
    return weights / weights.sum(axis=-1, keepdims=True)


def filter_distribution(log_probs, temperature: float = 1.0, top_k: int | None = None, top_p: float | None = None):
    """Temperature, then top-k, then top-p, row-wise.

    Args:
        log_probs: ``(n, vocab)`` log-probabilities (rows need a finite maximum).
        temperature: float ≥ 0; 0 = greedy (all mass on the most probable token). Defaults to 1.
        top_k: int ≥ 1, keep the ``top_k`` most probable tokens. Defaults to None (no cut).
        top_p: float in ``(0, 1]``, keep the nucleus of mass ``top_p`` of what top-k left. Defaults to None
            (no cut).

    Returns:
        ``(probs, filtered)``: both ``(n, vocab)``; ``probs`` after temperature, ``filtered`` after the cuts,
        renormalised, zero outside the kept set.
    """
    top_k = check_int(top_k, "top_k", allow_none=True)
    top_p = check_top_p(top_p)
    probs = apply_temperature(np.atleast_2d(log_probs), temperature)
    filtered = probs
    if top_k is not None:
        filtered = np.where(_top_k_mask(filtered, top_k), filtered, 0.0)
        filtered = filtered / filtered.sum(axis=1, keepdims=True)
    if top_p is not None and top_p < 1.0:  # p = 1 keeps everything, however small its tail
        filtered = np.where(_nucleus_mask(filtered, top_p), filtered, 0.0)
        filtered = filtered / filtered.sum(axis=1, keepdims=True)
    return probs, filtered
