"""Word vocabulary with the special tokens every model in elmo_keras relies on.

Ids are fixed for the special tokens: ``PAD_ID = 0`` (``<pad>``), ``UNK_ID = 1`` (``<unk>``),
``BOS_ID = 2`` (``<S>``), ``EOS_ID = 3`` (``</S>``). Corpus words follow, most frequent first, ties broken
alphabetically, so the same corpus always gives the same ids.
"""

from __future__ import annotations

import heapq
import json
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from elmo_keras.argument_checks import check_int
from elmo_keras.text.char_ids import BOS_TOKEN, EOS_TOKEN
from elmo_keras.text.tokenizer import tokenize

PAD_TOKEN = "<pad>"
UNK_TOKEN = "<unk>"
SPECIAL_TOKENS = (PAD_TOKEN, UNK_TOKEN, BOS_TOKEN, EOS_TOKEN)
PAD_ID, UNK_ID, BOS_ID, EOS_ID = range(len(SPECIAL_TOKENS))
_FORMAT = "elmo_keras.Vocabulary/1"


def read_json_file(path: str | os.PathLike, what: str):
    """The JSON value in ``path``.

    Raises:
        FileNotFoundError: ``"{what} file not found: {path}"``.
        ValueError: not UTF-8 JSON, or nested too deeply to parse (``"{path} is not a JSON {what} file: …"``).
    """
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        raise FileNotFoundError(f"{what} file not found: {path}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path} is not a JSON {what} file: {error}") from None
    except RecursionError:  # e.g. '[' * 100000: Python's parser recurses once per level
        raise ValueError(f"{path} is not a JSON {what} file: nested too deeply to read") from None


def check_vocabulary_limits(min_count, max_size) -> tuple[int, int | None]:
    """``(min_count, max_size)`` as ints, checked.

    Raises:
        ValueError: ``min_count`` is not a positive int, or ``max_size`` < 0.
    """
    min_count = check_int(min_count, "min_count")
    if max_size is not None and int(max_size) < 0:
        raise ValueError(f"max_size must be >= 0 or None, received {max_size}")
    return min_count, None if max_size is None else int(max_size)


