"""The linear-chain CRF's recursions, in ``keras.ops``, on float32 time-major tensors (``CRF`` owns the checks).

Notation: ``E`` emissions `(T, B, K)`, ``m`` mask `(T, B)` (right-padded, ``m[0]`` all true), ``A`` transitions
`(K, K)` indexed ``[from, to]``, ``s``/``e`` start/end scores `(K,)`. A disallowed transition, start or end
holds ``IMPOSSIBLE`` (−1e30) instead of its variable (``constrained_scores``), so every path through it scores
below ``IMPOSSIBLE / 2`` and ``exp`` of its share of any log-sum is exactly 0 in float32. A finite number, not
−inf: the recursions subtract maxima, and ``−inf − (−inf)`` would be NaN. Real scores are assumed far smaller
than 1e29 in magnitude. A score below ``IMPOSSIBLE / 2`` is reported as −inf (``impossible_to_neg_inf``).

Each loop runs over every step ``t = 0 … T−1`` (``scan_time``, a dynamic time axis); step 0 takes its value
from the start scores (``first``), and at a padded step the carry is kept, so after the loop it holds each
row's value at its last real token:

- forward:  ``α_0 = s + E_0``,  ``α_t[j] = logsumexp_i(α_{t−1}[i] + A[i, j]) + E_t[j]``;
  ``log Z = logsumexp_j(α_{n−1}[j] + e[j])``.
- backward: ``β_{n−1} = e``,  ``β_t[i] = logsumexp_j(A[i, j] + E_{t+1}[j] + β_{t+1}[j])``;
  marginals ``p(y_t = j) = exp(α_t[j] + β_t[j] − log Z)``.
- top-k Viterbi: the ``k`` best partial paths ending in each tag, ``δ_t[j, r]`` (``r`` = rank), are the ``k``
  best of ``δ_{t−1}[i, r'] + A[i, j]`` over all ``(i, r')``, plus ``E_t[j]``; a backpointer keeps the winning
  ``i·k + r'``. Exact: the ``k`` best full paths are among the ``k`` best prefixes of each last tag.
"""

from __future__ import annotations

from elmo_keras._backend import scan_time
from elmo_keras._quiet import ops

IMPOSSIBLE = -1e30
IMPOSSIBLE_BELOW = IMPOSSIBLE / 2


def constrained_scores(transitions, start, end, constraints):
    """``(A, s, e)`` as float32 with ``IMPOSSIBLE`` where the constraints forbid them, whatever the variables hold.

    Args:
        transitions, start, end: the CRF's variables, `(K, K)` ``[from, to]``, `(K,)` and `(K,)`.
        constraints: ``(allowed, allowed_start, allowed_end)``, bool `(K, K)`, `(K,)`, `(K,)`; or None
            (everything allowed: the variables are only cast).

    Returns:
        ``(transitions, start, end)`` float32, shapes as given.
    """
    scores = tuple(ops.cast(v, "float32") for v in (transitions, start, end))
    if constraints is None:
        return scores
    return tuple(ops.where(allowed, score, IMPOSSIBLE) for allowed, score in zip(constraints, scores))


def impossible_to_neg_inf(scores):
    """Every value below ``IMPOSSIBLE_BELOW`` (a path through a forbidden step) set to −inf.

    Args:
        scores: float32 tensor of any shape.

    Returns:
        A tensor of the same shape.
    """
    return ops.where(scores > IMPOSSIBLE_BELOW, scores, float("-inf"))


