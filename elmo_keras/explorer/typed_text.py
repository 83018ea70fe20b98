"""The one check of a sentence a user types into a page: tokenized, not empty, not longer than the page's limit."""

from __future__ import annotations

from elmo_keras.text.tokenizer import tokenize


def typed_tokens(text: str | None, limit: int, *, empty: str, what: str = "The sentence",
                 unit: str = "tokens") -> list[str]:
    """``tokenize(text)``, or a ``ValueError`` the page shows as it is.

    Args:
        text: what the user typed (None counts as empty).
        limit: int, the most tokens the page takes.
        empty: the message for an empty text (it says what to type).
        what: how the message names the text (``"The source"``). Defaults to ``"The sentence"``.
        unit: how the message counts (``"words"``). Defaults to ``"tokens"``.

    Raises:
        ValueError: ``empty`` for an empty text; "<what> has N <unit>; the limit is <limit>." for a longer one.
    """
    tokens = tokenize(text or "")
    if not tokens:
        raise ValueError(empty)
    if len(tokens) > limit:
        raise ValueError(f"{what} has {len(tokens)} {unit}; the limit is {limit}.")
    return tokens
