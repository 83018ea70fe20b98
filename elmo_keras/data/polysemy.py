"""A toy polysemy corpus: three ambiguous English words, two senses each, plus filler sentences.

``polysemy.tsv`` (UTF-8, tab-separated, one header row, no quoting) holds short everyday sentences:

- 96 sentences for each target word, 48 per sense: **bank** (``money`` / ``river``), **play**
  (``theatre``: the noun, a stage play / ``game``: the verb, to play a game or sport) and **right**
  (``direction``: left/right / ``correct``: correct, true). Each contains its target exactly once, as that
  exact token (any case), and the sense can be read off the context words;
- about 300 filler sentences with no target word, on the same everyday topics and the same small
  vocabulary, so that a small language model trained on the file learns general English context.

Columns: ``id`` (stable integer), ``word`` and ``sense`` (empty for fillers), ``sentence``, ``target_index``
(position of the target among the tokens of :func:`elmo_keras.text.tokenize`; -1 for fillers), ``split``
(``train`` or ``heldout``: every 4th sentence of each word/sense group is held out; fillers are all train)
and ``pos`` (one coarse Universal POS tag per token, space-separated).
"""

from __future__ import annotations

import functools
from importlib import resources

import pandas as pd

from elmo_keras.text import tokenize

TARGET_WORDS = ("bank", "play", "right")
SENSES = {"bank": ("money", "river"), "play": ("theatre", "game"), "right": ("direction", "correct")}
UNLABELLED = "unlabelled"  # the sense of an occurrence outside the labelled target sentences
TYPED = "typed"  # the sense of an occurrence in a sentence the user typed
POS_TAGS = frozenset("NOUN VERB AUX ADJ ADV PRON DET ADP CCONJ SCONJ PART NUM PUNCT PROPN INTJ".split())
SPLITS = ("train", "heldout")
COLUMNS = ("id", "word", "sense", "sentence", "tokens", "target_index", "split", "pos")
_FILE_COLUMNS = ["id", "word", "sense", "sentence", "target_index", "split", "pos"]


def _check_row(row_id: int, word: str, sense: str, tokens: list[str], target_index: int, split: str,
               pos: list[str]) -> None:
    """Raise ValueError (naming ``row_id``) if one parsed row is inconsistent."""
    def fail(message: str) -> None:
        raise ValueError(f"polysemy.tsv row id={row_id}: {message}")

    if split not in SPLITS:
        fail(f"unknown split {split!r} (expected one of {SPLITS})")
    if len(pos) != len(tokens):
        fail(f"{len(pos)} POS tags for {len(tokens)} tokens")
    unknown = sorted(set(pos) - POS_TAGS)
    if unknown:
        fail(f"unknown POS tag(s) {unknown}")
    lowered = [token.lower() for token in tokens]
    if not word:
        if sense or target_index != -1 or split != "train":
            fail("a filler row needs empty sense, target_index -1 and split 'train'")
        if set(lowered) & set(TARGET_WORDS):
            fail("a filler row contains a target word")
        return
    if word not in SENSES:
        fail(f"unknown target word {word!r}")
    if sense not in SENSES[word]:
        fail(f"unknown sense {sense!r} for {word!r} (expected one of {SENSES[word]})")
    if not 0 <= target_index < len(tokens) or lowered[target_index] != word:
        found = tokens[target_index] if 0 <= target_index < len(tokens) else None
        fail(f"target token at index {target_index} is {found!r}, not {word!r}")


@functools.lru_cache(maxsize=1)
def _parsed_rows() -> tuple[tuple, ...]:
    """Read and validate ``polysemy.tsv`` once; rows hold tuples so the cache cannot be mutated."""
    text = resources.files("elmo_keras.data").joinpath("polysemy.tsv").read_text(encoding="utf-8")
    lines = text.splitlines()
    if not lines or lines[0].split("\t") != _FILE_COLUMNS:
        raise ValueError(f"polysemy.tsv: header must be {_FILE_COLUMNS}")
    rows, seen_ids = [], set()
    for line_number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != len(_FILE_COLUMNS):
            raise ValueError(f"polysemy.tsv line {line_number}: expected {len(_FILE_COLUMNS)} fields")
        raw_id, word, sense, sentence, raw_index, split, raw_pos = fields
        try:
            row_id, target_index = int(raw_id), int(raw_index)
        except ValueError:
            raise ValueError(f"polysemy.tsv line {line_number}: id and target_index must be integers") from None
        if row_id in seen_ids:
            raise ValueError(f"polysemy.tsv row id={row_id}: duplicate id")
        seen_ids.add(row_id)
        tokens, pos = tokenize(sentence), raw_pos.split()
        _check_row(row_id, word, sense, tokens, target_index, split, pos)
        rows.append((row_id, word, sense, sentence, tuple(tokens), target_index, split, tuple(pos)))
    return tuple(rows)


def load_polysemy() -> pd.DataFrame:
    """Load the polysemy corpus (target and filler sentences) as a fresh DataFrame.

    Returns:
        One row per sentence with columns ``id`` (int), ``word``, ``sense``, ``sentence`` (str),
        ``tokens`` (list[str]), ``target_index`` (int), ``split`` ("train" or "heldout") and ``pos``
        (list[str], one tag per token). Filler rows have empty ``word``/``sense`` and ``target_index`` -1.
        The file is parsed once; every call returns a new frame with new lists, so callers may mutate it.

    Raises:
        ValueError: if the file is inconsistent (the message names the row id): a target token that is
            not the row's word, a tag count that differs from the token count, an unknown tag, split,
            word or sense.
    """
    rows = _parsed_rows()
    frame = pd.DataFrame(
        [(i, w, s, text, list(tokens), t, split, list(pos)) for i, w, s, text, tokens, t, split, pos in rows],
        columns=list(COLUMNS),
    )
    return frame.astype({"id": "int64", "target_index": "int64"})


def polysemy_sentences(split: str = "train") -> list[list[str]]:
    """Tokenized sentences of one split of the corpus, in file order.

    Args:
        split: ``"train"`` (train target sentences plus all fillers), ``"heldout"`` or ``"all"``.

    Returns:
        A list of token lists (fresh lists on every call).

    Raises:
        ValueError: if ``split`` is not one of the three names above.
    """
    if split not in (*SPLITS, "all"):
        raise ValueError(f"split must be 'train', 'heldout' or 'all', received {split!r}")
    return [list(row[4]) for row in _parsed_rows() if split == "all" or row[6] == split]
