"""Beam search over many sources at once on a *step model*, the whole search in one compiled function.

A step model carries RNN states instead of re-reading prefixes:

* ``encode(source_ids int (batch, source_len)) -> states`` (a list of ``(batch, ...)`` tensors);
* ``decode_step(states, last_token_ids int (batch,)) -> (log_probs (batch, vocab), new_states)``.

``Seq2Seq`` is one. All ``batch × beam_size`` hypotheses live in fixed-shape tensors. Each step
(``_beam_step``) makes one model call for all of them, takes the global top-k of each source's
``beam_size × vocab`` candidates and reorders the states by parent; a ``keras.ops.while_loop`` runs the steps
(stopping when every source has ``beam_size`` finished hypotheses or at ``max_len``) and keeps the token
histories and the finished list in tensors too. Encoder, loop and bookkeeping are compiled together
(``_backend.compile_function``: XLA under TensorFlow), so a batch costs one call; the host only checks the
model's output (the loop records, per source, what ``_checks.call_model`` would refuse in a live slot) and
turns the final arrays into ``Hypothesis`` objects.

The algorithm is exactly ``beam.beam_search`` (same shrinking beam, same stable tie-breaking, ``-inf`` never
kept), per source: a dead slot (finished, or not yet used at step 1) scores ``-inf``; alive slots stay in rank
order, so ties between parents still go to the better-ranked one. Log-probabilities accumulate in float32, so
near-ties may resolve differently from the float64 generic function.
"""

from __future__ import annotations

import numpy as np
from keras import ops

from elmo_keras._backend import compile_function
from elmo_keras._quiet import keras  # noqa: F401  (quiet TensorFlow start-up before keras.ops)
from elmo_keras.decoding._checks import (
    LOG_PROB_TOLERANCE,
    check_eos_in_vocab,
    check_int,
    check_length_penalty,
    check_optional_int,
)
from elmo_keras.decoding.hypothesis import Hypothesis, make_hypothesis, rank_hypotheses

SOURCE_LENGTH_BUCKET = 8  # sources are right-padded to a multiple of this (with pad_id): fewer recompilations


