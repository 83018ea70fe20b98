"""Sentences as token lists: the one check of what every training, embedding, tagging and classifying entry point
accepts (``check_sentences``, one sentence: ``sentence_tokens``), with errors that name the sentence and the token
as the caller counts them and say how to fix them; and the one rule that bounds a training sentence's length
(``sentence_windows``), shared by every training path."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Literal

import numpy as np

from elmo_keras.limits import check_length
from elmo_keras.text.tokenizer import tokenize

# Tokens per training sentence (without <S>/</S>): a longer one is split (``sentence_windows``), so a batch is at
# most batch_size × (DEFAULT_MAX_SENTENCE_TOKENS + 2) steps whatever the corpus holds. Far above ordinary sentences
# (a few dozen tokens): it splits lines that are not sentences; bilm-tf trained on windows of 20 steps.
DEFAULT_MAX_SENTENCE_TOKENS = 200


class SentenceTypeError(TypeError, ValueError):
    """A batch, sentence or token of the wrong type. A ``TypeError``, and a ``ValueError`` for the callers (the
    taggers) that report every bad input as one, as NumPy's ``AxisError`` is both a ``ValueError`` and an
    ``IndexError``."""


Strings = Literal["refuse", "tokenize", "split"]
# what a str where a token list belongs becomes: an error, ``tokenize(text)``, or ``text.split()`` (white space)
_SPLIT = {"tokenize": tokenize, "split": str.split}
TokenCheck = Callable[[str, int, int], object]  # (token, sentence index, token index): raises naming both


def check_sentences(sentences, name: str = "sentences", *, where: str = "sentence {}", strings: Strings = "refuse",
                    empty_sentences: bool = False, empty_batch: bool = False, max_tokens: int | None = None,
                    length_fix: str = "split or shorten it", token_check: TokenCheck | None = None,
                    first: int = 0) -> list[list[str]]:
    """``sentences`` as new lists of str tokens, or one error naming the sentence and the token, before any work.

    Args:
        sentences: a list (or other iterable, not a str or a dict) of sentences, each a token list (a sequence or
            NumPy array of str) or, unless ``strings="refuse"``, a str.
        name: str, how messages name ``sentences`` (``"corpus"``). Defaults to ``"sentences"``.
        where: str, how messages name sentence ``i``: formatted with ``first + i`` (``"sentence {}"``,
            ``"sentences[{}]"``, ``"corpus sentence {}"``). Defaults to ``"sentence {}"``.
        strings: what a str sentence becomes: ``"refuse"`` (an error saying to tokenize it), ``"tokenize"``
            (``tokenize``) or ``"split"`` (``str.split()``). Defaults to ``"refuse"``.
        empty_sentences: bool, accept a sentence of no tokens. Defaults to False.
        empty_batch: bool, accept no sentences at all. Defaults to False.
        max_tokens: int, the most tokens of a sentence (``limits.check_length``, with ``length_fix``). Defaults to
            None (no limit).
        length_fix: str, how to get under ``max_tokens``. Defaults to ``"split or shorten it"``.
        token_check: ``token_check(token, i, j)``, called on every str token, raising naming sentence ``i`` and
            token ``j`` (``text.char_ids.positioned_row`` for a character-level model). Defaults to None.
        first: int, the caller's index of the first sentence (a batch cut from a longer list). Defaults to 0.

    Returns:
        One new token list per sentence.

    Raises:
        SentenceTypeError: ``sentences`` is a str or not a list, a sentence is not a token list (or a refused str),
            or a token is not a str (``"sentence 1, token 0: a token must be a str, received int: 3; ..."``).
        ValueError: no sentences, an empty or over-long sentence, or what ``token_check`` refuses.
    """
    accepted = "token lists" if strings == "refuse" else "sentences (token lists or strings)"
    if isinstance(sentences, (str, bytes)):
        fix = ("split each text into tokens first, e.g. [elmo_keras.tokenize(text) for text in texts]"
               if strings == "refuse" else f"to pass one sentence, wrap it in a list: [{sentences!r:.60}]")
        raise SentenceTypeError(f"{name} must be a list of {accepted}, received the str {sentences!r:.60}; {fix}")
    if isinstance(sentences, Mapping) or not isinstance(sentences, Iterable):
        raise SentenceTypeError(f"{name} must be a list of {accepted}, received {type(sentences).__name__}")
    rows = [sentence_tokens(sentence, where.format(index), strings=strings, empty=empty_sentences,
                            max_tokens=max_tokens, length_fix=length_fix, token_check=token_check, index=index)
            for index, sentence in enumerate(sentences, first)]
    if not rows and not empty_batch:
        raise ValueError(f"{name} has no sentences: pass at least one")
    return rows


def sentence_tokens(sentence, what: str = "sentence", *, strings: Strings = "tokenize", empty: bool = False,
                    max_tokens: int | None = None, length_fix: str = "split or shorten it",
                    token_check: TokenCheck | None = None, index: int = 0) -> list[str]:
    """One sentence as a new list of str tokens (``check_sentences`` for one sentence, named ``what``:
    ``"corpus sentence 3"``, ``"pairs[1] source"``); a str is split by ``tokenize`` unless ``strings`` says
    otherwise. ``index`` is the sentence's index passed to ``token_check``.

    Raises:
        SentenceTypeError, ValueError: as ``check_sentences``.
    """
    if isinstance(sentence, str) and strings != "refuse":
        tokens = _SPLIT[strings](sentence)
    elif isinstance(sentence, str):
        raise SentenceTypeError(f"{what} must be a list of tokens, received str ({sentence!r:.60}); tokenize it "
                                "first, e.g. elmo_keras.tokenize(text)")
    elif _is_token_list(sentence, any_iterable=strings != "refuse"):
        tokens = list(sentence)
    else:
        expected = "a list of tokens" if strings == "refuse" else "a str or a list of str tokens"
        raise SentenceTypeError(f"{what} must be {expected}, received {type(sentence).__name__} ({sentence!r:.60})")
    if not tokens and not empty:
        raise ValueError(f"{what} is empty: every sentence needs at least one token")
    if max_tokens is not None:
        check_length(what, len(tokens), max_tokens, fix=length_fix)
    for position, token in enumerate(tokens):
        if not isinstance(token, str):
            raise SentenceTypeError(f"{what}, token {position}: a token must be a str, received "
                                    f"{type(token).__name__}: {token!r:.40}; convert tokens first, e.g. "
                                    "[str(token) for token in sentence]")
        if token_check is not None:
            token_check(token, index, position)
    return tokens


def _is_token_list(sentence, any_iterable: bool) -> bool:
    """A list, tuple or NumPy array (not bytes); with ``any_iterable`` (the entry points that accept strings and
    keep only the copy) any other iterable but a dict too, a generator for instance."""
    if isinstance(sentence, (bytes, bytearray, Mapping)):
        return False
    return isinstance(sentence, (Sequence, np.ndarray)) or (any_iterable and isinstance(sentence, Iterable))


def as_token_lists(corpus: Sequence[str | Sequence[str]], name: str = "corpus") -> list[list[str]]:
    """``check_sentences`` for a training corpus: strings are tokenized (``tokenize``), token lists copied; messages
    name ``"{name} sentence {i}"``.

    Args:
        corpus: sentences, each a str or a sequence of str tokens.
        name: str, how error messages name ``corpus`` (``"heldout"``). Defaults to ``"corpus"``.

    Returns:
        One new, non-empty token list per sentence.

    Raises:
        SentenceTypeError, ValueError: as ``check_sentences`` (a single str, a sentence that is not a str or a list
            of str tokens, an empty sentence, no sentences at all).
    """
    return check_sentences(corpus, name, where=f"{name} sentence {{}}", strings="tokenize")


def as_words(sentence) -> list[str]:
    """A sentence as words without checks: a string split by ``tokenize``, anything else copied into a list."""
    return tokenize(sentence) if isinstance(sentence, str) else list(sentence)


@dataclasses.dataclass(frozen=True)
class SplitReport:
    """What ``split_long_sentences`` (or a streamed scan) split.

    Attributes:
        sentences: int, sentences longer than the bound (each split).
        pieces: int, the training sentences they became.
        longest: int, tokens in the longest of them (0 if none).
    """

    sentences: int = 0
    pieces: int = 0
    longest: int = 0

    def counted(self, length: int, max_tokens: int) -> "SplitReport":
        """This report with one more sentence of ``length`` tokens counted (unchanged if it is not split)."""
        if length <= max_tokens:
            return self
        return SplitReport(self.sentences + 1, self.pieces + window_count(length, max_tokens),
                           max(self.longest, length))


def window_count(length: int, max_tokens: int) -> int:
    """Training sentences a sentence of ``length`` tokens becomes: ``ceil(length / max_tokens)``."""
    return -(-length // max_tokens)


def sentence_windows(tokens: Sequence[str], max_tokens: int) -> list[Sequence[str]]:
    """``tokens`` as training sentences of at most ``max_tokens`` tokens: ``[tokens]`` itself if it is short enough,
    else the fewest consecutive pieces, of nearly equal lengths (differing by at most one), so no piece is a
    stray token or two. Each piece trains as a sentence of its own (with its ``<S>`` and ``</S>``).

    Example:
        >>> [len(piece) for piece in sentence_windows(["w"] * 450, 200)]
        [150, 150, 150]
    """
    count = window_count(len(tokens), max_tokens)
    if count <= 1:
        return [tokens]
    size, longer = divmod(len(tokens), count)
    pieces, start = [], 0
    for index in range(count):
        end = start + size + (index < longer)
        pieces.append(tokens[start:end])
        start = end
    return pieces


def split_long_sentences(sentences: Sequence[Sequence[str]],
                         max_tokens: int) -> tuple[list[Sequence[str]], SplitReport]:
    """Every sentence cut by ``sentence_windows`` (short ones kept as they are, in order).

    Returns:
        ``(training sentences, SplitReport)``.
    """
    result, report = [], SplitReport()
    for tokens in sentences:
        if len(tokens) <= max_tokens:
            result.append(tokens)
        else:
            result.extend(sentence_windows(tokens, max_tokens))
            report = report.counted(len(tokens), max_tokens)
    return result, report
