"""A toy sentiment corpus for the text classifiers (``models.classifiers``), in which word order matters.

``sentiment.tsv`` (UTF-8, tab-separated, one header row) has columns ``label`` (``negative`` / ``positive``),
``sentence`` (lowercase tokens separated by spaces), ``split`` (``train`` / ``heldout``) and ``pattern``: the
template that made it (``tools/make_sentiment_data.py``):

- ``plain``: "the plot is dull ." — the adjective decides;
- ``intensified``: "the plot is very dull ." — an intensifier keeps the label;
- ``negated``: "the plot is not dull ." / "… not very dull ." — negation flips it;
- ``contrast``: "this movie is good , not bad ." (positive) vs "this movie is bad , not good ." (negative) —
  the same words for both labels, so only word order tells them apart (a bag of words is at chance here);
- ``corrected``: "the film is not bad , it is great ." — the adjective after the comma decides;
- ``liking``: "i like this movie very much !" / "i do not like the film ." — the verb, negated or not.

The split is fixed in the file: 20% of each pattern's sentences are ``heldout``, drawn once by the generator; no
sentence is in both. The classic lecture example's sentence, "I like this movie very much !", is a positive training
example (lowercased, like the whole corpus: tokens are compared in lowercase).
"""

from __future__ import annotations

import functools
from importlib import resources

SENTIMENT_FILE = "sentiment.tsv"
FILE_COLUMNS = ("label", "sentence", "split", "pattern")
NEGATIVE, POSITIVE = "negative", "positive"
LABELS = (NEGATIVE, POSITIVE)  # class ids in this order
SPLITS = ("train", "heldout")
PATTERNS = ("plain", "intensified", "negated", "contrast", "corrected", "liking")
SEED_SENTENCE = "i like this movie very much !"


@functools.lru_cache(maxsize=1)
def _rows() -> tuple[tuple[str, str, str, str], ...]:
    """The file's rows, read and validated once; errors name the line."""
    text = resources.files("elmo_keras.data").joinpath(SENTIMENT_FILE).read_text(encoding="utf-8")
    lines = text.splitlines()
    if not lines or tuple(lines[0].split("\t")) != FILE_COLUMNS:
        raise ValueError(f"{SENTIMENT_FILE}: the header must be {FILE_COLUMNS}")
    rows, seen = [], set()
    for number, line in enumerate(lines[1:], start=2):
        fields = tuple(line.split("\t"))
        if len(fields) != len(FILE_COLUMNS):
            raise ValueError(f"{SENTIMENT_FILE} line {number}: expected {len(FILE_COLUMNS)} fields, "
                             f"found {len(fields)}")
        label, sentence, split, pattern = fields
        for value, allowed, what in ((label, LABELS, "label"), (split, SPLITS, "split"),
                                     (pattern, PATTERNS, "pattern")):
            if value not in allowed:
                raise ValueError(f"{SENTIMENT_FILE} line {number}: unknown {what} {value!r} "
                                 f"(expected one of {allowed})")
        if not sentence.split() or sentence in seen:
            raise ValueError(f"{SENTIMENT_FILE} line {number}: empty or repeated sentence {sentence!r}")
        seen.add(sentence)
        rows.append(fields)
    return tuple(rows)


def _check_split(split: str) -> None:
    if split not in (*SPLITS, "all"):
        raise ValueError(f"split must be 'train', 'heldout' or 'all', received {split!r}")


def load_sentiment(split: str = "train") -> tuple[list[list[str]], list[str], tuple[str, ...]]:
    """``(sentences, labels, label names)`` of one split, in file order.

    Args:
        split: ``"train"``, ``"heldout"`` or ``"all"``. Defaults to ``"train"``.

    Returns:
        Token lists, their labels (``"negative"`` / ``"positive"``) and ``LABELS`` (the class order).

    Raises:
        ValueError: an unknown ``split``.
    """
    _check_split(split)
    rows = [row for row in _rows() if split in ("all", row[2])]
    return [sentence.split() for _, sentence, _, _ in rows], [label for label, *_ in rows], LABELS


def sentiment_patterns(split: str = "train") -> list[str]:
    """The ``pattern`` of each sentence ``load_sentiment(split)`` returns, in the same order."""
    _check_split(split)
    return [row[3] for row in _rows() if split in ("all", row[2])]