class BatchedBeamSearch:
    """Compiled batched beam search for one step model and one beam size; build once, call many times.

    Args:
        step_model: an object with ``encode`` and ``decode_step`` (see the module docstring).
        bos_id, eos_id: boundary token ids.
        max_len: the most tokens generated per hypothesis (``<eos>`` included).
        beam_size: k.
        length_penalty: α of ``score = log_prob / length ** α`` (final ranking only, as in ``beam_search``).
        num_return: hypotheses returned per source (default and maximum ``beam_size``).
        pad_id: if given, sources are right-padded with it to a multiple of ``SOURCE_LENGTH_BUCKET`` so that
            sources of similar lengths share a compiled encoder (the model must mask ``pad_id``).

    Call arguments:
        sources: int ``(batch, source_len)``.

    Returns:
        ``list`` (one per source) of ``list[Hypothesis]``, best first — the same as ``beam_search`` on each
        source's ``next_log_probs``.

    Raises:
        TypeError: ``step_model`` lacks ``encode`` or ``decode_step``.
        ValueError: a bad argument (when built), badly shaped ``sources``, or (after the search, as
            ``beam_search`` would) ``eos_id`` outside the model's vocabulary, or ``decode_step`` giving a live
            hypothesis NaN, +inf, a value above 0 (not a log-probability, e.g. raw logits) or no finite entry.

    The first call for a new batch size (or padded source length) compiles the search (a second or two).
    """

    def __init__(self, step_model, bos_id: int, eos_id: int, max_len: int, beam_size: int,
                 length_penalty: float = 0.0, num_return: int | None = None, pad_id: int | None = None):
        for name in ("encode", "decode_step"):
            if not callable(getattr(step_model, name, None)):
                raise TypeError(f"step_model must have a callable {name}(), received {type(step_model).__name__}")
        self.step_model = step_model
        self.bos_id = check_int("bos_id", bos_id, 0)
        self.eos_id = check_int("eos_id", eos_id, 0)
        self.max_len = check_int("max_len", max_len, 1)
        self.beam_size = check_int("beam_size", beam_size, 1)
        self.length_penalty = check_length_penalty(length_penalty)
        self.num_return = check_optional_int("num_return", num_return, 1) or self.beam_size
        if self.num_return > self.beam_size:
            raise ValueError(f"num_return must be <= beam_size ({self.beam_size}), received {self.num_return}")
        self.pad_id = None if pad_id is None else check_int("pad_id", pad_id, 0)
        self._compiled = compile_function(self._search)

    def _beam_step(self, states, last_tokens, cumulative, slots_left):
        """Model step + global top-k per source + state reordering.

        Returns ``(new_states, tokens (B, k), scores (B, k), rows (B * k,), ends (B, k), alive (B, k),
        log_probs (B, k, V))``: ``rows`` is each new slot's parent row in the flattened ``(B * k)`` layout.
        """
        k = self.beam_size
        log_probs, new_states = self.step_model.decode_step(states, last_tokens)  # (B * k, V)
        batch, vocab = cumulative.shape[0], log_probs.shape[-1]
        log_probs = ops.reshape(ops.cast(log_probs, cumulative.dtype), (batch, k, vocab))
        live = ops.expand_dims(cumulative > -np.inf, -1)  # (B, k, 1); a dead slot's row may hold anything (NaN)
        candidates = ops.where(live, ops.expand_dims(cumulative, -1) + log_probs, ops.full_like(log_probs, -np.inf))
        candidates = ops.reshape(candidates, (batch, k * vocab))
        scores, flat = ops.top_k(candidates, k)  # (B, k) best first; ties: lower flat index first
        parents, tokens = flat // vocab, flat % vocab  # (B, k)
        selected = ops.logical_and(ops.arange(k)[None, :] < slots_left[:, None], scores > -np.inf)
        ends = ops.logical_and(selected, ops.equal(tokens, self.eos_id))
        alive = ops.logical_and(selected, ops.logical_not(ends))
        rows = ops.reshape(parents + ops.arange(batch)[:, None] * k, (-1,))  # (B * k,)
        new_states = [ops.take(state, rows, axis=0) for state in new_states]
        return new_states, tokens, scores, rows, ends, alive, log_probs

    @staticmethod
    def _output_health(health, t, log_probs, cumulative):
        """``health`` updated with this step's ``log_probs (B, k, V)``, live slots only (as ``beam_search`` calls
        the model on live hypotheses only): ``(vocab, largest value (B,), first step with NaN (B,), first step
        with a row of only -inf (B,))``, steps counted from 1, 0 = never."""
        _, largest, nan_step, dead_step = health
        live = (cumulative > -np.inf)[:, :, None]  # (B, k, 1)
        nan = ops.isnan(log_probs)
        row_max = ops.max(ops.where(nan, ops.full_like(log_probs, -np.inf), log_probs), axis=-1, keepdims=True)
        has_nan = ops.any(ops.logical_and(live, nan), axis=(1, 2))  # (B,)
        dead = ops.logical_and(row_max == -np.inf, ops.logical_not(ops.any(nan, axis=-1, keepdims=True)))
        has_dead = ops.any(ops.logical_and(live, dead), axis=(1, 2))
        largest = ops.maximum(largest, ops.max(ops.where(live, row_max, ops.full_like(row_max, -np.inf)), axis=(1, 2)))
        nan_step = ops.where(ops.logical_and(nan_step == 0, has_nan), t + 1, nan_step)
        dead_step = ops.where(ops.logical_and(dead_step == 0, has_dead), t + 1, dead_step)
        return ops.convert_to_tensor(log_probs.shape[-1], dtype="int32"), largest, nan_step, dead_step

    def _search(self, sources):
        """The whole search as one compiled function: encode, then a while loop of ``_beam_step``."""
        k, length = self.beam_size, self.max_len
        batch = sources.shape[0]
        states = [ops.repeat(state, k, axis=0) for state in self.step_model.encode(sources)]  # (B * k, ...)
        first = ops.concatenate([ops.zeros((batch, 1)), ops.full((batch, k - 1), -np.inf)], axis=1)
        histories = ops.zeros((batch, k, length), dtype="int32")
        loop_vars = (
            ops.convert_to_tensor(0, dtype="int32"),  # t: tokens generated so far
            states,
            ops.full((batch * k,), self.bos_id, dtype="int32"),  # last token of every slot
            ops.cast(first, "float32"),  # cumulative log-prob per slot; -inf = dead
            histories,  # (B, k, L) live token histories
            histories,  # (B, k, L) finished token histories, in order of finishing
            ops.zeros((batch, k), dtype="float32"),  # finished log-probs
            ops.zeros((batch, k), dtype="int32"),  # finished lengths
            ops.zeros((batch,), dtype="int32"),  # number finished per source
            (  # the model's output, checked on the host (_output_health)
                ops.convert_to_tensor(0, dtype="int32"),
                ops.full((batch,), -np.inf, dtype="float32"),
                ops.zeros((batch,), dtype="int32"),
                ops.zeros((batch,), dtype="int32"),
            ),
        )

        def reorder(histories, rows):  # (B, k, L) → the rows of its (B * k, L) view, same shape
            return ops.reshape(ops.take(ops.reshape(histories, (batch * k, length)), rows, axis=0), (batch, k, length))

        def running(t, states, last, cumulative, *rest):
            return ops.logical_and(t < length, ops.any(cumulative > -np.inf))

        def body(t, states, last, cumulative, histories, done_tokens, done_scores, done_lengths, done_count, health):
            new_states, tokens, scores, rows, ends, alive, log_probs = self._beam_step(
                states, last, cumulative, k - done_count)
            health = self._output_health(health, t, log_probs, cumulative)
            histories = reorder(histories, rows)
            histories = ops.where(ops.arange(length)[None, None, :] == t, tokens[:, :, None], histories)
            # finished hypotheses go to slots done_count, done_count + 1, ... in rank order
            ends_int = ops.cast(ends, "int32")
            destination = done_count[:, None] + ops.cumsum(ends_int, axis=1) - 1  # (B, k)
            moves = ops.cast(ops.one_hot(destination, k), "int32") * ends_int[:, :, None]  # (B, from, to)
            written = ops.sum(moves, axis=1) > 0  # (B, to)
            origin = ops.sum(moves * ops.arange(k)[None, :, None], axis=1)  # (B, to) rank that lands there
            origin_rows = ops.reshape(origin + ops.arange(batch)[:, None] * k, (-1,))
            moved = reorder(histories, origin_rows)
            done_tokens = ops.where(written[:, :, None], moved, done_tokens)
            done_scores = ops.where(written, ops.take_along_axis(scores, origin, axis=1), done_scores)
            done_lengths = ops.where(written, t + 1, done_lengths)
            cumulative = ops.where(alive, scores, ops.full_like(scores, -np.inf))
            return (t + 1, new_states, ops.reshape(tokens, (-1,)), cumulative, histories, done_tokens, done_scores,
                    done_lengths, done_count + ops.sum(ends_int, axis=1), health)

        t, _, _, cumulative, histories, done_tokens, done_scores, done_lengths, done_count, health = ops.while_loop(
            running, body, loop_vars)
        return (t, cumulative, histories, done_tokens, done_scores, done_lengths, done_count) + tuple(health)

    def _check_output(self, vocab, largest, nan_step, dead_step):
        """Raise what ``_checks.call_model`` raises in ``beam_search``, from ``_output_health``'s record."""
        check_eos_in_vocab(self.eos_id, int(vocab), "step_model.decode_step")
        where = "step_model.decode_step returned {} for sources[{}] at step {}"
        if nan_step.any():
            b = int(np.argmax(nan_step > 0))
            raise ValueError(where.format("NaN", b, nan_step[b]) + "; it must return log-probabilities (<= 0)")
        if (largest > LOG_PROB_TOLERANCE).any():
            b = int(np.argmax(largest))
            if np.isposinf(largest[b]):
                raise ValueError(f"step_model.decode_step returned +inf for sources[{b}]; it must return "
                                 "log-probabilities (<= 0)")
            raise ValueError(
                f"step_model.decode_step returned {largest[b]:g} > 0 for sources[{b}]; it must return "
                "log-probabilities (<= 0): apply log_softmax to the logits (keras.ops.log_softmax)"
            )
        if dead_step.any():
            b = int(np.argmax(dead_step > 0))
            raise ValueError(where.format("every token probability 0 (all -inf)", b, dead_step[b]))

    def _pad_sources(self, sources: np.ndarray) -> np.ndarray:
        if self.pad_id is None:
            return sources
        width = -(-sources.shape[1] // SOURCE_LENGTH_BUCKET) * SOURCE_LENGTH_BUCKET
        padded = np.full((len(sources), width), self.pad_id, dtype=sources.dtype)
        padded[:, : sources.shape[1]] = sources
        return padded

    def __call__(self, sources) -> list[list[Hypothesis]]:
        sources = np.asarray(sources, dtype=np.int32)
        if sources.ndim != 2 or sources.shape[0] < 1 or sources.shape[1] < 1:
            raise ValueError(
                f"sources must be int (batch, source_len) with batch, source_len >= 1, received {sources.shape}"
            )
        outputs = self._compiled(self._pad_sources(sources))
        t, cumulative, histories, done_tokens, done_scores, done_lengths, done_count, *health = (
            ops.convert_to_numpy(x) for x in outputs)
        self._check_output(*health)
        results = []
        for b in range(len(sources)):
            finished = [make_hypothesis(done_tokens[b, j, : done_lengths[b, j]], done_scores[b, j], self.eos_id,
                                        self.length_penalty) for j in range(done_count[b])]
            unfinished = [make_hypothesis(histories[b, r, :t], cumulative[b, r], self.eos_id, self.length_penalty)
                          for r in np.flatnonzero(np.isfinite(cumulative[b]))]
            if not finished + unfinished:  # only if float32 sums of finite log-probabilities reached -inf
                raise ValueError(
                    f"beam search kept no hypothesis for sources[{b}]: its log-probabilities summed to -inf in "
                    "float32 (values far below any real log-probability?)"
                )
            results.append(rank_hypotheses(finished + unfinished)[: self.num_return])
        return results


def beam_search_batch(step_model, sources, bos_id: int, eos_id: int, max_len: int, beam_size: int,
                      length_penalty: float = 0.0, num_return: int | None = None, pad_id: int | None = None):
    """``BatchedBeamSearch(...)(sources)`` in one call (compiles every time: keep a ``BatchedBeamSearch`` to reuse)."""
    search = BatchedBeamSearch(step_model, bos_id, eos_id, max_len, beam_size, length_penalty, num_return, pad_id)
    return search(sources)