def sequence_score(emissions, tags, mask, transitions, start, end):
    """``s[y_0] + Σ_t E[t, y_t] + Σ_{t≥1} A[y_{t−1}, y_t] + e[y_{n−1}]`` over each row's ``n`` real tokens.

    Batch-major, unlike the recursions: the gold tags arrive that way.

    Args:
        emissions: `(B, T, K)` float32.
        tags: `(B, T)` int32 (any value at padding).
        mask: `(B, T)` bool.
        transitions, start, end: `(K, K)`, `(K,)`, `(K,)` from ``constrained_scores``.

    Returns:
        `(B,)` float32; below ``IMPOSSIBLE_BELOW`` when ``tags`` takes a forbidden step.
    """
    num_tags = ops.shape(transitions)[0]
    keep = ops.cast(mask, "float32")  # (B, T)
    tags = ops.where(mask, tags, 0)
    emitted = ops.take_along_axis(emissions, tags[:, :, None], axis=2)[:, :, 0]  # (B, T)
    moved = ops.take(ops.reshape(transitions, (-1,)), tags[:, :-1] * num_tags + tags[:, 1:])  # (B, T−1)
    last = ops.sum(ops.cast(mask, "int32"), axis=1) - 1  # (B,) index of each row's last real token
    last_tags = ops.take_along_axis(tags, last[:, None], axis=1)[:, 0]
    return (
        ops.take(start, tags[:, 0])
        + ops.sum(emitted * keep, axis=1)
        + ops.sum(moved * keep[:, 1:], axis=1)
        + ops.take(end, last_tags)
    )


def forward(emissions, mask, transitions, start, return_all=False):
    """The forward recursion (module docstring).

    Args:
        emissions, mask: time-major, `(T, B, K)` float32 and `(T, B)` bool.
        transitions, start: `(K, K)`, `(K,)` from ``constrained_scores``.
        return_all: bool, also return every step's ``α``. Defaults to False.

    Returns:
        ``(alpha, alphas)``: ``α`` at each row's last real token `(B, K)`, and with ``return_all=True`` every
        ``α_t`` `(T, B, K)` (else None).
    """
    def step(carry, inputs):
        (alpha,), (emitted, keep, first) = carry, inputs
        recursed = ops.logsumexp(alpha[:, :, None] + transitions, axis=1)  # (B, K)
        new = ops.where(first, start, recursed) + emitted
        alpha = ops.where(keep[:, None], new, alpha)
        return (alpha,), ((alpha,) if return_all else ())

    (alpha,), alphas = scan_time(step, (ops.zeros_like(emissions[0]),), (emissions, mask, _first_step(mask)))
    return alpha, (alphas[0] if return_all else None)


def log_partition(emissions, mask, transitions, start, end):
    """``log Z`` `(B,)`; below ``IMPOSSIBLE_BELOW`` where no allowed path of the row's length exists.

    Args:
        emissions, mask: time-major, `(T, B, K)` float32 and `(T, B)` bool.
        transitions, start, end: `(K, K)`, `(K,)`, `(K,)` from ``constrained_scores``.
    """
    alpha, _ = forward(emissions, mask, transitions, start)
    return ops.logsumexp(alpha + end, axis=1)


def marginals(emissions, mask, transitions, start, end):
    """``p(y_t = j)`` `(T, B, K)` by forward-backward: 0 at padded steps and in rows without any allowed path.

    Args:
        emissions, mask: time-major, `(T, B, K)` float32 and `(T, B)` bool.
        transitions, start, end: `(K, K)`, `(K,)`, `(K,)` from ``constrained_scores``.
    """
    alpha, alphas = forward(emissions, mask, transitions, start, return_all=True)
    log_z = ops.logsumexp(alpha + end, axis=1)  # (B,)
    # step t needs E_{t+1} and m_{t+1}; past the last step the mask is false, so β = e there
    next_emissions = ops.concatenate([emissions[1:], ops.zeros_like(emissions[:1])], axis=0)
    next_mask = ops.concatenate([mask[1:], ops.zeros_like(mask[:1])], axis=0)

    def step(carry, inputs):
        (beta,), (emitted, keep) = carry, inputs
        recursed = ops.logsumexp(transitions + (emitted + beta)[:, None, :], axis=2)  # (B, K)
        beta = ops.where(keep[:, None], recursed, end)
        return (beta,), (beta,)

    _, (betas,) = scan_time(step, (ops.zeros_like(emissions[0]) + end,), (next_emissions, next_mask), reverse=True)
    # a log-probability is ≤ 0; the clamp only removes rounding, and overflow in rows without any path
    probabilities = ops.exp(ops.minimum(alphas + betas - log_z[None, :, None], 0.0))
    real = ops.logical_and(mask, (log_z > IMPOSSIBLE_BELOW)[None, :])  # (T, B)
    return ops.where(real[:, :, None], probabilities, 0.0)


