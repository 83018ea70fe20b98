"""Argument checks shared by the decoding strategies, and the one checked call of ``next_log_probs``.

Every error is a ``ValueError`` (``TypeError`` for a non-callable model) that names the argument and the
value received.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable

import numpy as np

NextLogProbs = Callable[[np.ndarray], np.ndarray]

# How far above 0 a log-probability may round (float32 ``log_softmax`` can give a hair above 0); anything more
# is not a log-probability (raw logits, say).
LOG_PROB_TOLERANCE = 1e-4


def check_int(name: str, value, minimum: int) -> int:
    """``value`` as an int ≥ ``minimum`` (bools and floats are refused).

    Args:
        name: the argument's name, for the message.
        value: the value received.
        minimum: the smallest value allowed.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, received {value!r}")
    return int(value)


def check_optional_int(name: str, value, minimum: int) -> int | None:
    """None, or ``check_int(name, value, minimum)`` (same arguments)."""
    return None if value is None else check_int(name, value, minimum)


def check_length_penalty(value) -> float:
    """α of ``score / length ** α`` (``value``): returned as a finite float ≥ 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value < 0:
        raise ValueError(f"length_penalty must be a finite number >= 0, received {value!r}")
    return float(value)


def check_top_p(value) -> float | None:
    """``value``, the nucleus mass: None (no nucleus cut), or returned as a float in ``(0, 1]``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 < value <= 1.0:
        raise ValueError(f"top_p must be in (0, 1], received {value!r}")
    return float(value)


def check_temperature(value) -> float:
    """``value`` as a finite temperature ≥ 0 (0 means greedy: always the most probable token)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value < 0:
        raise ValueError(f"temperature must be a finite number >= 0 (0 = greedy), received {value!r}")
    return float(value)


def check_decoding_args(next_log_probs, bos_id, eos_id, max_len) -> tuple[int, int, int]:
    """The arguments every strategy shares, as ``(bos_id, eos_id, max_len)`` ints.

    ``eos_id < vocab`` is checked by ``call_model``, which knows the vocabulary size.

    Args:
        next_log_probs: must be callable (else ``TypeError``).
        bos_id, eos_id: ints ≥ 0.
        max_len: int ≥ 1.
    """
    if not callable(next_log_probs):
        raise TypeError(f"next_log_probs must be callable, received {type(next_log_probs).__name__}")
    bos_id = check_int("bos_id", bos_id, 0)
    eos_id = check_int("eos_id", eos_id, 0)
    max_len = check_int("max_len", max_len, 1)
    return bos_id, eos_id, max_len


def check_eos_in_vocab(eos_id: int, vocab_size: int, source: str = "next_log_probs") -> None:
    """``eos_id`` must be a token the model can emit, or decoding could never finish.

    Args:
        eos_id: the end token id.
        vocab_size: the width of the model's ``(n, vocab)`` output.
        source: names the model in the message. Defaults to ``"next_log_probs"``.
    """
    if not 0 <= eos_id < vocab_size:
        raise ValueError(
            f"eos_id must be a token id in [0, vocab size {vocab_size}) of what {source} returns, received "
            f"{eos_id}: <eos> could never be generated; pass the model vocabulary's <eos> id"
        )


def call_model(next_log_probs: NextLogProbs, prefixes: np.ndarray, vocab_size: int | None = None,
               eos_id: int | None = None) -> np.ndarray:
    """``next_log_probs(prefixes)`` as float64 ``(n, vocab)``, checked.

    Args:
        next_log_probs: the model, ``fn(prefixes) -> (n, vocab)`` log-probabilities.
        prefixes: int ``(n, t)``, each starting with ``<bos>``.
        vocab_size: the vocabulary size of an earlier call, or None (first call: not checked).
        eos_id: checked to lie inside the vocabulary, or None (not checked).

    Raises:
        ValueError: wrong shape, a vocabulary size that changed between calls, ``eos_id`` (if given) outside the
            vocabulary, NaN or +inf, a value above 0 (beyond ``LOG_PROB_TOLERANCE``: not a log-probability, e.g.
            raw logits), or a row with no finite entry (every token impossible). ``-inf`` (probability 0) is
            allowed.
    """
    raw = next_log_probs(prefixes)
    log_probs = np.asarray(raw, dtype=np.float64)
    n = prefixes.shape[0]
    if log_probs.ndim != 2 or log_probs.shape[0] != n:
        raise ValueError(
            f"next_log_probs must return shape (n, vocab) = ({n}, vocab) for prefixes of shape {prefixes.shape}, "
            f"received shape {log_probs.shape}"
        )
    if vocab_size is not None and log_probs.shape[1] != vocab_size:
        raise ValueError(
            f"next_log_probs returned vocab size {log_probs.shape[1]}, but {vocab_size} on an earlier call"
        )
    if eos_id is not None:
        check_eos_in_vocab(eos_id, log_probs.shape[1])
    if np.isnan(log_probs).any():
        rows = np.unique(np.nonzero(np.isnan(log_probs))[0])
        raise ValueError(
            f"next_log_probs returned NaN (rows {rows[:5].tolist()}), first after prefix {prefixes[rows[0]].tolist()}"
        )
    if np.isposinf(log_probs).any():
        raise ValueError("next_log_probs returned +inf; it must return log-probabilities (<= 0)")
    if (log_probs > LOG_PROB_TOLERANCE).any():
        row = int(np.argmax((log_probs > LOG_PROB_TOLERANCE).any(axis=1)))
        raise ValueError(
            f"next_log_probs returned {log_probs[row].max():g} > 0 after prefix {prefixes[row].tolist()}; it must "
            "return log-probabilities (<= 0): apply log_softmax to the logits (keras.ops.log_softmax)"
        )
    dead = ~np.isfinite(log_probs.max(axis=1))
    if dead.any():
        row = int(np.argmax(dead))
        raise ValueError(
            f"next_log_probs gave every token probability 0 (all -inf) after prefix {prefixes[row].tolist()}"
        )
    return log_probs


def start_prefixes(bos_id: int, n: int = 1) -> np.ndarray:
    """``n`` prefixes holding only ``<bos>``: int64 ``(n, 1)``.

    Args:
        bos_id: the start token id.
        n: how many prefixes. Defaults to 1.
    """
    return np.full((n, 1), bos_id, dtype=np.int64)
