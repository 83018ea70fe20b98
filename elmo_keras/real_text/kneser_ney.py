"""A count-based baseline for the biLMs' perplexities: an interpolated modified Kneser–Ney n-gram language model,
counted in plain Python over a ``Vocabulary``'s ids, forward and backward.

The numbers are comparable to ``models.bilm.evaluation.perplexities`` and ``unigram_perplexity``: words become
``vocabulary.encode`` ids (unknown words ``<unk>``, lowercased as the vocabulary lowercases), each sentence is
scored on its tokens plus ``</S>`` (forward) or, read right to left, on its tokens plus ``<S>`` (backward, as the
biLM's backward direction predicts ``<S>`` last), and the perplexity is ``exp(−mean log P)`` over every target.

The model (Chen & Goodman 1998's interpolated modified Kneser–Ney), for order ``k`` and a context ``h`` of
``k − 1`` ids seen in training:

    P_k(w | h) = (a_k(h w) − D_k(a_k(h w)) + γ_k(h) · P_{k−1}(w | h[1:])) / Σ_v a_k(h v)
    γ_k(h)     = Σ_v D_k(a_k(h v))        (the mass the discounts took, given to the lower order)
    P_0(w)     = 1 / |predicted ids|      (uniform)

with ``P_k(w | h) = P_{k−1}(w | h[1:])`` for a context never seen. ``a_n`` are the raw counts of the highest order;
a lower order counts continuations, ``a_k(g) = |{x : x g seen}|`` (how many distinct ids precede ``g``), except for
an n-gram that starts with the start pad, which has no real left neighbour and keeps its raw count (as KenLM does).
``D_k(c)`` is ``D_k,1``, ``D_k,2`` or ``D_k,3+`` for a count of 1, 2 or more (0 for 0), estimated per order from
that order's count-of-counts ``n_1 … n_4`` (``modified_discounts``); with ``discount=d`` every ``D`` is ``d``
(interpolated Kneser–Ney with one absolute discount). Since ``D_k(c) ≤ c``, each ``P_k(· | h)``
sums to 1 over the predicted ids.

Reference:
    Stanley F. Chen and Joshua Goodman, "An Empirical Study of Smoothing Techniques for Language Modeling",
    Harvard University TR-10-98, 1998 (the model, and the discounts of ``modified_discounts``).
    Reinhard Kneser and Hermann Ney, "Improved Backing-off for M-gram Language Modeling", ICASSP 1995.
"""

from __future__ import annotations

import math
import numbers
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

from elmo_keras.argument_checks import check_int
from elmo_keras.text.sentences import as_token_lists
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID, PAD_ID, UNK_ID, Vocabulary

DEFAULT_ORDER = 3
FALLBACK_DISCOUNTS = (0.5, 1.0, 1.5)  # D1, D2, D3+ where count-of-counts cannot estimate them (KenLM's fallback)
_SPECIAL_IDS = (PAD_ID, BOS_ID, EOS_ID)  # a literal "<S>", "</S>" or "<pad>" in the text is scored as <unk>


def modified_discounts(counts: Iterable[int]) -> tuple[float, float, float]:
    """Chen & Goodman's ``(D1, D2, D3+)`` for one order, from its n-gram counts.

    With ``n_r`` the number of n-grams seen exactly ``r`` times and ``Y = n_1 / (n_1 + 2 n_2)``:
    ``D1 = 1 − 2Y n_2/n_1``, ``D2 = 2 − 3Y n_3/n_2``, ``D3+ = 3 − 4Y n_4/n_3``. Where an ``n_r`` (r ≤ 4) is 0 or a
    discount falls outside ``(0, r]`` (tiny corpora), ``FALLBACK_DISCOUNTS``.

    Args:
        counts: the (adjusted) counts of every n-gram of the order, ints ≥ 1.

    Returns:
        ``(D1, D2, D3+)``, floats.
    """
    n = Counter(count for count in counts if count <= 4)
    if min(n[1], n[2], n[3], n[4]) == 0:
        return FALLBACK_DISCOUNTS
    y = n[1] / (n[1] + 2 * n[2])
    discounts = tuple(r - (r + 1) * y * n[r + 1] / n[r] for r in (1, 2, 3))
    if not all(0 < d <= r for r, d in enumerate(discounts, start=1)):
        return FALLBACK_DISCOUNTS
    return discounts


