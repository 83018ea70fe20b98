"""Padded model inputs for tokenized sentences, with the sentence boundaries ``<S>`` … ``</S>`` added."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from elmo_keras.text.char_ids import BOS_TOKEN, EOS_TOKEN, MAX_CHARS_PER_TOKEN, batch_to_ids
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID, PAD_ID, Vocabulary


def _length(sentences: Sequence[Sequence[str]], length: int | None) -> int:
    longest = max(len(s) for s in sentences) + 2
    return longest if length is None else max(int(length), longest)


def encode_word_ids(sentences: Sequence[Sequence[str]], vocabulary: Vocabulary,
                    length: int | None = None) -> np.ndarray:
    """``<S> tokens </S>`` word ids (unknown words → ``<unk>``), right-padded with ``PAD_ID``:
    int32 `(batch, max(length, longest + 2))`."""
    ids = np.full((len(sentences), _length(sentences, length)), PAD_ID, dtype=np.int32)
    for i, sentence in enumerate(sentences):
        ids[i, : len(sentence) + 2] = [BOS_ID, *vocabulary.encode(sentence), EOS_ID]
    return ids


def encode_characters(sentences: Sequence[Sequence[str]], length: int | None = None) -> np.ndarray:
    """``<S> tokens </S>`` as ELMo character ids, zero-padded: int32 `(batch, max(length, longest + 2), 50)`."""
    ids = batch_to_ids([[BOS_TOKEN, *sentence, EOS_TOKEN] for sentence in sentences])
    padded = np.zeros((len(sentences), _length(sentences, length), MAX_CHARS_PER_TOKEN), dtype=np.int32)
    padded[:, : ids.shape[1]] = ids
    return padded
