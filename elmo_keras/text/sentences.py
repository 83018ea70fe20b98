"""Sentences as token lists: what every training and embedding entry point accepts, checked with errors that
name the sentence (a str is split into tokens by ``tokenize``; a token list is copied)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from elmo_keras.text.tokenizer import tokenize


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
