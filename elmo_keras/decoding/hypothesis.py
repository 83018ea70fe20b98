"""``Hypothesis``: one decoded sequence, its log-probability and its (length-normalised) score.

``score = log_prob / length ** length_penalty`` (``length_penalty = 0`` → ``score == log_prob``), where
``length`` counts the generated tokens, ``<eos>`` included when emitted. Every strategy in
``elmo_keras.decoding`` ranks with this one function, so "best" means the same thing everywhere.
``token_labels`` turns token ids into the strings a hypothesis (and a trace) is shown with.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np


def length_normalized_score(log_prob, length, length_penalty: float = 0.0):
    """``log_prob / length ** length_penalty``.

    Args:
        log_prob: float or array of sequence log-probabilities.
        length: int or array broadcasting against ``log_prob``, tokens generated (``<eos>`` included); a
            length below 1 counts as 1.
        length_penalty: float α ≥ 0. Defaults to 0 (the score is ``log_prob`` itself).
    """
    if length_penalty == 0.0:
        return log_prob
    return log_prob / np.power(np.maximum(length, 1), length_penalty)


@dataclass(frozen=True)
class Hypothesis:
    """A decoded sequence.

    Attributes:
        tokens: generated token ids, without ``<bos>``, ending with ``<eos>`` if it was emitted.
        log_prob: sum of the model's log-probabilities of ``tokens`` (the unfiltered model, also for sampling,
            so numbers from different strategies compare).
        score: the value the strategy ranked by (``log_prob`` length-normalised for beam/exhaustive search).
        finished: True if the sequence ends with ``<eos>`` (False: cut off at ``max_len``).
    """

    tokens: tuple[int, ...]
    log_prob: float
    score: float = field(default=None)  # type: ignore[assignment]  (filled from log_prob)
    finished: bool = False

    def __post_init__(self):
        object.__setattr__(self, "tokens", tuple(int(t) for t in self.tokens))
        object.__setattr__(self, "log_prob", float(self.log_prob))
        object.__setattr__(self, "score", float(self.log_prob if self.score is None else self.score))

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def prob(self) -> float:
        """``exp(log_prob)``: the probability of the whole sequence."""
        return float(np.exp(self.log_prob))

    def words(self, vocabulary, strip_eos: bool = True) -> list[str]:
        """The tokens as strings.

        Args:
            vocabulary: names the ids (see ``token_labels``).
            strip_eos: leave out a final ``<eos>``. Defaults to True.
        """
        tokens = self.tokens[:-1] if strip_eos and self.finished else self.tokens
        return token_labels(tokens, vocabulary)

    def text(self, vocabulary, strip_eos: bool = True) -> str:
        """``" ".join(self.words(vocabulary, strip_eos))`` (same arguments)."""
        return " ".join(self.words(vocabulary, strip_eos=strip_eos))


def make_hypothesis(tokens: Sequence[int], log_prob: float, eos_id: int, length_penalty: float = 0.0) -> Hypothesis:
    """A ``Hypothesis`` with ``score`` and ``finished`` derived from ``tokens``.

    Args:
        tokens: generated token ids, without ``<bos>``.
        log_prob: their summed log-probability.
        eos_id: ``finished`` is whether ``tokens`` ends with it.
        length_penalty: α of ``length_normalized_score``. Defaults to 0.
    """
    tokens = tuple(int(t) for t in tokens)
    finished = bool(tokens) and tokens[-1] == eos_id
    score = length_normalized_score(float(log_prob), len(tokens), length_penalty)
    return Hypothesis(tokens, float(log_prob), float(score), finished)


def rank_hypotheses(hypotheses: Sequence[Hypothesis]) -> list[Hypothesis]:
    """A new list, best ``score`` first; ties keep their input order (stable).

    Args:
        hypotheses: the ``Hypothesis`` objects to rank.
    """
    order = np.argsort(-np.array([h.score for h in hypotheses], dtype=np.float64), kind="stable")
    return [hypotheses[i] for i in order]


def token_labels(token_ids: Sequence[int], vocabulary=None) -> list[str]:
    """Strings for ``token_ids``.

    Args:
        token_ids: ints.
        vocabulary: ``None`` (labels are the ids as strings), an object with ``id_to_token`` (``Vocabulary``),
            a sequence of strings indexed by id, or a mapping id → string. Defaults to None.

    Returns:
        One string per id.
    """
    ids = [int(t) for t in token_ids]
    if vocabulary is None:
        return [str(t) for t in ids]
    if hasattr(vocabulary, "id_to_token"):
        return [vocabulary.id_to_token(t) for t in ids]
    if isinstance(vocabulary, (Sequence, Mapping)):
        return [str(vocabulary[t]) for t in ids]
    raise TypeError(
        f"vocabulary must be None, a Vocabulary, a sequence or a mapping, received {type(vocabulary).__name__}"
    )
