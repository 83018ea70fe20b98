"""Sources and targets (word lists or strings) → the padded int32 arrays a ``Seq2Seq`` reads and predicts."""

from __future__ import annotations

import numpy as np

from elmo_keras.text.sentences import as_words
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID, PAD_ID, Vocabulary


def encode_sources(sources, vocabulary: Vocabulary, length: int | None = None) -> np.ndarray:
    """Word lists (or strings, see ``as_words``) → int32 `(n, length or longest)`, right-padded with ``PAD_ID``.

    Args:
        sources: word lists or strings.
        vocabulary: maps words to ids (unknown words → ``UNK_ID``).
        length: int, the width; longer sources are cut. Defaults to None (the longest source's length).

    Raises:
        ValueError: ``sources`` is empty.
    """
    sources = [as_words(s) for s in sources]
    if not sources:
        raise ValueError("no sources given: pass a list of sources (strings or word lists)")
    width = max(len(s) for s in sources) if length is None else length
    ids = np.full((len(sources), width), PAD_ID, dtype=np.int32)
    for i, words in enumerate(sources):
        ids[i, : len(words)] = vocabulary.encode(words)[:width]
    return ids


def encode_pairs(pairs, vocabulary: Vocabulary) -> tuple[dict, np.ndarray]:
    """``[(source words, target words)]`` → ``({"source", "target_in"}, target_out)``, all int32 and padded.

    ``target_in = <bos> y_1 … y_n``, ``target_out = y_1 … y_n <eos>`` (teacher forcing). Strings are split
    into words by ``as_words``.

    Args:
        pairs: a non-empty list of ``(source, target)``, each a word list or a string.
        vocabulary: maps words to ids (unknown words → ``UNK_ID``).

    Returns:
        ``({"source": (n, source_len), "target_in": (n, target_len)}, target_out (n, target_len))``, int32,
        ``target_len`` = the longest target + 1.
    """
    targets = [vocabulary.encode(as_words(target)) for _, target in pairs]
    width = max(len(t) for t in targets) + 1
    target_in = np.full((len(pairs), width), PAD_ID, dtype=np.int32)
    target_out = np.full((len(pairs), width), PAD_ID, dtype=np.int32)
    for i, ids in enumerate(targets):
        target_in[i, : len(ids) + 1] = [BOS_ID, *ids]
        target_out[i, : len(ids) + 1] = [*ids, EOS_ID]
    return {"source": encode_sources([s for s, _ in pairs], vocabulary), "target_in": target_in}, target_out
