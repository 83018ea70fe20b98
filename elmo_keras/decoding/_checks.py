"""Argument checks shared by the decoding strategies, and the one checked call of ``next_log_probs``.

Every error is a ``ValueError`` (``TypeError`` for a non-callable model) that names the argument and the
value received. Sizes are refused before any work (``MAX_DECODE_LENGTH``, ``MAX_DECODE_TOKENS``,
``MAX_DECODE_CANDIDATES``), and so are token ids outside the vocabulary when the model declares its size (a
``vocab_size`` attribute, as the ``Seq2Seq``/``HRED`` scorers and the tables have): the same message on every
backend, instead of the backend's own error from inside the model.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable

import numpy as np

from elmo_keras.argument_checks import check_int

NextLogProbs = Callable[[np.ndarray], np.ndarray]

# How far above 0 a log-probability may round (float32 ``log_softmax`` can give a hair above 0); anything more
# is not a log-probability (raw logits, say).
LOG_PROB_TOLERANCE = 1e-4

# The most tokens one output holds (max_len, <eos> included), and the longest source a step model reads: far above
# any sentence, far below what a search can hold (a prefix is re-read at every step).
MAX_DECODE_LENGTH = 512
# Hypotheses decoded together × max_len (beam_size × max_len, num_samples × max_len): the live prefixes a search
# holds and hands the model. 10,000 samples of 100 tokens fit; 10**7 samples are refused instead of running on.
MAX_DECODE_TOKENS = 2**20
# Hypotheses × vocabulary size: the (n, vocab) float64 arrays of one step (128 MiB each at the bound).
MAX_DECODE_CANDIDATES = 2**24


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


def check_max_len(max_len) -> int:
    """``max_len`` (the most tokens generated per output) as an int in ``[1, MAX_DECODE_LENGTH]``."""
    max_len = check_int(max_len, "max_len")
    if max_len > MAX_DECODE_LENGTH:
        raise ValueError(f"max_len = {max_len:,} is longer than any output decoding produces (at most "
                         f"{MAX_DECODE_LENGTH:,} tokens, MAX_DECODE_LENGTH): use e.g. 20–100")
    return max_len


def check_rows(name: str, value, max_len: int) -> int:
    """``value``, the hypotheses decoded together (``beam_size``, ``num_samples``, named ``name``), as an int ≥ 1
    whose ``value × max_len`` tokens fit in ``MAX_DECODE_TOKENS``."""
    value = check_int(value, name)
    if value * max_len > MAX_DECODE_TOKENS:
        raise ValueError(
            f"{name} = {value:,} with max_len = {max_len:,} would decode {value * max_len:,} tokens, more than "
            f"{MAX_DECODE_TOKENS:,} (MAX_DECODE_TOKENS): use a smaller {name} (at most "
            f"{MAX_DECODE_TOKENS // max_len:,} for this max_len) or a shorter max_len"
        )
    return value


def check_candidates(name: str, rows: int, vocab_size: int) -> None:
    """``rows`` hypotheses (``name``) × ``vocab_size`` candidates per step must fit in ``MAX_DECODE_CANDIDATES``."""
    if rows * vocab_size > MAX_DECODE_CANDIDATES:
        raise ValueError(
            f"{name} = {rows:,} × a vocabulary of {vocab_size:,} would score {rows * vocab_size:,} candidates per "
            f"step, more than {MAX_DECODE_CANDIDATES:,} (MAX_DECODE_CANDIDATES): use a smaller {name} (at most "
            f"{max(MAX_DECODE_CANDIDATES // vocab_size, 1):,} for this vocabulary)"
        )


def check_sampling_args(temperature, top_k, top_p) -> tuple[float, int | None, float | None]:
    """``(temperature, top_k, top_p)`` checked: a finite temperature ≥ 0, None or an int ``top_k`` ≥ 1 (one at or
    above the vocabulary size cuts nothing), None or a ``top_p`` in ``(0, 1]``."""
    return check_temperature(temperature), check_int(top_k, "top_k", allow_none=True), check_top_p(top_p)


def declared_vocab_size(model) -> int | None:
    """The vocabulary size ``model`` (a ``next_log_probs`` function or a step model) declares in a ``vocab_size``
    attribute, or None (then only its first output tells)."""
    size = getattr(model, "vocab_size", None)
    return int(size) if isinstance(size, numbers.Integral) and not isinstance(size, bool) and size > 0 else None


def check_token_ids(name: str, ids, vocab_size: int, fix: str = "") -> np.ndarray:
    """``ids`` as an int32 array if every id lies in ``[0, vocab_size)``, checked on the host before a model sees
    them (so every backend gives this message, not its own error from the embedding lookup).

    Args:
        name: the argument's name, for the message.
        ids: an array-like of token ids (any shape).
        vocab_size: int, the model's vocabulary size.
        fix: appended to the message (``"; encode text with encode_history"``). Defaults to ``""``.

    Raises:
        ValueError: values that are not whole numbers, or the first id outside the vocabulary (with its position).
    """
    array = np.asarray(ids)
    if not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)):
        raise ValueError(f"{name} must be int token ids, received {array.dtype} values{fix}")
    if not np.issubdtype(array.dtype, np.integer) and not np.array_equal(array, np.round(array)):
        raise ValueError(f"{name} must be int token ids, received {array.dtype} values that are not whole numbers")
    bad = (array < 0) | (array >= vocab_size)
    if bad.any():
        position = [int(i) for i in np.argwhere(bad)[0]]
        raise ValueError(f"{name} holds id {array[tuple(position)]:g} at {position}, outside the vocabulary "
                         f"[0, {vocab_size:,}): ids must come from the model's vocabulary{fix}")
    return array.astype(np.int32)


def check_decoding_args(next_log_probs, bos_id, eos_id, max_len) -> tuple[int, int, int]:
    """The arguments every strategy shares, as ``(bos_id, eos_id, max_len)`` ints.

    ``bos_id`` and ``eos_id`` are checked against the vocabulary here when ``next_log_probs`` declares its size
    (``declared_vocab_size``); otherwise ``eos_id < vocab`` is checked by ``call_model`` on the first output.

    Args:
        next_log_probs: must be callable (else ``TypeError``).
        bos_id, eos_id: ints ≥ 0.
        max_len: int in ``[1, MAX_DECODE_LENGTH]``.
    """
    if not callable(next_log_probs):
        raise TypeError(f"next_log_probs must be callable, received {type(next_log_probs).__name__}")
    bos_id = check_int(bos_id, "bos_id", minimum=0)
    eos_id = check_int(eos_id, "eos_id", minimum=0)
    max_len = check_max_len(max_len)
    vocab_size = declared_vocab_size(next_log_probs)
    if vocab_size is not None:
        check_special_ids(bos_id, eos_id, vocab_size)
    return bos_id, eos_id, max_len


def check_special_ids(bos_id: int, eos_id: int, vocab_size: int, source: str = "next_log_probs") -> None:
    """``bos_id`` and ``eos_id`` must be token ids of a vocabulary of ``vocab_size`` (``source`` names the model)."""
    if not 0 <= bos_id < vocab_size:
        raise ValueError(f"bos_id must be a token id in [0, vocab size {vocab_size}) of {source}, received {bos_id}: "
                         "pass the model vocabulary's <S> id")
    check_eos_in_vocab(eos_id, vocab_size, source)


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
