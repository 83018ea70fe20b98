"""Beam search over many sources at once on a *step model*, the whole search in one compiled function.

A step model carries RNN states instead of re-reading prefixes (two methods of the decoder step API, see the
package docstring):

* ``initial_states(source_ids int (batch, source_len)) -> states`` (a list of ``(batch, ...)`` tensors);
* ``decoder_step(states, last_token_ids int (batch,)) -> (log_probs (batch, vocab), new_states)``.

``Seq2Seq`` is one. All ``batch × beam_size`` hypotheses live in fixed-shape tensors. Each step
(``_beam_step``) makes one model call for all of them, takes the global top-k of each source's
``beam_size × vocab`` candidates and reorders the states by parent; a ``keras.ops.while_loop`` runs the steps
(stopping when every source has ``beam_size`` finished hypotheses or at ``max_len``) and keeps the token
histories and the finished list in tensors too (its state: ``_LoopState``). Encoder, loop and bookkeeping
are compiled together (``_backend.compile_function``: XLA under TensorFlow), so a batch costs one call; the
host only checks the model's output (the loop records, per source, what ``_checks.call_model`` would refuse
in a live slot) and turns the final arrays into ``Hypothesis`` objects.

The algorithm is exactly ``beam.beam_search`` (same shrinking beam, same stable tie-breaking, ``-inf`` never
kept), per source: a dead slot (finished, or not yet used at step 1) scores ``-inf``; alive slots stay in rank
order, so ties between parents still go to the better-ranked one. Log-probabilities accumulate in float32, so
near-ties may resolve differently from the float64 generic function.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from elmo_keras._backend import compile_function
from elmo_keras._quiet import (
    keras,  # quiet TensorFlow start-up before keras.ops
    ops,
)
from elmo_keras.argument_checks import check_int
from elmo_keras.decoding._checks import (
    LOG_PROB_TOLERANCE,
    MAX_DECODE_LENGTH,
    MAX_DECODE_TOKENS,
    check_candidates,
    check_eos_in_vocab,
    check_length_penalty,
    check_max_len,
    check_rows,
    check_special_ids,
    check_token_ids,
    declared_vocab_size,
)
from elmo_keras.decoding.hypothesis import Hypothesis, make_hypothesis, rank_hypotheses

SOURCE_LENGTH_BUCKET = 8  # sources are right-padded to a multiple of this (with pad_id): fewer recompilations

Tensor = Any  # a tensor of the Keras backend

# Shapes: B sources, k = beam_size slots per source, L = max_len, V = vocabulary size. A beam tensor's
# flattened "row" for source b, slot j is b * k + j.


class _Finished(NamedTuple):
    """Finished hypotheses per source in order of finishing; slots ``j < count[b]`` hold source ``b``'s."""

    tokens: Tensor  # int32 (B, k, L): generated tokens, <eos> included, valid up to lengths
    log_probs: Tensor  # float32 (B, k): summed log-probabilities
    lengths: Tensor  # int32 (B, k): number of tokens, <eos> included
    count: Tensor  # int32 (B,): finished hypotheses so far; the live beam of source b has k - count[b] slots


class _Health(NamedTuple):
    """What ``decoder_step`` returned for live slots, checked on the host (``_check_output``) after the search."""

    largest: Tensor  # float32 (B,): largest non-NaN value (> 0: not log-probabilities)
    nan_step: Tensor  # int32 (B,): first step (from 1) with a NaN; 0 = never
    dead_step: Tensor  # int32 (B,): first step (from 1) with a row of only -inf; 0 = never


class _LoopState(NamedTuple):
    """The ``while_loop`` state. Live slots are in rank order (best first) within each source."""

    t: Tensor  # int32 (): tokens generated so far (= steps taken)
    states: list  # the model's states, each (B * k, ...), row b * k + j following slot j of source b
    last_tokens: Tensor  # int32 (B * k,): each slot's latest token (bos_id before the first step)
    cumulative: Tensor  # float32 (B, k): summed log-probability of each live slot; -inf = dead slot
    histories: Tensor  # int32 (B, k, L): each live slot's tokens, valid up to t
    finished: _Finished  # the hypotheses that emitted <eos>, out of the live beam
    health: _Health  # the model's output so far, for the host's checks


