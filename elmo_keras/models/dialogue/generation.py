"""Responses of HRED and VHRED for one dialogue history, through the shared strategies of ``elmo_keras.decoding``.

Each function builds a ``next_log_probs(prefixes) -> (n, vocab)`` for one context (``model.log_prob_fn``) and hands
it to ``greedy``, ``beam_search`` or ``sample``; VHRED draws ``z ~ p(z | c)`` first (seeded) and decodes each
``z`` greedily, so the variety of its replies comes from ``z`` alone. ``distinct_n`` measures that variety.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from keras import ops

from elmo_keras.argument_checks import check_positive_int
from elmo_keras.decoding import beam_search, greedy, sample
from elmo_keras.decoding.hypothesis import Hypothesis

MAX_RESPONSE_TOKENS = 12  # </S> included; the toy replies have at most 7 words


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
    """The greedy reply of ``model`` (HRED, or VHRED at the prior's mean) to int `(turns, words)` ``history``."""
    return as_response(greedy(model.log_prob_fn(history), model.bos_id, model.eos_id, max_len), model.vocabulary)


def beam_responses(model, history, beam_size: int = 5, max_len: int = MAX_RESPONSE_TOKENS) -> list[Response]:
    """The ``beam_size`` best replies by beam search (best first)."""
    hypotheses = beam_search(model.log_prob_fn(history), model.bos_id, model.eos_id, max_len, beam_size)
    return [as_response(h, model.vocabulary) for h in hypotheses]


def sampled_responses(model, history, num_samples: int, seed: int = 0, temperature: float = 1.0,
                      top_k: int | None = None, top_p: float | None = None,
                      max_len: int = MAX_RESPONSE_TOKENS) -> list[Response]:
    """``num_samples`` replies drawn word by word (ancestral sampling with the given cuts), reproducible for
    ``seed``."""
    hypotheses = sample(model.log_prob_fn(history), model.bos_id, model.eos_id, max_len, temperature=temperature,
                        top_k=top_k, top_p=top_p, seed=seed, num_samples=num_samples)
    return [as_response(h, model.vocabulary) for h in hypotheses]


def latent_responses(model, history, num_samples: int, seed: int = 0,
                     max_len: int = MAX_RESPONSE_TOKENS) -> list[Response]:
    """VHRED: ``num_samples`` draws ``z ~ p(z | c)`` (seeded), each decoded greedily: one reply per ``z``."""
    check_positive_int(num_samples, "num_samples")
    context = model.encode_context(ops.expand_dims(history, 0))
    latents = model.sample_prior(context, num_samples, seed)
    return [as_response(greedy(model.log_prob_fn(history, z), model.bos_id, model.eos_id, max_len), model.vocabulary)
            for z in latents]


def distinct_n(texts, n: int) -> float:
    """distinct-n: distinct n-grams / all n-grams over the word sequences ``texts`` (0 when there are none).

    Args:
        texts: strings (split on whitespace).
        n: int ≥ 1, the n-gram order.
    """
    check_positive_int(n, "n")
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
