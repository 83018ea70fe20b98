"""Occurrences of a word across the corpus, and how well each layer separates its senses."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from elmo_keras.analysis.embeddings import layer_embeddings
from elmo_keras.analysis.similarity import nearest_centroid_accuracy
from elmo_keras.data.polysemy import TYPED, UNLABELLED
from elmo_keras.text.tokenizer import tokenize


@dataclass(frozen=True)
class WordOccurrences:
    """Every occurrence of one word, with its vectors in every layer (lists have one item per occurrence)."""

    word: str
    sentences: list  # list[list[str]] tokens
    positions: list  # token index of the word in each sentence
    senses: list  # sense label per occurrence ("unlabelled" / "typed" where unknown)
    splits: list  # "train" / "heldout" / "typed"
    embeddings: np.ndarray  # (num_layers, n, 2 * dim)

    @property
    def texts(self) -> list[str]:
        """Each occurrence's sentence, tokens joined by spaces."""
        return [" ".join(s) for s in self.sentences]


def find_occurrences(word: str, frame: pd.DataFrame) -> pd.DataFrame:
    """Rows of a corpus frame where ``word`` occurs: labelled target rows at their ``target_index``, and
    other sentences at the word's first occurrence (sense ``"unlabelled"``). Case-insensitive.

    Args:
        word: the word to find.
        frame: a corpus with ``load_polysemy()``'s columns (``word, sense, tokens, target_index, split``).

    Returns:
        A frame with columns ``tokens, position, sense, split``.
    """
    word = word.lower()
    rows = []
    for row in frame.itertuples(index=False):
        if row.word == word and row.target_index >= 0:
            rows.append((row.tokens, int(row.target_index), row.sense, row.split))
            continue
        lowered = [t.lower() for t in row.tokens]
        if word in lowered:
            rows.append((row.tokens, lowered.index(word), UNLABELLED, row.split))
    return pd.DataFrame(rows, columns=["tokens", "position", "sense", "split"])


def word_occurrences(model, word: str, frame: pd.DataFrame, typed_sentences: Sequence[str] = (),
                     max_occurrences: int | None = None) -> WordOccurrences:
    """Embed every occurrence of ``word`` in ``frame`` plus user-typed sentences.

    Args:
        model: a trained ``BiLanguageModel``.
        word: the word to follow (case-insensitive).
        frame: the corpus (``load_polysemy()`` columns).
        typed_sentences: extra raw sentences; each must contain ``word``. Defaults to none.
        max_occurrences: int, keep at most this many corpus occurrences (evenly spaced), typed ones always kept.
            Defaults to None (all).

    Returns:
        The occurrences, corpus ones first (in corpus order), with ``embeddings`` `(num_layers, n, 2 * dim)`.
        A word a word-level model does not know is embedded as ``<unk>``.

    Raises:
        ValueError: an empty ``word``, a typed sentence without it (named), or no occurrence at all.
    """
    if not word or not word.strip():
        raise ValueError("choose a word")
    found = find_occurrences(word, frame)
    if max_occurrences is not None and len(found) > max_occurrences:
        found = found.iloc[np.linspace(0, len(found) - 1, max_occurrences).round().astype(int)]
    sentences, positions = list(found["tokens"]), list(found["position"])
    senses, splits = list(found["sense"]), list(found["split"])
    for text in typed_sentences:
        tokens = tokenize(text)
        lowered = [t.lower() for t in tokens]
        if word.lower() not in lowered:
            raise ValueError(f"the typed sentence {text!r} does not contain the word {word!r}")
        sentences.append(tokens)
        positions.append(lowered.index(word.lower()))
        senses.append(TYPED)
        splits.append(TYPED)
    if not sentences:
        raise ValueError(f"the word {word!r} does not occur in the corpus; type a sentence that contains it")
    embeddings = layer_embeddings(model, sentences, positions, allow_unknown=True)  # the explorer says so
    return WordOccurrences(word.lower(), sentences, positions, senses, splits, embeddings)


def sense_separation(occurrences: WordOccurrences) -> np.ndarray:
    """Per-layer nearest-sense-centroid accuracy on the held-out occurrences, centroids from training ones.

    Only labelled occurrences count (not ``"unlabelled"`` or ``"typed"``); see ``nearest_centroid_accuracy``.

    Returns:
        `(num_layers,)` accuracies, or an array of NaN when the word has no labelled held-out occurrences or
        fewer than two senses among its training ones.
    """
    senses, splits = np.asarray(occurrences.senses), np.asarray(occurrences.splits)
    labelled = (senses != UNLABELLED) & (senses != TYPED)
    train, test = labelled & (splits == "train"), labelled & (splits == "heldout")
    num_layers = occurrences.embeddings.shape[0]
    if not test.any() or len(set(senses[train])) < 2:
        return np.full(num_layers, np.nan)
    return nearest_centroid_accuracy(
        occurrences.embeddings[:, train], senses[train], occurrences.embeddings[:, test], senses[test]
    )
