"""A toy parallel corpus for the seq2seq model: household commands → paraphrases, several valid per source.

``seq2seq_pairs.tsv`` (UTF-8, tab-separated, one header row, no quoting) has columns ``source``, ``target``,
``count`` and ``split``. Each of the 123 sources ("turn on the lamp", "close the door in the hall", …) has
two or three valid targets with different frequencies (``count``): "switch on the lamp" ×3, "turn the lamp
on" ×2, "power on the lamp" ×1. So a model trained on the counts learns a real distribution over outputs, and
greedy, beam search and sampling give different answers; valid targets also differ in length ("switch on
the hall lamp" / "switch on the lamp in the hall"), which is what length normalisation is about.

The vocabulary is 42 lowercase words. ``split`` is fixed: 18 sources (with all their targets) are
``heldout``; they are new combinations of words that all occur in ``train``.
"""

from __future__ import annotations

import functools
from importlib import resources

import pandas as pd

SEQ2SEQ_FILE = "seq2seq_pairs.tsv"
SEQ2SEQ_SPLITS = ("train", "heldout")
_FILE_COLUMNS = ["source", "target", "count", "split"]


@functools.lru_cache(maxsize=1)
def _parsed_rows() -> tuple[tuple[str, str, int, str], ...]:
    """Read and validate the file once; errors name the line."""
    text = resources.files("elmo_keras.data").joinpath(SEQ2SEQ_FILE).read_text(encoding="utf-8")
    lines = text.splitlines()
    if not lines or lines[0].split("\t") != _FILE_COLUMNS:
        raise ValueError(f"{SEQ2SEQ_FILE}: header must be {_FILE_COLUMNS}")
    rows, seen, split_of = [], set(), {}
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != len(_FILE_COLUMNS):
            raise ValueError(f"{SEQ2SEQ_FILE} line {number}: expected {len(_FILE_COLUMNS)} fields, found {len(fields)}")
        source, target, raw_count, split = fields
        if not source.split() or not target.split():
            raise ValueError(f"{SEQ2SEQ_FILE} line {number}: empty source or target")
        if not raw_count.isdigit() or int(raw_count) < 1:
            raise ValueError(f"{SEQ2SEQ_FILE} line {number}: count must be a positive integer, found {raw_count!r}")
        if split not in SEQ2SEQ_SPLITS:
            raise ValueError(
                f"{SEQ2SEQ_FILE} line {number}: unknown split {split!r} (expected one of {SEQ2SEQ_SPLITS})"
            )
        if (source, target) in seen:
            raise ValueError(f"{SEQ2SEQ_FILE} line {number}: duplicate pair {source!r} → {target!r}")
        if split_of.setdefault(source, split) != split:
            raise ValueError(f"{SEQ2SEQ_FILE} line {number}: source {source!r} appears in both splits")
        seen.add((source, target))
        rows.append((source, target, int(raw_count), split))
    return tuple(rows)


def _check_split(split: str) -> None:
    if split not in (*SEQ2SEQ_SPLITS, "all"):
        raise ValueError(f"split must be 'train', 'heldout' or 'all', received {split!r}")


def load_seq2seq_pairs() -> pd.DataFrame:
    """The corpus as a fresh DataFrame: ``source``, ``target`` (str), ``count`` (int), ``split``,
    ``source_tokens``, ``target_tokens`` (lists of words; the text is lowercase words separated by spaces)."""
    frame = pd.DataFrame(list(_parsed_rows()), columns=_FILE_COLUMNS)
    frame["source_tokens"] = frame["source"].str.split()
    frame["target_tokens"] = frame["target"].str.split()
    return frame.astype({"count": "int64"})


def seq2seq_pairs(split: str = "train", weighted: bool = True) -> list[tuple[list[str], list[str]]]:
    """``(source words, target words)`` pairs of one split, in file order.

    Args:
        split: ``"train"``, ``"heldout"`` or ``"all"``.
        weighted: repeat each pair ``count`` times (the training distribution); False: each pair once.
    """
    _check_split(split)
    return [
        (source.split(), target.split())
        for source, target, count, row_split in _parsed_rows()
        if split in ("all", row_split)
        for _ in range(count if weighted else 1)
    ]


def seq2seq_references(split: str = "heldout") -> dict[str, list[tuple[str, int]]]:
    """``{source: [(target, count), …]}``, most frequent target first (ties in file order)."""
    _check_split(split)
    references: dict[str, list[tuple[str, int]]] = {}
    for source, target, count, row_split in _parsed_rows():
        if split in ("all", row_split):
            references.setdefault(source, []).append((target, count))
    return {source: sorted(targets, key=lambda pair: -pair[1]) for source, targets in references.items()}