class Vocabulary:
    """Bidirectional token ↔ id map.

    Args:
        tokens: corpus tokens in id order (special tokens are prepended automatically and must not be
            repeated here). Defaults to ``()`` (special tokens only).
        lowercase: bool, if True, lookups lowercase the token first (the word-level toy models use this); the
            tokens must then be lowercase. Defaults to False.

    Attributes:
        source: str, the file the vocabulary was read from (``load``, ``read_bilm_vocabulary``), which messages
            about it name; None otherwise. Not part of equality.

    Raises:
        ValueError: an empty or non-str token, a duplicate, or a token with capitals in a lowercase vocabulary.

    Example:
        >>> vocab = Vocabulary.from_corpus(["The bank is closed .", "The river bank ."])
        >>> vocab.token_to_id("bank"), vocab.id_to_token(vocab.token_to_id("bank"))  # after 4 specials, ".", "The"
        (6, 'bank')
        >>> vocab.token_to_id("zebra") == UNK_ID
        True
    """

    def __init__(self, tokens: Sequence[str] = (), lowercase: bool = False):
        self.lowercase = bool(lowercase)
        self.source: str | None = None
        self._id_to_token: list[str] = list(SPECIAL_TOKENS)
        self._token_to_id: dict[str, int] = {token: i for i, token in enumerate(SPECIAL_TOKENS)}
        for token in tokens:
            if not isinstance(token, str) or token == "":
                raise ValueError(f"vocabulary tokens must be non-empty str, received {token!r}")
            if self.lowercase and token != token.lower():
                raise ValueError(f"lowercase vocabulary received a token with capitals: {token!r}")
            if token in self._token_to_id:
                raise ValueError(f"duplicate vocabulary token {token!r} (special tokens are added automatically)")
            self._token_to_id[token] = len(self._id_to_token)
            self._id_to_token.append(token)

    @classmethod
    def from_corpus(
        cls,
        sentences: Iterable[str | Sequence[str]],
        min_count: int = 1,
        lowercase: bool = False,
        max_size: int | None = None,
    ) -> "Vocabulary":
        """Build a vocabulary from sentences (strings are tokenized with ``tokenize``): their tokens counted, then
        ``from_counts``.

        Args:
            sentences: raw strings or already tokenized lists of tokens.
            min_count: int ≥ 1, keep tokens seen at least this many times; rarer ones map to ``<unk>``.
                Defaults to 1.
            lowercase: bool, lowercase tokens before counting and lookup. Defaults to False.
            max_size: int, keep at most this many corpus tokens (most frequent first). Defaults to None (all).

        Raises:
            ValueError: ``min_count`` is not a positive int, or ``max_size`` < 0.
        """
        check_vocabulary_limits(min_count, max_size)  # before reading the sentences (which may be a long stream)
        counts: Counter[str] = Counter()
        for sentence in sentences:
            tokens = tokenize(sentence) if isinstance(sentence, str) else sentence
            counts.update(tokens)
        return cls.from_counts(counts, min_count=min_count, lowercase=lowercase, max_size=max_size)

    @classmethod
    def from_counts(
        cls,
        counts: Mapping[str, int],
        min_count: int = 1,
        lowercase: bool = False,
        max_size: int | None = None,
    ) -> "Vocabulary":
        """Build a vocabulary from token counts: special tokens left out, tokens seen at least ``min_count`` times
        kept, most frequent first, ties broken alphabetically (by code point), the first ``max_size`` kept.

        Args:
            counts: ``{token: count}``. With ``lowercase``, the counts of tokens that differ only in case are added
                together.
            min_count, lowercase, max_size: as ``from_corpus``.

        Raises:
            ValueError: ``min_count`` is not a positive int, or ``max_size`` < 0.
        """
        min_count, max_size = check_vocabulary_limits(min_count, max_size)
        if lowercase:
            folded: Counter[str] = Counter()
            for token, count in counts.items():
                folded[token.lower()] += count
            counts = folded
        kept = [(-count, token) for token, count in counts.items()
                if count >= min_count and token not in SPECIAL_TOKENS]
        kept = heapq.nsmallest(max_size, kept) if max_size is not None else sorted(kept)
        return cls([token for _, token in kept], lowercase=lowercase)

    def __len__(self) -> int:
        return len(self._id_to_token)

    def __contains__(self, token: object) -> bool:
        return isinstance(token, str) and self._normalize(token) in self._token_to_id

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Vocabulary)
            and self.lowercase == other.lowercase
            and self._id_to_token == other._id_to_token
        )

    def __repr__(self) -> str:
        return f"Vocabulary(size={len(self)}, lowercase={self.lowercase})"

    @property
    def tokens(self) -> list[str]:
        """All tokens in id order, special tokens first."""
        return list(self._id_to_token)

    def _normalize(self, token: str) -> str:
        return token.lower() if self.lowercase and token not in SPECIAL_TOKENS else token

    def token_to_id(self, token: str) -> int:
        """The id of ``token``, or ``UNK_ID`` if it is not in the vocabulary.

        Raises:
            TypeError: ``token`` is not a str.
        """
        if not isinstance(token, str):
            raise TypeError(f"token must be a str, received {type(token).__name__}: {token!r:.60}")
        return self._token_to_id.get(self._normalize(token), UNK_ID)

    def id_to_token(self, token_id: int) -> str:
        """The token of ``token_id``; raises ``IndexError`` outside ``[0, len(self))``."""
        index = int(token_id)
        if not 0 <= index < len(self._id_to_token):
            raise IndexError(f"token id {token_id} is outside the vocabulary [0, {len(self)})")
        return self._id_to_token[index]

    def encode(self, tokens: Sequence[str]) -> list[int]:
        """Ids of ``tokens`` (unknown tokens → ``UNK_ID``); ``ids_to_tokens`` turns them back."""
        return [self.token_to_id(token) for token in tokens]

    def ids_to_tokens(self, ids: Iterable[int]) -> list[str]:
        """Tokens of ``ids`` (the inverse of ``encode`` for known tokens)."""
        return [self.id_to_token(i) for i in ids]

    def to_dict(self) -> dict:
        """The JSON form ``save`` writes: ``{"format", "lowercase", "tokens"}`` (special tokens left out)."""
        return {"format": _FORMAT, "lowercase": self.lowercase, "tokens": self._id_to_token[len(SPECIAL_TOKENS) :]}

    @classmethod
    def from_dict(cls, data: dict, source: str = "<dict>") -> "Vocabulary":
        """The vocabulary ``to_dict`` describes; ``source`` names it in errors.

        Raises:
            ValueError: ``data`` is not an elmo_keras vocabulary, or its tokens are invalid (see the class).
        """
        if not isinstance(data, dict) or data.get("format") != _FORMAT or not isinstance(data.get("tokens"), list):
            raise ValueError(f"{source} is not an elmo_keras vocabulary (expected format {_FORMAT!r})")
        return cls(data["tokens"], lowercase=bool(data.get("lowercase", False)))

    def save(self, path: str | os.PathLike) -> None:
        """Write the vocabulary as UTF-8 JSON."""
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(self.to_dict(), handle, ensure_ascii=False, indent=0)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Vocabulary":
        """Read a vocabulary written by ``save``; errors name the file."""
        vocabulary = cls.from_dict(read_json_file(path, "vocabulary"), source=str(path))
        vocabulary.source = str(path)
        return vocabulary