class KneserNeyLM:
    """An interpolated modified Kneser–Ney n-gram model over ``vocabulary``'s ids (see the module docstring).

    The predicted ids are every id of the vocabulary but ``PAD_ID`` and the start id: forward, all but ``<pad>``
    (0) and ``<S>`` (2), so ``<unk>`` (1), ``</S>`` (3) and every word; backward, all but ``<pad>`` (0) and ``</S>``
    (3). ``probability`` sums to 1 over exactly these, in every context. A literal ``<pad>``, ``<S>`` or ``</S>`` in
    the text is counted and scored as ``<unk>``.

    Args:
        vocabulary: the ``Vocabulary`` mapping words to ids.
        order: int ≥ 1, the n of the n-grams (1: a Kneser–Ney unigram). Defaults to 3.
        discount: None: modified Kneser–Ney, three discounts per order estimated from the counts
            (``modified_discounts``); a float in (0, 1]: that one discount for every count and order (0.75 is
            usual). Defaults to None.
        backward: bool, read sentences right to left: the start pad is ``</S>``, and each sentence's last target is
            ``<S>`` (the biLM's backward direction). Defaults to False.

    Attributes:
        predicted_ids: tuple of int, the ids ``probability`` is a distribution over, ascending.
        discounts: ``{k: (D1, D2, D3+)}`` for each order ``k``, after ``fit``.

    Example:
        >>> from elmo_keras.text.vocabulary import Vocabulary, EOS_ID
        >>> vocabulary = Vocabulary(["a", "b"])
        >>> lm = KneserNeyLM.from_sentences([["a", "b"], ["a", "a"]], vocabulary, order=2, discount=0.75)
        >>> round(lm.probability(vocabulary.encode(["a"]), EOS_ID), 6)  # P(</S> | a), worked out in the tests
        0.355208
    """

    def __init__(self, vocabulary: Vocabulary, order: int = DEFAULT_ORDER, discount: float | None = None,
                 backward: bool = False):
        if not isinstance(vocabulary, Vocabulary):
            raise TypeError(f"vocabulary must be an elmo_keras Vocabulary, received {type(vocabulary).__name__}")
        if discount is not None and (isinstance(discount, bool) or not isinstance(discount, numbers.Real)
                                     or not 0 < discount <= 1):
            raise ValueError(f"discount must be a number in (0, 1] or None (estimated per order), received "
                             f"{discount!r}")
        self.vocabulary = vocabulary
        self.order = check_int(order, "order")
        self.discount = None if discount is None else float(discount)
        self.backward = bool(backward)
        self.start_id, self.end_id = (EOS_ID, BOS_ID) if self.backward else (BOS_ID, EOS_ID)
        self.predicted_ids = tuple(i for i in range(len(vocabulary)) if i not in (PAD_ID, self.start_id))
        self.discounts: dict[int, tuple[float, float, float]] = {}
        self._counts: dict[int, dict[tuple, int]] = {}  # order k -> {k-gram: a_k}
        self._contexts: dict[int, dict[tuple, tuple[int, float]]] = {}  # order k -> {context: (Σ_v a_k, γ_k)}

    @classmethod
    def from_sentences(cls, train_sentences, vocabulary: Vocabulary, order: int = DEFAULT_ORDER,
                       discount: float | None = None, backward: bool = False) -> "KneserNeyLM":
        """A model of ``order`` fitted on ``train_sentences`` (the arguments as the class's and ``fit``'s)."""
        return cls(vocabulary, order, discount, backward).fit(train_sentences)

    def fit(self, train_sentences) -> "KneserNeyLM":
        """Count the n-grams of ``train_sentences`` (replacing any earlier fit) and estimate the discounts.

        Args:
            train_sentences: token lists (or strings, split by ``tokenize``).

        Returns:
            ``self``.

        Raises:
            TypeError, ValueError: as ``text.sentences.as_token_lists`` (no sentences, an empty sentence, ...),
                naming ``train_sentences``.
        """
        raw = self._raw_counts(as_token_lists(train_sentences, "train_sentences"))
        self._counts = {self.order: raw[self.order]}
        for k in range(self.order - 1, 0, -1):  # continuation counts, but raw counts after the start pad
            adjusted = Counter(gram[1:] for gram in raw[k + 1] if gram[1] != self.start_id)
            adjusted.update({gram: count for gram, count in raw[k].items() if gram[0] == self.start_id})
            self._counts[k] = adjusted
        for k, counts in self._counts.items():
            self.discounts[k] = (modified_discounts(counts.values()) if self.discount is None
                                 else (self.discount,) * 3)
            totals: dict[tuple, int] = defaultdict(int)
            taken: dict[tuple, float] = defaultdict(float)
            for gram, count in counts.items():
                totals[gram[:-1]] += count
                taken[gram[:-1]] += self._discounted(k, count)
            self._contexts[k] = {context: (total, taken[context]) for context, total in totals.items()}
        return self

    def probability(self, context_ids: Sequence[int], word_id: int) -> float:
        """``P(word_id | context_ids)``.

        Args:
            context_ids: the ids read before ``word_id`` in the model's direction, oldest first (forward: the
                preceding words; backward: the following words from the sentence's end inwards). Only the last
                ``order − 1`` count; a shorter context is the sentence's beginning, padded with the start id.
            word_id: int, one of ``predicted_ids``.

        Returns:
            float in (0, 1].

        Raises:
            RuntimeError: the model is not fitted.
            ValueError: ``word_id`` is not a predicted id.
        """
        if not self._counts:
            raise RuntimeError("this KneserNeyLM is not fitted: call fit(train_sentences) first")
        if word_id in (PAD_ID, self.start_id) or not 0 <= word_id < len(self.vocabulary):
            raise ValueError(f"word_id must be one of predicted_ids (every vocabulary id but {PAD_ID} and "
                             f"{self.start_id}), received {word_id!r}")
        context = tuple(context_ids)[-(self.order - 1):] if self.order > 1 else ()
        return self._probability((self.start_id,) * (self.order - 1 - len(context)) + context, word_id)

    def perplexity(self, eval_sentences) -> float:
        """``exp(−mean log P)`` over every target of ``eval_sentences``: their tokens and one ``</S>`` each (backward:
        ``<S>``).

        Args:
            eval_sentences: token lists (or strings, split by ``tokenize``).

        Raises:
            RuntimeError: the model is not fitted.
            TypeError, ValueError: as ``as_token_lists``, naming ``eval_sentences``.
        """
        if not self._counts:
            raise RuntimeError("this KneserNeyLM is not fitted: call fit(train_sentences) first")
        log_probability, targets = 0.0, 0
        width = self.order - 1
        for ids in self._padded(as_token_lists(eval_sentences, "eval_sentences")):
            for position in range(width, len(ids)):
                log_probability += math.log(self._probability(tuple(ids[position - width:position]), ids[position]))
                targets += 1
        return math.exp(-log_probability / targets)

    def _probability(self, context: tuple, word_id: int) -> float:
        """``P(word_id | context)`` for a context of exactly ``order − 1`` ids, lowest order first."""
        probability = 1.0 / len(self.predicted_ids)
        for k in range(1, self.order + 1):
            history = context[len(context) - (k - 1):]
            seen = self._contexts[k].get(history)
            if seen is None:  # never seen: the lower order's estimate stands
                continue
            total, taken = seen
            count = self._counts[k].get(history + (word_id,), 0)
            probability = (count - self._discounted(k, count) + taken * probability) / total
        return probability

    def _discounted(self, k: int, count: int) -> float:
        """``D_k(count)``: 0 for an unseen n-gram."""
        return self.discounts[k][min(count, 3) - 1] if count else 0.0

    def _padded(self, sentences: list[list[str]]) -> Iterable[list[int]]:
        """Each sentence's ids in reading order, after ``order − 1`` start pads, ending with the end id."""
        pads = [self.start_id] * (self.order - 1)
        for sentence in sentences:
            ids = [UNK_ID if i in _SPECIAL_IDS else i for i in self.vocabulary.encode(sentence)]
            yield pads + (ids[::-1] if self.backward else ids) + [self.end_id]

    def _raw_counts(self, sentences: list[list[str]]) -> list[Counter]:
        """``raw[k]``: how often each k-gram ends at a target (every position after the pads), ``k = 1 … order``."""
        raw = [Counter() for _ in range(self.order + 1)]
        first_target = self.order - 1
        for ids in self._padded(sentences):
            for k in range(1, self.order + 1):
                raw[k].update(zip(*(ids[first_target - k + 1 + i:] for i in range(k))))
        return raw


