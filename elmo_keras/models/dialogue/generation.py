"""Responses of HRED and VHRED for one dialogue history, through the shared strategies of ``elmo_keras.decoding``.

Each function builds a ``next_log_probs(prefixes) -> (n, vocab)`` for one context (``model.log_prob_fn``) and hands
it to ``greedy``, ``beam_search`` or ``sample``; VHRED draws ``z ~ p(z | c)`` first (seeded) and decodes each
``z`` greedily (all of them at once, ``batch_greedy``: the same replies as ``greedy`` for each ``z``), so the variety
of its replies comes from ``z`` alone. ``distinct_n`` measures that variety.

Every argument is checked before the model reads anything: the history (``check_history_ids``: ids in the
vocabulary, not only padding, within ``MAX_HISTORY_TURNS`` × ``MAX_UTTERANCE_TOKENS``) and the sizes (``max_len`` ≤
``MAX_DECODE_LENGTH``; ``beam_size`` / ``num_samples`` × ``max_len`` ≤ ``MAX_DECODE_TOKENS`` and × the vocabulary
≤ ``MAX_DECODE_CANDIDATES``; VHRED decodes each ``z`` on its own, so at most ``MAX_LATENT_SAMPLES`` of them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from elmo_keras._quiet import ops
from elmo_keras.argument_checks import check_int
from elmo_keras.decoding import beam_search, greedy, sample
from elmo_keras.decoding._checks import check_candidates, check_max_len, check_rows, check_sampling_args
from elmo_keras.decoding.hypothesis import Hypothesis
from elmo_keras.models.dialogue.encoding import check_history_ids

MAX_RESPONSE_TOKENS = 12  # </S> included; the toy replies have at most 7 words
MAX_LATENT_SAMPLES = 1_000  # latent_responses: one greedy decode per z


@dataclass(frozen=True)
class Response:
    """One generated reply: its text, its total log-probability and whether it ended with ``</S>``."""

    text: str
    log_prob: float
    finished: bool


def as_response(hypothesis: Hypothesis, vocabulary) -> Response:
    """A decoding ``Hypothesis`` as a ``Response`` (words joined by spaces, ``</S>`` left out)."""
    return Response(hypothesis.text(vocabulary), hypothesis.log_prob, hypothesis.finished)


def greedy_response(model, history, max_len: int = MAX_RESPONSE_TOKENS) -> Response:
    """The greedy reply of ``model`` (HRED, or VHRED at the prior's mean) to int `(turns, words)` ``history``.

    Raises:
        ValueError: a bad ``max_len`` or ``history`` (see the module docstring), before any work.
    """
    max_len = check_max_len(max_len)
    return as_response(greedy(model.log_prob_fn(history), model.bos_id, model.eos_id, max_len), model.vocabulary)


def beam_responses(model, history, beam_size: int = 5, max_len: int = MAX_RESPONSE_TOKENS) -> list[Response]:
    """The ``beam_size`` best replies by beam search (best first).

    Raises:
        ValueError: a bad size or ``history`` (see the module docstring), before any work.
    """
    max_len = check_max_len(max_len)
    beam_size = check_rows("beam_size", beam_size, max_len)
    check_candidates("beam_size", beam_size, model.vocab_size)
    hypotheses = beam_search(model.log_prob_fn(history), model.bos_id, model.eos_id, max_len, beam_size)
    return [as_response(h, model.vocabulary) for h in hypotheses]


def sampled_responses(model, history, num_samples: int, seed: int = 0, temperature: float = 1.0,
                      top_k: int | None = None, top_p: float | None = None,
                      max_len: int = MAX_RESPONSE_TOKENS) -> list[Response]:
    """``num_samples`` replies drawn word by word (ancestral sampling with the given cuts), reproducible for
    ``seed``.

    Raises:
        ValueError: a bad size, cut or ``history`` (see the module docstring), before any work.
    """
    max_len = check_max_len(max_len)
    num_samples = check_rows("num_samples", num_samples, max_len)
    check_candidates("num_samples", num_samples, model.vocab_size)
    temperature, top_k, top_p = check_sampling_args(temperature, top_k, top_p)
    hypotheses = sample(model.log_prob_fn(history), model.bos_id, model.eos_id, max_len, temperature=temperature,
                        top_k=top_k, top_p=top_p, seed=seed, num_samples=num_samples)
    return [as_response(h, model.vocabulary) for h in hypotheses]


def latent_responses(model, history, num_samples: int, seed: int = 0,
                     max_len: int = MAX_RESPONSE_TOKENS) -> list[Response]:
    """VHRED: ``num_samples`` draws ``z ~ p(z | c)`` (seeded), each decoded greedily: one reply per ``z``.

    Raises:
        TypeError: ``model`` is not a VHRED (it has no latent variable).
        ValueError: ``num_samples`` outside ``[1, MAX_LATENT_SAMPLES]``, a bad ``max_len`` or ``history``, before
            any work.
    """
    if not callable(getattr(model, "sample_prior", None)):
        raise TypeError(f"latent_responses needs a VHRED (a model with a latent z), received {type(model).__name__}:"
                        " use greedy_response, beam_responses or sampled_responses")
    num_samples = check_int(num_samples, "num_samples")
    if num_samples > MAX_LATENT_SAMPLES:
        raise ValueError(f"num_samples = {num_samples:,} is more z draws than latent_responses decodes (at most "
                         f"{MAX_LATENT_SAMPLES:,}, MAX_LATENT_SAMPLES: one greedy decode each): use e.g. 5–100")
    max_len = check_max_len(max_len)
    history = check_history_ids(history, model)
    context = model.context_vector(ops.expand_dims(history, 0))
    latents = model.sample_prior(context, num_samples, seed)
    states = model.decoder_states(ops.repeat(context, num_samples, axis=0), latents)
    return [as_response(h, model.vocabulary) for h in batch_greedy(model, states, max_len)]


def batch_greedy(model, states, max_len: int) -> list[Hypothesis]:
    """Greedy decoding of ``n`` rows at once from the decoder initial ``states`` (each `(n, decoder_units)`): per
    row the ``Hypothesis`` ``greedy`` finds from that row's states (most probable token each step, lower id on a
    tie, stopped at ``</S>`` or after ``max_len`` tokens), one ``decoder_step`` per step for every row."""
    states = list(states)
    n = int(ops.shape(states[0])[0])
    tokens = np.full(n, model.bos_id, dtype=np.int32)
    generated = [[] for _ in range(n)]
    log_prob, finished = np.zeros(n), np.zeros(n, dtype=bool)
    for _ in range(max_len):
        log_probs, states = model.decoder_step(states, tokens)
        log_probs = ops.convert_to_numpy(log_probs).astype(np.float64)  # (n, V)
        tokens = np.argmax(log_probs, axis=1).astype(np.int32)  # first maximum: lower id wins ties
        for row in np.flatnonzero(~finished):
            generated[row].append(int(tokens[row]))
            log_prob[row] += log_probs[row, tokens[row]]
        finished |= tokens == model.eos_id
        if finished.all():
            break
    return [Hypothesis(tuple(generated[row]), log_prob[row], finished=bool(finished[row])) for row in range(n)]


def distinct_n(texts, n: int) -> float:
    """distinct-n: distinct n-grams / all n-grams over the word sequences ``texts`` (0 when there are none).

    Args:
        texts: strings (split on whitespace).
        n: int ≥ 1, the n-gram order.
    """
    check_int(n, "n")
    grams = [tuple(words[i : i + n]) for words in (t.split() for t in texts) for i in range(len(words) - n + 1)]
    return len(set(grams)) / len(grams) if grams else 0.0


def diversity(texts, references=None) -> dict:
    """``distinct_1``, ``distinct_2``, ``unique`` (distinct replies / replies) and, given the context's
    ``references``, ``valid`` (share of replies that are one of them) and ``coverage`` (share of references
    produced at least once)."""
    texts = list(texts)
    result = {"distinct_1": distinct_n(texts, 1), "distinct_2": distinct_n(texts, 2),
              "unique": len(set(texts)) / len(texts) if texts else 0.0}
    if references is not None:
        result["valid"] = float(np.mean([t in references for t in texts])) if texts else 0.0
        result["coverage"] = float(np.mean([r in texts for r in references]))
    return result
