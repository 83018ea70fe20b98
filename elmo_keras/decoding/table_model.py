"""Fixed probability tables as ``next_log_probs`` functions: the fake models decoding is tested on.

* ``PrefixTable``: a dict from prefix (words after ``<bos>``) to a next-word distribution — hand-written
  examples such as the worked examples.
* ``NGramTable``: an array ``P[w_{t−n+1}, …, w_{t−1}, w_t]`` — random tables for property tests.

Both are callables ``fn(prefixes int (n, t)) -> float64 (n, vocab)``, vectorised over the rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from elmo_keras.argument_checks import check_finite_positive, check_int
from elmo_keras.decoding._checks import MAX_DECODE_CANDIDATES


class PrefixTable:
    """``next_log_probs`` from a hand-written table ``{prefix words: {next word: probability}}``.

    Args:
        table: keys are tuples of words after ``<bos>`` (``()`` for the first step); values map words to
            probabilities. Unlisted words get probability 0; each row must sum to 1 (within 1e-6).
        vocabulary: ``Vocabulary`` (or anything with ``token_to_id``/``id_to_token``/``len``) naming the ids.
        eos_token: the end token; a prefix missing from the table ends there: ``{eos_token: 1.0}``.

    Calling it on int ``prefixes`` ``(n, t)`` (each starting with ``<bos>``) returns float64 ``(n, vocab)``.

    Example:
        >>> from elmo_keras.text import EOS_TOKEN, Vocabulary
        >>> model = PrefixTable({(): {"A": 0.6, "B": 0.4}}, Vocabulary(["A", "B"]), EOS_TOKEN)
        >>> np.exp(model(np.array([[2]]))).round(2).tolist()   # 2 = <S>
        [[0.0, 0.0, 0.0, 0.0, 0.6, 0.4]]
    """

    def __init__(self, table: Mapping[Sequence[str], Mapping[str, float]], vocabulary, eos_token: str):
        self.vocabulary = vocabulary
        self.vocab_size = len(vocabulary)
        self.eos_id = self._id(eos_token)
        self.table = {}
        for prefix, row in table.items():
            log_probs = np.full(self.vocab_size, -np.inf)
            for word, prob in row.items():
                if not 0.0 <= prob <= 1.0:
                    raise ValueError(f"table[{prefix!r}][{word!r}] must be a probability in [0, 1], received {prob!r}")
                log_probs[self._id(word)] = np.log(prob) if prob > 0 else -np.inf
            total = sum(row.values())
            if abs(total - 1.0) > 1e-6:
                raise ValueError(f"table[{prefix!r}] must sum to 1, received {total!r}")
            self.table[tuple(self._id(word) for word in prefix)] = log_probs
        self.end = np.full(self.vocab_size, -np.inf)
        self.end[self.eos_id] = 0.0

    def _id(self, word: str) -> int:
        if word not in self.vocabulary:
            raise ValueError(f"word {word!r} is not in the vocabulary")
        return int(self.vocabulary.token_to_id(word))

    def __call__(self, prefixes) -> np.ndarray:
        prefixes = np.asarray(prefixes)
        return np.stack([self.table.get(tuple(int(t) for t in row[1:]), self.end) for row in prefixes])


class NGramTable:
    """``next_log_probs`` from an n-gram probability array (the context is the last ``order − 1`` tokens).

    Args:
        probs: ``(vocab,) * order`` array; ``probs[c_1, …, c_{n−1}, :]`` is the next-token distribution after
            context ``c`` (``<bos>`` fills the context before the start). Rows must sum to 1.

    ``NGramTable.random(vocab_size, order, seed)`` draws every row from a Dirichlet distribution. Calling it on
    int ``prefixes`` ``(n, t)`` returns float64 ``(n, vocab)``.

    Example:
        >>> model = NGramTable.random(vocab_size=5, order=3, seed=0)
        >>> log_probs = model(np.array([[2, 4], [2, 1]]))  # next token after (2, 4) and after (2, 1)
        >>> log_probs.shape, np.exp(log_probs).sum(axis=1).round(6).tolist()
        ((2, 5), [1.0, 1.0])
    """

    def __init__(self, probs):
        probs = np.asarray(probs, dtype=np.float64)
        if probs.ndim < 1 or len(set(probs.shape)) != 1:
            raise ValueError(f"probs must have shape (vocab,) * order, received {probs.shape}")
        if (probs < 0).any() or not np.allclose(probs.sum(axis=-1), 1.0, atol=1e-6):
            raise ValueError("probs must be non-negative and every row must sum to 1")
        self.probs = probs
        self.order = probs.ndim
        self.vocab_size = probs.shape[-1]
        with np.errstate(divide="ignore"):
            self.log_probs = np.log(probs)

    @classmethod
    def random(cls, vocab_size: int, order: int = 2, seed=None, concentration: float = 0.5) -> "NGramTable":
        """A table with Dirichlet(``concentration``) rows.

        Args:
            vocab_size: int ≥ 1, tokens in the vocabulary; ``vocab_size ** order`` (the table's entries) at most
                ``MAX_DECODE_CANDIDATES``.
            order: int ≥ 1, the n of the n-gram (2: the next token depends on the last one). Defaults to 2.
            seed: anything ``numpy.random.default_rng`` takes (int, None, a ``Generator``). Defaults to None.
            concentration: float > 0; smaller gives peakier rows. Defaults to 0.5.
        """
        vocab_size, order = check_int(vocab_size, "vocab_size"), check_int(order, "order")
        concentration = check_finite_positive(concentration, "concentration")
        if vocab_size**order > MAX_DECODE_CANDIDATES:
            raise ValueError(f"vocab_size = {vocab_size:,} and order = {order} make a table of {vocab_size**order:,} "
                             f"probabilities, more than {MAX_DECODE_CANDIDATES:,} (MAX_DECODE_CANDIDATES): use a "
                             "smaller vocab_size or order")
        rng = np.random.default_rng(seed)
        shape = (vocab_size,) * (order - 1)
        return cls(rng.dirichlet(np.full(vocab_size, concentration), size=shape))

    def __call__(self, prefixes) -> np.ndarray:
        prefixes = np.asarray(prefixes)
        if self.order == 1:
            return np.broadcast_to(self.log_probs, (len(prefixes), self.vocab_size)).copy()
        width = self.order - 1
        if prefixes.shape[1] < width:  # pad the context on the left with the first token (<bos>)
            prefixes = np.concatenate([np.repeat(prefixes[:, :1], width - prefixes.shape[1], axis=1), prefixes], axis=1)
        context = prefixes[:, -width:]  # (n, order - 1)
        return self.log_probs[tuple(context.T)]
