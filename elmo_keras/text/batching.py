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

from elmo_keras.text.char_ids import (
    BEGIN_OF_SENTENCE_ROW,
    END_OF_SENTENCE_ROW,
    MAX_CHARS_PER_TOKEN,
    positioned_row,
)
from elmo_keras.text.sentences import check_sentences
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
        sentences: a non-empty list of token lists (an empty one becomes ``<S> </S>``).
        length: int, pad to at least this many steps. Defaults to None (the longest sentence + 2).

    Raises:
        TypeError, ValueError: as ``check_token_lists(sentences, "char")`` (a str instead of a token list, a token
            that is not a str, an empty token or one of lone surrogates only), naming the sentence and the token as
            given (``"sentence 0, token 1"``: the ``<S>`` added is not counted); no sentences.
    """
    check_sentences(sentences, empty_sentences=True)
    ids = np.zeros((len(sentences), _length(sentences, length), MAX_CHARS_PER_TOKEN), dtype=np.int32)
    for i, sentence in enumerate(sentences):
        ids[i, 0] = BEGIN_OF_SENTENCE_ROW
        for j, token in enumerate(sentence):
            ids[i, j + 1] = positioned_row(token, i, j)
        ids[i, len(sentence) + 1] = END_OF_SENTENCE_ROW
    return ids


def check_token_lists(sentences: Sequence[Sequence[str]], token_input: str | None = None,
                      first: int = 0) -> list[list[str]]:
    """``text.sentences.check_sentences`` for a model input: empty sentences and an empty batch accepted, str
    sentences refused; each sentence and token named by its position as given (``"sentence 1, token 0"``).

    Args:
        sentences: a list of token lists (each a sequence or NumPy array of str; empty ones are accepted).
        token_input: ``"char"``: also refuse the tokens ``batch_to_ids`` refuses (empty, or lone surrogates only);
            ``"word"`` or None: only the types. Defaults to None.
        first: int, the caller's index of ``sentences[0]`` (a batch cut from a longer list): errors name
            ``first + i``. Defaults to 0.

    Returns:
        The sentences as new token lists.

    Raises:
        TypeError: ``sentences`` or one of them is a str or not a sequence, or a token is not a str (``"sentence
            1, token 0: a token must be a str, received int: 3; ..."``).
        ValueError: (``"char"``) an empty token or one of lone surrogates only.
    """
    return check_sentences(sentences, empty_sentences=True, empty_batch=True, first=first,
                           token_check=positioned_row if token_input == "char" else None)


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
