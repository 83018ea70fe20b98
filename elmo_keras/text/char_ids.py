"""ELMo character ids, identical to the original bilm-tf / AllenNLP scheme.

Each token becomes a row of ``MAX_CHARS_PER_TOKEN`` (50) ids:

    [BEGIN_OF_WORD, byte_1, ..., byte_n, END_OF_WORD, PADDING_CHAR, ..., PADDING_CHAR]

where the bytes are the token's UTF-8 encoding (characters that cannot be encoded, such as lone
surrogates, are dropped) cut to ``MAX_BYTES_PER_TOKEN`` (48). The sentence-boundary tokens ``<S>`` and
``</S>`` get ``[BEGIN_OF_WORD, BEGIN_OF_SENTENCE | END_OF_SENTENCE, END_OF_WORD, PADDING_CHAR, ...]``.
Every id is the original id + 1, so that an all-zero row means "no token" (padding):

    ====================  ===========  ==========
    character             original id  id here
    ====================  ===========  ==========
    byte v (0..255)       v            v + 1
    begin of sentence     256          257
    end of sentence       257          258
    begin of word         258          259
    end of word           259          260
    padding character     260          261
    ====================  ===========  ==========
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from elmo_keras.text.sentences import check_sentences

MAX_CHARS_PER_TOKEN = 50
MAX_BYTES_PER_TOKEN = MAX_CHARS_PER_TOKEN - 2
BOS_TOKEN = "<S>"
EOS_TOKEN = "</S>"

_ORIGINAL_BOS_CHAR = 256
_ORIGINAL_EOS_CHAR = 257
_ORIGINAL_BOW_CHAR = 258
_ORIGINAL_EOW_CHAR = 259
_ORIGINAL_PADDING_CHAR = 260
KNOWN_ROWS = 16384  # tokens whose rows batch_to_ids keeps (about 5 MB): a corpus' frequent words are encoded once
MASK_SHIFT = 1  # every id is shifted by one so that 0 can mean "no character / no token"

BEGIN_OF_SENTENCE_CHAR = _ORIGINAL_BOS_CHAR + MASK_SHIFT  # 257
END_OF_SENTENCE_CHAR = _ORIGINAL_EOS_CHAR + MASK_SHIFT  # 258
BEGIN_OF_WORD_CHAR = _ORIGINAL_BOW_CHAR + MASK_SHIFT  # 259
END_OF_WORD_CHAR = _ORIGINAL_EOW_CHAR + MASK_SHIFT  # 260
PADDING_CHAR = _ORIGINAL_PADDING_CHAR + MASK_SHIFT  # 261
NUM_CHAR_IDS = PADDING_CHAR + 1  # 262 rows in a character embedding table, row 0 = "no character"


def _boundary_row(boundary_char: int) -> np.ndarray:
    row = np.full(MAX_CHARS_PER_TOKEN, PADDING_CHAR, dtype=np.int32)
    row[:3] = (BEGIN_OF_WORD_CHAR, boundary_char, END_OF_WORD_CHAR)
    return row


BEGIN_OF_SENTENCE_ROW = _boundary_row(BEGIN_OF_SENTENCE_CHAR)
END_OF_SENTENCE_ROW = _boundary_row(END_OF_SENTENCE_CHAR)


def token_to_char_ids(token: str) -> np.ndarray:
    """Encode one token as an int32 row `(MAX_CHARS_PER_TOKEN,)` of ELMo character ids (see the module docstring).

    ``"<S>"`` and ``"</S>"`` give the sentence-boundary rows; a token longer than ``MAX_BYTES_PER_TOKEN`` UTF-8
    bytes is cut.

    Raises:
        TypeError: if ``token`` is not a ``str``.
        ValueError: if the token is empty, or has no UTF-8-encodable character (only lone surrogates).
    """
    if not isinstance(token, str):
        raise TypeError(f"a token must be a str, received {type(token).__name__}: {token!r:.80}")
    if token == BOS_TOKEN:
        return BEGIN_OF_SENTENCE_ROW.copy()
    if token == EOS_TOKEN:
        return END_OF_SENTENCE_ROW.copy()
    encoded = token.encode("utf-8", "ignore")[:MAX_BYTES_PER_TOKEN]
    if not encoded:
        reason = "is empty" if token == "" else f"has no UTF-8-encodable character ({token!r:.40})"
        raise ValueError(
            f"token {reason}; remove empty tokens before encoding (split on whitespace with str.split(), "
            "not str.split(' '))"
        )
    row = np.full(MAX_CHARS_PER_TOKEN, PADDING_CHAR, dtype=np.int32)
    row[0] = BEGIN_OF_WORD_CHAR
    row[1 : len(encoded) + 1] = np.frombuffer(encoded, dtype=np.uint8).astype(np.int32) + MASK_SHIFT
    row[len(encoded) + 1] = END_OF_WORD_CHAR
    return row


@functools.lru_cache(maxsize=KNOWN_ROWS)
def _known_row(token: str) -> np.ndarray:
    """``token_to_char_ids(token)``, kept for the ``KNOWN_ROWS`` tokens met most recently (read-only)."""
    row = token_to_char_ids(token)
    row.flags.writeable = False
    return row


def batch_to_ids(sentences: Sequence[Sequence[str]]) -> np.ndarray:
    """Convert tokenized sentences to ELMo character ids, AllenNLP's ``batch_to_ids`` call shape.

    Args:
        sentences: ``batch`` non-empty lists of str tokens (no boundary tokens needed: the ``Elmo`` layer adds
            ``<S>``/``</S>``).

    Returns:
        int32 array ``(batch, max_tokens, MAX_CHARS_PER_TOKEN)``; rows past a sentence's end are all zero.

    Raises:
        TypeError: a sentence is a plain string or a token is not a string.
        ValueError: an empty batch, an empty sentence, or an empty/unencodable token (the message names
            the sentence and token position).
    """
    check_sentences(sentences)  # types and empty sentences; the tokens as they are encoded
    max_tokens = max(len(sentence) for sentence in sentences)
    ids = np.zeros((len(sentences), max_tokens, MAX_CHARS_PER_TOKEN), dtype=np.int32)
    for i, sentence in enumerate(sentences):
        for j, token in enumerate(sentence):
            ids[i, j] = positioned_row(token, i, j)
    return ids


def positioned_row(token, sentence: int, position: int) -> np.ndarray:
    """``token_to_char_ids(token)`` (kept for the ``KNOWN_ROWS`` most recent ``str`` tokens, read-only), its errors
    naming the token as ``"sentence {sentence}, token {position}: ..."``: the caller's positions, 0-based.

    Raises:
        TypeError, ValueError: as ``token_to_char_ids``.
    """
    try:
        return _known_row(token) if isinstance(token, str) else token_to_char_ids(token)
    except (TypeError, ValueError) as error:
        raise type(error)(f"sentence {sentence}, token {position}: {error}") from None


def trim_character_padding(ids: np.ndarray, widest_filter: int) -> np.ndarray:
    """``ids`` cut to the character positions a character CNN with filters up to ``widest_filter`` wide needs.

    A convolution window that lies wholly in a token's padding characters gives the same response for every token,
    so the max over a token's windows is the max over its windows that touch a real character and one all-padding
    window. Keeping the longest token's positions (begin-of-word to end-of-word) plus ``widest_filter`` padding
    positions keeps all of those windows for every token of the batch, so a ``CharCNN`` gives the same vectors on the
    cut ids as on all of them (up to the float rounding of a differently shaped convolution), and convolves a third to
    a half of the positions for English words. Where some token is too long to leave an all-padding window of the
    widest filter, nothing is cut.

    Args:
        ids: int `(..., MAX_CHARS_PER_TOKEN)` character ids (``batch_to_ids``; all-zero rows are padding tokens).
        widest_filter: int ≥ 1, the widest convolution of the CNN that reads them (``CharCNN.widest_filter``).

    Returns:
        int `(..., width)`, a view of ``ids``: ``width`` = the longest token's length + ``widest_filter`` where that is
        less than the ids' last axis, else all of it.
    """
    characters = ids.shape[-1]
    real = (ids != PADDING_CHAR) & (ids != 0)  # (..., C): begin-of-word, bytes, end-of-word
    longest = int(np.max(np.where(real, np.arange(1, characters + 1), 0), initial=0))  # last real position + 1
    width = longest + int(widest_filter)
    return ids[..., :width] if width < characters else ids
