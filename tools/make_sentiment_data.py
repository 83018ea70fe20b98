"""Generate the synthetic sentiment data shipped as ``elmo_keras/data/sentiment.tsv`` (same bytes every run).

Usage::

    python tools/make_sentiment_data.py [--out elmo_keras/data/sentiment.tsv]

Short movie reviews built from templates in which word order decides the label: negation flips it ("this movie is
not good" is negative), intensifiers keep it ("very bad", "not very bad"), and contrast sentences use the same
words for both labels ("this movie is good , not bad" is positive, "this movie is bad , not good" negative), so a
bag of words cannot tell those apart. What each column holds: :mod:`elmo_keras.data.sentiment`. One
``random.Random`` seeded with a string draws everything (no set is iterated), so the file is reproduced byte for
byte (``tests/data/backend_independent/test_sentiment_data.py`` checks it).
"""

from __future__ import annotations

import argparse
import pathlib
import random

from elmo_keras.data.sentiment import (
    FILE_COLUMNS,
    NEGATIVE,
    PATTERNS,
    POSITIVE,
    SEED_SENTENCE,
    SENTIMENT_FILE,
)

DATA_FILE = pathlib.Path(__file__).resolve().parents[1] / "elmo_keras" / "data" / SENTIMENT_FILE
SEED = "elmo_keras sentiment data v1"
# 239 per pattern, 48 held out: 6 · 191 + 6 canonical = 1152 training sentences = 18 batches of 64 (or 36 of 32),
# so a TensorFlow fit traces its training step once (a smaller last batch would trace it again, ~2 s)
SENTENCES_PER_PATTERN = 239
HELDOUT_FRACTION = 0.2
MAX_TRIES = 1000  # draws allowed per new unique sentence before giving up

SUBJECTS = ["this movie", "the movie", "this film", "the film", "the plot", "the acting", "the ending",
            "the soundtrack", "this show", "the story", "the dialogue", "the cast"]
VERBS = ["is", "was"]
GOOD = ["good", "great", "fun", "wonderful", "enjoyable", "brilliant", "funny", "excellent"]
BAD = ["bad", "boring", "awful", "dull", "terrible", "poor", "weak", "horrible"]
INTENSIFIERS = ["very", "really", "quite", "so", "extremely", "truly"]
LIKES = ["like", "love", "enjoy"]
HATES = ["hate", "dislike"]
ENDS = [".", "!"]


# the training examples every version of the file has: the lecture example's sentence and the order-matters pairs
CANONICAL = [(POSITIVE, SEED_SENTENCE, "liking"),
             (NEGATIVE, "this movie is not good .", "negated"),
             (POSITIVE, "this movie is good , not bad .", "contrast"),
             (NEGATIVE, "this movie is bad , not good .", "contrast"),
             (POSITIVE, "this movie is not very bad .", "negated"),
             (NEGATIVE, "this movie is not very good .", "negated")]


def opposite(label: str) -> str:
    return NEGATIVE if label == POSITIVE else POSITIVE


def adjective(rng: random.Random) -> tuple[str, str]:
    """A random adjective and its label."""
    label = rng.choice([POSITIVE, NEGATIVE])
    return rng.choice(GOOD if label == POSITIVE else BAD), label


def plain(rng):
    """``the plot is dull .`` — the adjective decides."""
    word, label = adjective(rng)
    return f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {word} {rng.choice(ENDS)}", label


def intensified(rng):
    """``the plot is very dull .`` — an intensifier keeps the label."""
    word, label = adjective(rng)
    return f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(INTENSIFIERS)} {word} {rng.choice(ENDS)}", label


def negated(rng):
    """``the plot is not dull .`` / ``… not very dull .`` — negation flips the label."""
    word, label = adjective(rng)
    middle = f"not {rng.choice(INTENSIFIERS)} {word}" if rng.random() < 0.4 else f"not {word}"
    return f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {middle} {rng.choice(ENDS)}", opposite(label)


def contrast(rng):
    """``the plot is good , not bad .`` — the same words for both labels: the adjective *before* "not" decides."""
    word, label = adjective(rng)
    other = rng.choice(BAD if label == POSITIVE else GOOD)
    return f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {word} , not {other} {rng.choice(ENDS)}", label


def corrected(rng):
    """``the plot is not bad , it is great .`` — the adjective *after* the comma decides."""
    word, label = adjective(rng)
    other = rng.choice(BAD if label == POSITIVE else GOOD)
    verb = rng.choice(VERBS)
    return f"{rng.choice(SUBJECTS)} {verb} not {other} , it {verb} {word} {rng.choice(ENDS)}", label


def liking(rng):
    """``i like this movie very much !`` / ``i do not like the film .`` — the verb, negated or not."""
    label = rng.choice([POSITIVE, NEGATIVE])
    negate = rng.random() < 0.5
    verbs = LIKES if (label == POSITIVE) != negate else HATES
    verb = f"do not {rng.choice(verbs)}" if negate else rng.choice(verbs)
    tail = " very much" if rng.random() < 0.4 else ""
    return f"i {verb} {rng.choice(SUBJECTS)}{tail} {rng.choice(ENDS)}", label


GENERATORS = {"plain": plain, "intensified": intensified, "negated": negated, "contrast": contrast,
              "corrected": corrected, "liking": liking}
assert tuple(GENERATORS) == PATTERNS


def generate(seed: str = SEED) -> list[tuple[str, str, str, str]]:
    """``(label, sentence, split, pattern)`` rows: ``CANONICAL`` first (train), then
    ``SENTENCES_PER_PATTERN`` unique sentences per pattern, ``HELDOUT_FRACTION`` of each pattern held out."""
    rng = random.Random(seed)
    rows = [(label, sentence, "train", pattern) for label, sentence, pattern in CANONICAL]
    seen = {sentence for _, sentence, _ in CANONICAL}
    for pattern, make in GENERATORS.items():
        drawn = []
        for _ in range(SENTENCES_PER_PATTERN):
            for _ in range(MAX_TRIES):
                sentence, label = make(rng)
                if sentence not in seen:
                    break
            else:
                raise RuntimeError(f"pattern {pattern!r} cannot make {SENTENCES_PER_PATTERN} unique sentences")
            seen.add(sentence)
            drawn.append((label, sentence))
        heldout = set(rng.sample(range(len(drawn)), round(HELDOUT_FRACTION * len(drawn))))
        rows += [(label, sentence, "heldout" if i in heldout else "train", pattern)
                 for i, (label, sentence) in enumerate(drawn)]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=pathlib.Path, default=DATA_FILE)
    args = parser.parse_args()
    lines = ["\t".join(FILE_COLUMNS)] + ["\t".join(row) for row in generate()]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(lines) - 1} sentences to {args.out}")


if __name__ == "__main__":
    main()