def _take_rows(histories, rows):
    """``histories (B, k, L)`` viewed as ``(B * k, L)``, gathered at ``rows (B * k,)``, reshaped back."""
    batch, k, length = histories.shape
    flat = ops.reshape(histories, (batch * k, length))
    return ops.reshape(ops.take(flat, rows, axis=0), (batch, k, length))


class BatchedBeamSearch:
    """Compiled batched beam search for one step model and one beam size; build once, call many times.

    Args:
        step_model: an object with ``initial_states`` and ``decoder_step`` (see the module docstring).
        bos_id, eos_id: boundary token ids.
        max_len: the most tokens generated per hypothesis (``<eos>`` included), at most ``MAX_DECODE_LENGTH``.
        beam_size: k; ``beam_size × max_len`` at most ``MAX_DECODE_TOKENS``.
        length_penalty: α of ``score = log_prob / length ** α`` (final ranking only, as in ``beam_search``).
        num_return: hypotheses returned per source (default and maximum ``beam_size``).
        pad_id: if given, sources are right-padded with it to a multiple of ``SOURCE_LENGTH_BUCKET`` so that
            sources of similar lengths share a compiled encoder (the model must mask ``pad_id``).

    Call arguments:
        sources: int ``(batch, source_len)``, ``source_len`` at most ``MAX_DECODE_LENGTH``, ``batch × beam_size ×
            max_len`` at most ``MAX_DECODE_TOKENS`` (and ``batch × beam_size × vocab`` at most
            ``MAX_DECODE_CANDIDATES`` when the step model has a ``vocab_size``: then its ids are checked too).

    Returns:
        ``list`` (one per source) of ``list[Hypothesis]``, best first — the same as ``beam_search`` on each
        source's ``next_log_probs``.

    Raises:
        TypeError: ``step_model`` lacks ``initial_states`` or ``decoder_step``.
        ValueError: a bad argument (when built), badly shaped or too many ``sources``, an id outside a declared
            vocabulary (all checked before the search), or (after the search, as
            ``beam_search`` would) ``eos_id`` outside the model's vocabulary, or ``decoder_step`` giving a live
            hypothesis NaN, +inf, a value above 0 (not a log-probability, e.g. raw logits) or no finite entry.

    The first call for a new batch size (or padded source length) compiles the search (a second or two).
    """

    def __init__(self, step_model, bos_id: int, eos_id: int, max_len: int, beam_size: int,
                 length_penalty: float = 0.0, num_return: int | None = None, pad_id: int | None = None):
        for name in ("initial_states", "decoder_step"):
            if not callable(getattr(step_model, name, None)):
                raise TypeError(f"step_model must have a callable {name}(), received {type(step_model).__name__}")
        self.step_model = step_model
        self.bos_id = check_int(bos_id, "bos_id", minimum=0)
        self.eos_id = check_int(eos_id, "eos_id", minimum=0)
        self.max_len = check_max_len(max_len)
        self.beam_size = check_rows("beam_size", beam_size, self.max_len)
        self.length_penalty = check_length_penalty(length_penalty)
        self.num_return = check_int(num_return, "num_return", allow_none=True) or self.beam_size
        if self.num_return > self.beam_size:
            raise ValueError(f"num_return must be <= beam_size ({self.beam_size}), received {self.num_return}")
        self.pad_id = check_int(pad_id, "pad_id", minimum=0, allow_none=True)
        self.vocab_size = declared_vocab_size(step_model)  # None: known only from decoder_step's output
        if self.vocab_size is not None:
            check_special_ids(self.bos_id, self.eos_id, self.vocab_size, "step_model")
            if self.pad_id is not None and self.pad_id >= self.vocab_size:
                raise ValueError(f"pad_id must be a token id in [0, vocab size {self.vocab_size}) of step_model, "
                                 f"received {self.pad_id}")
            check_candidates("beam_size", self.beam_size, self.vocab_size)
        self._compiled = compile_function(self._search, getattr(step_model, "variables", ()))

    def _beam_step(self, states, last_tokens, cumulative, slots_left):
        """Model step + global top-k per source + state reordering.

        Returns ``(new_states, tokens (B, k), scores (B, k), rows (B * k,), ends (B, k), alive (B, k),
        log_probs (B, k, V))``: ``rows`` is each new slot's parent row in the flattened ``(B * k)`` layout.
        """
        k = self.beam_size
        log_probs, new_states = self.step_model.decoder_step(states, last_tokens)  # (B * k, V)
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

    def _finish(self, finished, t, histories, scores, ends):
        """``finished`` plus the hypotheses that ended at step ``t + 1``: ``ends (B, k)`` marks the new slots that
        chose ``<eos>``, with their ``scores (B, k)`` and ``histories (B, k, L)``; they go to finished slots
        ``count, count + 1, ...`` of their source in rank order."""
        k = self.beam_size
        ends_int = ops.cast(ends, "int32")
        destination = finished.count[:, None] + ops.cumsum(ends_int, axis=1) - 1  # (B, k)
        moves = ops.cast(ops.one_hot(destination, k), "int32") * ends_int[:, :, None]  # (B, from, to)
        written = ops.sum(moves, axis=1) > 0  # (B, to)
        origin = ops.sum(moves * ops.arange(k)[None, :, None], axis=1)  # (B, to) rank that lands there
        origin_rows = ops.reshape(origin + ops.arange(ends.shape[0])[:, None] * k, (-1,))
        return _Finished(
            tokens=ops.where(written[:, :, None], _take_rows(histories, origin_rows), finished.tokens),
            log_probs=ops.where(written, ops.take_along_axis(scores, origin, axis=1), finished.log_probs),
            lengths=ops.where(written, t + 1, finished.lengths),
            count=finished.count + ops.sum(ends_int, axis=1),
        )

    @staticmethod
    def _output_health(health, t, log_probs, cumulative):
        """``health`` updated with step ``t + 1``'s ``log_probs (B, k, V)``, live slots only (as ``beam_search``
        calls the model on live hypotheses only)."""
        live = (cumulative > -np.inf)[:, :, None]  # (B, k, 1)
        nan = ops.isnan(log_probs)
        row_max = ops.max(ops.where(nan, ops.full_like(log_probs, -np.inf), log_probs), axis=-1, keepdims=True)
        has_nan = ops.any(ops.logical_and(live, nan), axis=(1, 2))  # (B,)
        dead = ops.logical_and(row_max == -np.inf, ops.logical_not(ops.any(nan, axis=-1, keepdims=True)))
        has_dead = ops.any(ops.logical_and(live, dead), axis=(1, 2))
        live_max = ops.max(ops.where(live, row_max, ops.full_like(row_max, -np.inf)), axis=(1, 2))
        return _Health(
            largest=ops.maximum(health.largest, live_max),
            nan_step=ops.where(ops.logical_and(health.nan_step == 0, has_nan), t + 1, health.nan_step),
            dead_step=ops.where(ops.logical_and(health.dead_step == 0, has_dead), t + 1, health.dead_step),
        )

    def _search(self, sources):
        """The whole search as one compiled function: ``initial_states``, then a while loop of ``_beam_step``.

        Returns ``(final, vocab)``: the last ``_LoopState`` without the model's states (``states=[]``) and
        ``decoder_step``'s vocabulary size (int32 scalar, for the host's ``eos_id`` check).
        """
        k, length = self.beam_size, self.max_len
        batch = sources.shape[0]
        first = ops.concatenate([ops.zeros((batch, 1)), ops.full((batch, k - 1), -np.inf)], axis=1)
        histories = ops.zeros((batch, k, length), dtype="int32")
        initial = _LoopState(
            t=ops.convert_to_tensor(0, dtype="int32"),
            states=[ops.repeat(state, k, axis=0) for state in self.step_model.initial_states(sources)],
            last_tokens=ops.full((batch * k,), self.bos_id, dtype="int32"),
            cumulative=ops.cast(first, "float32"),  # one live slot per source before the first step
            histories=histories,
            finished=_Finished(
                tokens=histories,
                log_probs=ops.zeros((batch, k), dtype="float32"),
                lengths=ops.zeros((batch, k), dtype="int32"),
                count=ops.zeros((batch,), dtype="int32"),
            ),
            health=_Health(
                largest=ops.full((batch,), -np.inf, dtype="float32"),
                nan_step=ops.zeros((batch,), dtype="int32"),
                dead_step=ops.zeros((batch,), dtype="int32"),
            ),
        )
        # The vocabulary size is a static shape of decoder_step's output, read in Python while the body is
        # traced (compiled backends) or first run (eager ones; the first step always runs).
        vocab = None

        # keras.ops.while_loop passes the items of a tuple of loop variables as separate arguments, so the
        # state travels wrapped in a 1-tuple and body / running each take the one _LoopState.
        def running(state):
            return ops.logical_and(state.t < length, ops.any(state.cumulative > -np.inf))

        def body(state):
            nonlocal vocab
            new_states, tokens, scores, rows, ends, alive, log_probs = self._beam_step(
                state.states, state.last_tokens, state.cumulative, k - state.finished.count)
            vocab = log_probs.shape[-1]
            histories = _take_rows(state.histories, rows)  # each new slot inherits its parent's tokens
            histories = ops.where(ops.arange(length)[None, None, :] == state.t, tokens[:, :, None], histories)
            return (_LoopState(
                t=state.t + 1,
                states=new_states,
                last_tokens=ops.reshape(tokens, (-1,)),
                cumulative=ops.where(alive, scores, ops.full_like(scores, -np.inf)),
                histories=histories,
                finished=self._finish(state.finished, state.t, histories, scores, ends),
                health=self._output_health(state.health, state.t, log_probs, state.cumulative),
            ),)

        (final,) = ops.while_loop(running, body, (initial,))
        return final._replace(states=[]), ops.convert_to_tensor(vocab, dtype="int32")

    def _check_output(self, vocab, health):
        """Raise what ``_checks.call_model`` raises in ``beam_search``, from ``_output_health``'s record."""
        check_eos_in_vocab(self.eos_id, int(vocab), "step_model.decoder_step")
        largest, nan_step, dead_step = health
        where = "step_model.decoder_step returned {} for sources[{}] at step {}"
        if nan_step.any():
            b = int(np.argmax(nan_step > 0))
            raise ValueError(where.format("NaN", b, nan_step[b]) + "; it must return log-probabilities (<= 0)")
        if (largest > LOG_PROB_TOLERANCE).any():
            b = int(np.argmax(largest))
            if np.isposinf(largest[b]):
                raise ValueError(f"step_model.decoder_step returned +inf for sources[{b}]; it must return "
                                 "log-probabilities (<= 0)")
            raise ValueError(
                f"step_model.decoder_step returned {largest[b]:g} > 0 for sources[{b}]; it must return "
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

    def _check_sources(self, sources: np.ndarray) -> None:
        """Before the search: ``sources`` within the length and work bounds and, for a step model with a
        ``vocab_size``, its ids within the vocabulary."""
        batch, length = sources.shape
        if length > MAX_DECODE_LENGTH:
            raise ValueError(f"sources are {length:,} tokens long, more than the limit of {MAX_DECODE_LENGTH:,} "
                             "(MAX_DECODE_LENGTH): shorten them")
        if batch * self.beam_size * self.max_len > MAX_DECODE_TOKENS:
            raise ValueError(
                f"sources has {batch:,} sources: × beam_size {self.beam_size} × max_len {self.max_len} = "
                f"{batch * self.beam_size * self.max_len:,} tokens, more than {MAX_DECODE_TOKENS:,} "
                f"(MAX_DECODE_TOKENS): decode at most {MAX_DECODE_TOKENS // (self.beam_size * self.max_len):,} "
                "sources per call"
            )
        if self.vocab_size is not None:
            check_candidates("sources × beam_size", batch * self.beam_size, self.vocab_size)
            check_token_ids("sources", sources, self.vocab_size)

    def __call__(self, sources) -> list[list[Hypothesis]]:
        sources = np.asarray(sources)
        if sources.ndim != 2 or sources.shape[0] < 1 or sources.shape[1] < 1:
            raise ValueError(
                f"sources must be int (batch, source_len) with batch, source_len >= 1, received {sources.shape}"
            )
        self._check_sources(sources)
        sources = sources.astype(np.int32)
        final, vocab = keras.tree.map_structure(ops.convert_to_numpy, self._compiled(self._pad_sources(sources)))
        self._check_output(vocab, final.health)
        done, t, cumulative = final.finished, final.t, final.cumulative
        results = []
        for b in range(len(sources)):
            finished = [make_hypothesis(done.tokens[b, j, : done.lengths[b, j]], done.log_probs[b, j], self.eos_id,
                                        self.length_penalty) for j in range(done.count[b])]
            unfinished = [make_hypothesis(final.histories[b, r, :t], cumulative[b, r], self.eos_id, self.length_penalty)
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

