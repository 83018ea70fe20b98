"""Synthetic multi-turn dialogues for HRED and VHRED (written by ``tools/make_dialogue_data.py``).

``dialogues.tsv`` (UTF-8, tab-separated, one header row, no quoting) has columns ``context`` (the history
turns joined by ``" | "``), ``response`` and ``split``. 252 contexts of 1–3 history turns, each with three or
four plausible replies (816 dialogues of 2–4 turns). The first turn sets a topic ("i had sushi for dinner");
the later history turns are topic-free ("oh really ?", "any advice ?"), so the reply depends on a turn two or
three back, not only on the last one. ``split`` is fixed: 50 contexts (with all their replies) are
``heldout``; they are new combinations of turns that all occur in ``train``.
"""

from __future__ import annotations

import functools
from importlib import resources

DIALOGUE_FILE = "dialogues.tsv"
DIALOGUE_SPLITS = ("train", "heldout")
TURN_SEPARATOR = "|"
_FILE_COLUMNS = ["context", "response", "split"]


def split_turns(context: str) -> list[list[str]]:
    """``"a b | c d"`` (or one turn per line) → ``[["a", "b"], ["c", "d"]]``: turns split on ``|`` or newlines,
    words on whitespace, empty turns dropped."""
    turns = context.replace("\n", TURN_SEPARATOR).split(TURN_SEPARATOR)
    return [turn.split() for turn in turns if turn.split()]


@functools.lru_cache(maxsize=1)
def _parsed_rows() -> tuple[tuple[str, str, str], ...]:
    """Read and validate the file once; errors name the line."""
    text = resources.files("elmo_keras.data").joinpath(DIALOGUE_FILE).read_text(encoding="utf-8")
    lines = text.splitlines()
    if not lines or lines[0].split("\t") != _FILE_COLUMNS:
        raise ValueError(f"{DIALOGUE_FILE}: header must be {_FILE_COLUMNS}")
    rows, seen, split_of = [], set(), {}
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != len(_FILE_COLUMNS):
            raise ValueError(f"{DIALOGUE_FILE} line {number}: expected {len(_FILE_COLUMNS)} fields, "
                             f"found {len(fields)}")
        context, response, split = fields
        if not split_turns(context) or not response.split():
            raise ValueError(f"{DIALOGUE_FILE} line {number}: empty context or response")
        if split not in DIALOGUE_SPLITS:
            raise ValueError(f"{DIALOGUE_FILE} line {number}: unknown split {split!r} (expected {DIALOGUE_SPLITS})")
        if (context, response) in seen:
            raise ValueError(f"{DIALOGUE_FILE} line {number}: duplicate dialogue {context!r} → {response!r}")
        if split_of.setdefault(context, split) != split:
            raise ValueError(f"{DIALOGUE_FILE} line {number}: context {context!r} appears in both splits")
        seen.add((context, response))
        rows.append((context, response, split))
    return tuple(rows)


def _check_split(split: str) -> None:
    if split not in (*DIALOGUE_SPLITS, "all"):
        raise ValueError(f"split must be 'train', 'heldout' or 'all', received {split!r}")


def dialogue_examples(split: str = "train") -> list[tuple[list[list[str]], list[str]]]:
    """``(history turns as word lists, response words)`` of one split (``"train"``, ``"heldout"`` or ``"all"``),
    in file order."""
    _check_split(split)
    return [(split_turns(context), response.split()) for context, response, row_split in _parsed_rows()
            if split in ("all", row_split)]


def dialogue_references(split: str = "heldout") -> dict[str, list[str]]:
    """``{context: [its plausible responses]}`` of one split; contexts in file order, turns joined by ``" | "``."""
    _check_split(split)
    references: dict[str, list[str]] = {}
    for context, response, row_split in _parsed_rows():
        if split in ("all", row_split):
            references.setdefault(context, []).append(response)
    return references
