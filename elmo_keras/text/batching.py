"""Padded model inputs for tokenized sentences, with the sentence boundaries ``<S>`` … ``</S>`` added.

A ``BiLM`` (and the language model around it) reads ``<S> tokens </S>``: these functions add the boundaries,
as their names say. ``batch_to_ids`` (``text.char_ids``, AllenNLP's name and behaviour) adds none, because the
``Elmo`` layer adds them itself.

``token_input`` names what a token enters a model as: ``"word"`` (an id in a ``Vocabulary``, read by a
``WordEmbedding``) or ``"char"`` (ELMo's 50 character ids, read by a ``CharCNN``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from elmo_keras.text.char_ids import BOS_TOKEN, EOS_TOKEN, MAX_CHARS_PER_TOKEN, batch_to_ids
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID, PAD_ID, Vocabulary

TOKEN_INPUTS = ("word", "char")
# (sentences, length) -> a model's input for them, boundaries added, padded to at least `length` steps
SentenceIds = Callable[[Sequence[Sequence[str]], "int | None"], np.ndarray]


def _length(sentences: Sequence[Sequence[str]], length: int | None) -> int:
    longest = max(len(s) for s in sentences) + 2
    return longest if length is None else max(int(length), longest)


def word_ids_with_boundaries(sentences: Sequence[Sequence[str]], vocabulary: Vocabulary,
                             length: int | None = None) -> np.ndarray:
    """``<S> tokens </S>`` word ids (unknown words → ``<unk>``), right-padded with ``PAD_ID``:
    int32 `(batch, max(length, longest + 2))`.

    Args:
        sentences: a non-empty list of token lists.
        vocabulary: maps tokens to ids.
        length: int, pad to at least this many steps. Defaults to None (the longest sentence + 2).
    """
    ids = np.full((len(sentences), _length(sentences, length)), PAD_ID, dtype=np.int32)
    for i, sentence in enumerate(sentences):
        ids[i, : len(sentence) + 2] = [BOS_ID, *vocabulary.encode(sentence), EOS_ID]
    return ids


def char_ids_with_boundaries(sentences: Sequence[Sequence[str]], length: int | None = None) -> np.ndarray:
    """``<S> tokens </S>`` as ELMo character ids, zero-padded: int32 `(batch, max(length, longest + 2), 50)`.

    Args:
        sentences: a non-empty list of non-empty token lists.
        length: int, pad to at least this many steps. Defaults to None (the longest sentence + 2).

    Raises:
        TypeError, ValueError: as ``batch_to_ids`` (a str instead of a token list, an empty sentence or token).
    """
    ids = batch_to_ids([[BOS_TOKEN, *sentence, EOS_TOKEN] for sentence in sentences])
    padded = np.zeros((len(sentences), _length(sentences, length), MAX_CHARS_PER_TOKEN), dtype=np.int32)
    padded[:, : ids.shape[1]] = ids
    return padded


def lm_inputs_and_targets(sentences: Sequence[Sequence[str]], vocabulary: Vocabulary, token_input: str,
                          length: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A language model's inputs and word-id targets for ``sentences``, boundaries added.

    Args:
        sentences: token lists.
        vocabulary: the word vocabulary (targets are always word ids).
        token_input: ``"word"`` or ``"char"`` (see the module docstring).
        length: int, pad to at least this many steps. Defaults to None (the longest sentence + 2).

    Returns:
        ``(inputs, targets)``, int32: inputs are word ids `(batch, T)` (``"word"``, the same array as the
        targets) or character ids `(batch, T, 50)` (``"char"``); targets are word ids `(batch, T)`.

    Raises:
        ValueError: an unknown ``token_input``.
    """
    if token_input not in TOKEN_INPUTS:
        raise ValueError(f"token_input must be one of {TOKEN_INPUTS}, received {token_input!r}")
    targets = word_ids_with_boundaries(sentences, vocabulary, length)
    if token_input == "word":
        return targets, targets
    return char_ids_with_boundaries(sentences, targets.shape[1]), targets


class WordIds:
    """``word_ids_with_boundaries`` bound to a vocabulary: ``(sentences, length=None) -> int32 (batch, T)``.

    Args:
        vocabulary: the ``Vocabulary`` of a word-level model.
    """

    def __init__(self, vocabulary: Vocabulary):
        self.vocabulary = vocabulary

    def __call__(self, sentences: Sequence[Sequence[str]], length: int | None = None) -> np.ndarray:
        return word_ids_with_boundaries(sentences, self.vocabulary, length)


def sentence_ids(token_input: str, vocabulary: Vocabulary | None = None) -> SentenceIds:
    """How sentences become a model's input for ``token_input``: ``char_ids_with_boundaries`` for ``"char"``,
    ``WordIds(vocabulary)`` for ``"word"`` (which needs the vocabulary).

    Raises:
        ValueError: an unknown ``token_input``, or ``"word"`` without a vocabulary.
    """
    if token_input not in TOKEN_INPUTS:
        raise ValueError(f"token_input must be one of {TOKEN_INPUTS}, received {token_input!r}")
    if token_input == "char":
        return char_ids_with_boundaries
    if vocabulary is None:
        raise ValueError("a word-level model needs its vocabulary to turn words into ids")
    return WordIds(vocabulary)
