"""``PrefixScorer``: a step model as ``next_log_probs(prefixes) -> (n, vocab)``, one decoder step per call.

A *step model* (``Seq2Seq``, ``HRED``, ``VHRED``) has the decoder step API the package docstring describes:
``initial_states(conditioning) -> states``, ``decoder_step(states, last_token_ids) -> (log_probs, new_states)`` and
``step_log_probs_from_states(states, prefixes) -> log_probs`` (both models: ``log_probs_after_prefixes``, over their
teacher-forced ``decoder_logits(states, inputs)`` and ``next_token_log_probs(logits)``).

The decoding strategies call ``next_log_probs`` with whole prefixes, each the previous call's prefix plus one token.
The scorer keeps the decoder state after every prefix it has scored, so each call runs one ``decoder_step`` on the
new last tokens instead of re-reading every prefix. It keeps only the states after the latest call's prefixes (what
the next step extends), so its memory is one step's, not the whole search's. A prefix whose parent it no longer holds
(a caller jumping ahead, or going back) is read in full from the initial states (``step_log_probs_from_states``): the
same numbers, slower. Prefix ids are checked against the vocabulary before the model reads them (``check_prefixes``).
"""

from __future__ import annotations

import numpy as np

from elmo_keras._quiet import ops
from elmo_keras.decoding._checks import MAX_DECODE_LENGTH, check_candidates, check_token_ids
from elmo_keras.limits import check_length


def check_prefixes(prefixes, vocab_size: int) -> np.ndarray:
    """``prefixes`` as int `(n, t)` NumPy ids, checked before a model reads them.

    Raises:
        ValueError: ``prefixes`` is not `(n, t)` with ``t ≥ 1``, is longer than ``MAX_DECODE_LENGTH + 1`` or has more
            rows than ``MAX_DECODE_CANDIDATES / vocab_size``, or holds an id outside ``[0, vocab_size)``.
    """
    prefixes = np.asarray(prefixes)
    if prefixes.ndim != 2 or prefixes.shape[1] < 1:
        raise ValueError(f"prefixes must be int (n, t) with t >= 1, received shape {prefixes.shape}")
    check_length("prefixes", prefixes.shape[1], MAX_DECODE_LENGTH + 1, "tokens",
                 f"decode at most {MAX_DECODE_LENGTH} tokens (MAX_DECODE_LENGTH)")
    check_candidates("prefixes rows", len(prefixes), vocab_size)
    return check_token_ids("prefixes", prefixes, vocab_size)


def emittable_log_probs(logits, vocab_size: int, pad_id: int, bos_id: int):
    """``log_softmax`` over the tokens a step model's decoder may emit: ``<pad>`` and ``<S>`` get −inf.

    Args:
        logits: float `(..., vocab_size)`.
        vocab_size, pad_id, bos_id: the model's vocabulary size and the ids of ``<pad>`` and ``<S>``.

    Returns:
        float `(..., vocab_size)` log-probabilities (a tensor).
    """
    never = ops.convert_to_tensor([pad_id, bos_id], "int32")
    banned = ops.any(ops.equal(ops.arange(vocab_size, dtype="int32")[:, None], never[None, :]), axis=-1)
    return ops.log_softmax(ops.where(banned, ops.cast(float("-inf"), logits.dtype), logits), axis=-1)


def log_probs_after_prefixes(model, states, prefixes):
    """``model.next_token_log_probs`` after each prefix, every prefix read in full by ``model.decoder_logits``.

    Args:
        model: the step model.
        states: the decoder's initial states, each `(1, units)` (shared by every row) or `(n, units)`.
        prefixes: int `(n, t)`, each starting with ``bos_id``.

    Returns:
        float `(n, vocab_size)` (a tensor).
    """
    prefixes = ops.cast(prefixes, "int32")
    n = ops.shape(prefixes)[0]
    states = [ops.broadcast_to(state, (n, ops.shape(state)[-1])) for state in states]
    return model.next_token_log_probs(model.decoder_logits(states, prefixes)[:, -1])


class PrefixScorer:
    """The ``next_log_probs`` function of a step model for fixed decoder initial ``states``.

    Args:
        model: the step model (``Seq2Seq``, ``HRED`` or ``VHRED``).
        states: the decoder's initial states for one conditioning (``model.initial_states``), each `(1, units)`.

    Call arguments:
        prefixes: int `(n, t)`, each starting with ``bos_id``.

    Returns:
        float32 `(n, vocab_size)` NumPy log-probabilities (``<pad>`` and ``<S>`` at −inf).

    Raises:
        ValueError: ``prefixes`` refused by ``check_prefixes``.

    ``vocab_size`` (the model's) lets the decoding strategies check their ids and sizes before the first call.
    """

    def __init__(self, model, states):
        self.model = model
        self.vocab_size = int(model.vocab_size)
        self._initial = [ops.convert_to_numpy(s)[0] for s in states]  # each (units,)
        self._after = {(): self._initial}  # prefix → decoder states after reading it

    def __call__(self, prefixes) -> np.ndarray:
        prefixes = check_prefixes(prefixes, self.vocab_size)
        parents = [self._after.get(tuple(p[:-1])) for p in prefixes]
        if any(parent is None for parent in parents):  # not built step by step: read the prefixes in full
            states = [s[None] for s in self._initial]
            log_probs = self.model.step_log_probs_from_states(states, prefixes)
            return ops.convert_to_numpy(log_probs).astype(np.float32)
        states = [np.stack([parent[i] for parent in parents]) for i in range(len(self._initial))]  # each (n, units)
        log_probs, new_states = self.model.decoder_step(states, prefixes[:, -1])
        new_states = [ops.convert_to_numpy(s) for s in new_states]
        self._after = {(): self._initial}  # this call's prefixes replace the previous call's
        for row, prefix in enumerate(prefixes):
            self._after[tuple(prefix)] = [s[row] for s in new_states]
        return ops.convert_to_numpy(log_probs).astype(np.float32)
