"""The occurrences of one word in the working corpus plus typed sentences, embedded and ordered by sense.

Both the similarity and the PCA pages start here: ``ordered_occurrences`` embeds every occurrence once
(``analysis.word_occurrences``) and sorts them by sense, so heatmap blocks and legend groups line up.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from elmo_keras.analysis.embeddings import is_unknown_word
from elmo_keras.analysis.senses import TYPED, WordOccurrences, word_occurrences
from elmo_keras.explorer.corpus import sense_order
from elmo_keras.text.tokenizer import tokenize

SNIPPET_CONTEXT = 3  # words shown either side of the target in a tick label


@dataclass(frozen=True)
class OrderedOccurrences:
    """``occurrences`` sorted by sense (then corpus order), with the typed lines that were refused."""

    occurrences: WordOccurrences
    senses_in_order: list
    rejected_typed: list  # typed lines that do not contain the word
    unknown_note: str | None = None  # set when a word-level model reads the word as <unk>

    @property
    def count(self) -> int:
        """Number of occurrences (corpus and typed)."""
        return len(self.occurrences.senses)

    def snippets(self, context: int = SNIPPET_CONTEXT) -> list[str]:
        """One ``snippet`` per occurrence, in order."""
        return [snippet(s, p, context) for s, p in zip(self.occurrences.sentences, self.occurrences.positions)]


def split_typed(text: str, word: str) -> tuple[list[str], list[str]]:
    """Typed lines that contain ``word`` (case-insensitive, as a token) and those that do not."""
    accepted, rejected = [], []
    for line in (text or "").splitlines():
        line = line.strip()
        if not line:
            continue
        tokens = [t.lower() for t in tokenize(line)]
        (accepted if word.lower() in tokens else rejected).append(line)
    return accepted, rejected


def snippet(tokens, position: int, context: int = SNIPPET_CONTEXT) -> str:
    """``"…sat on the BANK of the…"``: the target upper-cased with ``context`` words either side.

    Args:
        tokens: the sentence's tokens.
        position: int, the target's index in ``tokens``.
        context: int, words shown either side. Defaults to ``SNIPPET_CONTEXT``.
    """
    start, end = max(0, position - context), min(len(tokens), position + context + 1)
    words = [t.upper() if i == position else t for i, t in enumerate(tokens[start:end], start=start)]
    return ("…" if start > 0 else "") + " ".join(words) + ("…" if end < len(tokens) else "")


def _take(occurrences: WordOccurrences, index) -> WordOccurrences:
    index = list(index)
    return replace(
        occurrences,
        sentences=[occurrences.sentences[i] for i in index],
        positions=[occurrences.positions[i] for i in index],
        senses=[occurrences.senses[i] for i in index],
        splits=[occurrences.splits[i] for i in index],
        embeddings=occurrences.embeddings[:, index],
    )


def ordered_occurrences(model, corpus: pd.DataFrame, word: str, typed_text: str = "") -> OrderedOccurrences:
    """Embed every occurrence of ``word`` in ``corpus`` and the typed lines containing it, ordered by sense.

    Args:
        model: a trained ``BiLanguageModel``.
        corpus: the working corpus.
        word: the word to follow (case-insensitive).
        typed_text: sentences typed on the page, one per line; lines without the word are returned as
            ``rejected_typed``. Defaults to ``""``.

    Raises:
        ValueError: no word chosen, or the word occurs nowhere (neither in the corpus nor in a typed line).
    """
    word = (word or "").strip().lower()
    if not word:
        raise ValueError("Choose a word.")
    accepted, rejected = split_typed(typed_text, word)
    occurrences = word_occurrences(model, word, corpus, typed_sentences=accepted)
    order = sense_order(word, occurrences.senses)
    rank = {sense: i for i, sense in enumerate(order)}
    index = sorted(range(len(occurrences.senses)), key=lambda i: (rank[occurrences.senses[i]], i))
    note = None
    if is_unknown_word(model, word):
        note = (f"'{word}' is not in this word-level model's vocabulary: the model reads it as <unk>, so layer 0 is "
                "the vector of every unknown word and the higher layers differ only by context. A character-level "
                "model (token_input 'char') sees the word itself.")
    return OrderedOccurrences(_take(occurrences, index), order, rejected, note)


def subsample_per_sense(senses, per_sense: int | None) -> np.ndarray:
    """Indices keeping at most ``per_sense`` occurrences of each sense (evenly spaced), typed ones always kept.

    Args:
        senses: `n` sense labels.
        per_sense: int, or None to keep everything.

    Returns:
        Sorted int indices into ``senses``.
    """
    senses = np.asarray(senses)
    if per_sense is None:
        return np.arange(len(senses))
    keep = []
    for sense in dict.fromkeys(senses.tolist()):
        members = np.flatnonzero(senses == sense)
        if sense == TYPED or len(members) <= per_sense:
            keep += members.tolist()
        else:
            keep += members[np.linspace(0, len(members) - 1, per_sense).round().astype(int)].tolist()
    return np.array(sorted(keep), dtype=int)
