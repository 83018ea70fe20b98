"""Sentences as token lists: what every training and embedding entry point accepts, checked with errors that
name the sentence (a str is split into tokens by ``tokenize``; a token list is copied); and the one rule that
bounds a training sentence's length (``sentence_windows``), shared by every training path."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from elmo_keras.text.tokenizer import tokenize

# Tokens per training sentence (without <S>/</S>): a longer one is split (``sentence_windows``), so a batch is at
# most batch_size × (DEFAULT_MAX_SENTENCE_TOKENS + 2) steps whatever the corpus holds. Far above ordinary sentences
# (a few dozen tokens): it splits lines that are not sentences; bilm-tf trained on windows of 20 steps.
DEFAULT_MAX_SENTENCE_TOKENS = 200


def as_token_lists(corpus: Sequence[str | Sequence[str]], name: str = "corpus") -> list[list[str]]:
    """Tokenize strings (``tokenize``), keep token lists.

    Args:
        corpus: sentences, each a str or a sequence of str tokens.
        name: str, how error messages name ``corpus`` (``"heldout"``). Defaults to ``"corpus"``.

    Returns:
        One new, non-empty token list per sentence.

    Raises:
        TypeError: ``corpus`` is a single str, or a sentence is neither a str nor a list of str tokens (the
            message names the sentence index and the token).
        ValueError: an empty sentence (named by its index), or no sentences at all.
    """
    if isinstance(corpus, str):
        raise TypeError(f"{name} must be a list of sentences, received a single str; wrap it in a list")
    sentences = [sentence_tokens(s, f"{name} sentence {index}") for index, s in enumerate(corpus)]
    if not sentences:
        raise ValueError(f"{name} has no sentences")
    return sentences


def sentence_tokens(sentence: str | Sequence[str], what: str = "sentence") -> list[str]:
    """One sentence as a non-empty list of str tokens: a str is split by ``tokenize``, a token list is copied.

    ``what`` names the sentence in error messages (``"corpus sentence 3"``).

    Raises:
        TypeError: ``sentence`` is not a str or a sequence of str tokens.
        ValueError: no tokens.
    """
    if isinstance(sentence, str):
        tokens = tokenize(sentence)
    elif isinstance(sentence, Iterable) and not isinstance(sentence, (bytes, bytearray, dict)):
        tokens = list(sentence)  # a list, tuple, NumPy array of str, generator …
    else:
        raise TypeError(
            f"{what} must be a str or a list of str tokens, received {type(sentence).__name__} ({sentence!r:.60})"
        )
    for position, token in enumerate(tokens):
        if not isinstance(token, str):
            raise TypeError(
                f"{what}: token {position} is {type(token).__name__} ({token!r:.40}), not str; tokens must be "
                "strings: convert them first, e.g. [str(token) for token in sentence]"
            )
    if not tokens:
        raise ValueError(f"{what} is empty")
    return tokens


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