def kneser_ney_perplexities(train_sentences, eval_sentences, vocabulary: Vocabulary, order: int = DEFAULT_ORDER,
                            discount: float | None = None) -> dict:
    """Forward and backward perplexity on ``eval_sentences`` of Kneser–Ney models fitted on ``train_sentences``:
    the count-based counterpart of ``models.bilm.evaluation.perplexities``.

    Args:
        train_sentences: token lists (or strings) the n-grams are counted in.
        eval_sentences: token lists (or strings) scored.
        vocabulary: the ``Vocabulary`` (the biLM's, for comparable numbers).
        order, discount: as ``KneserNeyLM``. Defaults to 3 and None (modified discounts).

    Returns:
        ``{"forward_perplexity": float, "backward_perplexity": float}``.

    Raises:
        TypeError, ValueError: as ``KneserNeyLM`` and ``as_token_lists`` (naming the option).
    """
    models = {direction: KneserNeyLM(vocabulary, order, discount, backward=direction == "backward")
              for direction in ("forward", "backward")}  # the options checked before the sentences are read
    train = as_token_lists(train_sentences, "train_sentences")
    held_out = as_token_lists(eval_sentences, "eval_sentences")
    return {f"{direction}_perplexity": model.fit(train).perplexity(held_out) for direction, model in models.items()}