def viterbi(emissions, mask, transitions, start, end, top_k):
    """The ``top_k`` best paths, by top-k Viterbi (module docstring).

    Args:
        emissions, mask: time-major, `(T, B, K)` float32 and `(T, B)` bool.
        transitions, start, end: `(K, K)`, `(K,)`, `(K,)` from ``constrained_scores``.
        top_k: int ≥ 1, paths per row.

    Returns:
        ``(tags, scores)``: tags `(B, top_k, T)` int32 (0 at padding and for missing paths) and scores
        `(B, top_k)` float32, best first (−inf for missing paths: fewer than ``top_k`` allowed ones).
    """
    num_tags = ops.shape(transitions)[0]
    # δ_0: the start scores at rank 0; no second-best path of length 1 ends in a tag
    initial = ops.concatenate([start[:, None], ops.full((num_tags, top_k - 1), IMPOSSIBLE)], axis=1)  # (K, k)
    identity = ops.reshape(ops.arange(num_tags * top_k, dtype="int32"), (num_tags, top_k))  # (K, k) i·k + r

    def step(carry, inputs):
        (delta,), (emitted, keep, first) = carry, inputs  # delta (B, K, k)
        candidates = delta[:, :, :, None] + transitions[None, :, None, :]  # (B, K_from, k, K_to)
        best, pointers = _best(ops.reshape(candidates, (-1, num_tags * top_k, num_tags)), top_k)  # (B, K_to, k)
        new = ops.where(first, initial, best) + emitted[:, :, None]
        delta = ops.where(keep[:, None, None], new, delta)
        pointers = ops.where(keep[:, None, None], pointers, identity)  # a padded step points to itself
        return (delta,), (ops.reshape(pointers, (-1, num_tags * top_k)),)

    carry = (ops.zeros_like(emissions[0])[:, :, None] + initial,)
    (delta,), (pointers,) = scan_time(step, carry, (emissions, mask, _first_step(mask)))
    final = ops.reshape(delta + end[None, :, None], (-1, num_tags * top_k))  # (B, K·k)
    scores, state = _best(final[:, :, None], top_k)  # the k best over the K·k axis: (B, 1, k)
    scores, state = scores[:, 0], state[:, 0]  # (B, k); state = i·k + r at each row's last real token

    def back(carry, step_pointers):
        (state,) = carry
        return (ops.take_along_axis(step_pointers, state, axis=1),), (state // top_k,)

    _, (tags,) = scan_time(back, (state,), pointers, reverse=True)  # (T, B, k)
    found = scores > IMPOSSIBLE_BELOW  # (B, k)
    tags = ops.where(ops.logical_and(mask[:, :, None], found[None]), tags, 0)
    return ops.transpose(tags, (1, 2, 0)), impossible_to_neg_inf(scores)


def _best(candidates, k):
    """The ``k`` largest values over axis 1 of `(B, N, K)` and their indices in ``[0, N)``: `(B, K, k)` each,
    best first (the lower index on ties)."""
    if k == 1:  # max/argmax: a plain reduction; top_k is a sort, far costlier under XLA on CPU
        best = ops.max(candidates, axis=1)[:, :, None]
        return best, ops.cast(ops.argmax(candidates, axis=1), "int32")[:, :, None]
    values, indices = ops.top_k(ops.transpose(candidates, (0, 2, 1)), k)
    return values, ops.cast(indices, "int32")


def _first_step(mask):
    """`(T, 1)` bool, true at step 0: each step's `(1,)` slice broadcasts against `(B, K)` and `(B, K, k)`."""
    steps = ops.shape(mask)[0]
    return ops.equal(ops.arange(steps), 0)[:, None]
