"""A small deterministic tokenizer: words and punctuation split apart.

Rules, applied left to right by one regular expression (no state, no locale, no lowercasing):

1. a number with internal ``.`` or ``,`` groups stays one token: ``3.5``, ``1,000``;
2. a word is a run of letters/digits/underscore, and may continue through an internal apostrophe or
   hyphen followed by more word characters: ``don't``, ``bank's``, ``well-known``;
3. every other non-space character is a token of its own: ``.``, ``,``, ``"``, ``(``, ``$``, an emoji;
4. whitespace (any Unicode space) separates tokens and is dropped.

``tokenize`` never drops a non-space character, so ``"".join(tokens)`` equals the text with whitespace
removed. The polysemy corpus's ``target_index`` counts tokens of exactly this function.
"""

from __future__ import annotations

import re

_TOKEN_PATTERN = re.compile(
    r"""
    \d+(?:[.,]\d+)+           # numbers with internal separators: 3.5, 1,000
  | \w+(?:['’-]\w+)*          # words, with internal apostrophes or hyphens
  | [^\w\s]                   # any other single non-space character
    """,
    re.VERBOSE,
)


def tokenize(text: str) -> list[str]:
    """Split ``text`` into word and punctuation tokens (see the module docstring for the rules).

    Args:
        text: any string.

    Returns:
        The tokens, in order. An empty or all-space string gives ``[]``.

    Raises:
        TypeError: if ``text`` is not a ``str``.
    """
    if not isinstance(text, str):
        raise TypeError(f"tokenize() expects a str, received {type(text).__name__}: {text!r:.80}")
    return _TOKEN_PATTERN.findall(text)
