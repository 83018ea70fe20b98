"""Validating an uploaded corpus file: plain text (one sentence per line) or TSV with the corpus columns.

``parse_corpus_upload(filename, data)`` returns a ``CorpusUpload`` (the corpus DataFrame and warnings about
labels it had to drop) or raises ``ValueError`` with a message for the user; it never touches the current
corpus or model, so a bad upload changes nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from elmo_keras.data.polysemy import TARGET_WORDS
from elmo_keras.explorer.corpus import make_corpus
from elmo_keras.text.tokenizer import tokenize

MAX_UPLOAD_BYTES = 5 * 1024 * 1024
MAX_SENTENCES = 20_000
TSV_COLUMNS = ("word", "sense", "sentence", "split", "pos")  # "sentence" required, the others optional
_ALLOWED_CONTROL = set("\t\n\r\f")
_MAX_CONTROL_FRACTION = 0.01
_ROWS_NAMED = 5  # a warning names at most this many rows
_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # a TSV line ends at any of them, as a plain-text line does


@dataclass(frozen=True)
class CorpusUpload:
    """An accepted upload: the corpus, and warnings for the page (sense labels that were dropped, and why)."""

    frame: pd.DataFrame
    warnings: list


def _megabytes(size: int) -> str:
    return f"{size / 1024 / 1024:.1f} MB"


def upload_text(filename: str, data: bytes) -> str:
    """The upload as text, or a ``ValueError``: empty, too large, binary, or not UTF-8."""
    if not isinstance(data, (bytes, bytearray)):
        raise ValueError(f"{filename}: expected the file's bytes, received {type(data).__name__}.")
    if len(data) == 0:
        raise ValueError(f"{filename} is empty.")
    if len(data) > MAX_UPLOAD_BYTES:
        raise ValueError(f"{filename} is {_megabytes(len(data))}; the limit is {_megabytes(MAX_UPLOAD_BYTES)}.")
    if b"\x00" in data:
        raise ValueError(f"{filename} looks like a binary file (it contains NUL bytes); upload UTF-8 text or TSV.")
    try:
        text = bytes(data).decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise ValueError(
            f"{filename} is not UTF-8 text: byte 0x{data[error.start]:02x} at line {line} cannot be decoded. "
            "Save the file as UTF-8 and upload it again."
        ) from None
    control = sum(1 for c in text if ord(c) < 32 and c not in _ALLOWED_CONTROL)
    if control > _MAX_CONTROL_FRACTION * len(text):
        raise ValueError(f"{filename} looks like a binary file ({control} control characters); "
                         "upload UTF-8 text or TSV.")
    if not text.strip():
        raise ValueError(f"{filename} is empty (it holds only white space).")
    return text


def _numbered_lines(text: str) -> list[tuple[int, str]]:
    """``(line number, line)`` for each line from the first that holds more than white space (the header)."""
    lines = _LINE_BREAK.split(text)
    first = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    return [(number, line) for number, line in enumerate(lines[first:], start=first + 1)]


def _is_tsv(filename: str, text: str) -> bool:
    """A header row naming ``sentence`` among tab-separated columns, or alone in a ``.tsv`` file (a plain-text
    file may well start with the word "sentence")."""
    lines = _numbered_lines(text)
    header = lines[0][1] if lines else ""
    columns = [h.strip().lower() for h in header.split("\t")]
    if "\t" not in header and not filename.lower().endswith(".tsv"):
        return False
    return "sentence" in columns


def _tsv_records(filename: str, text: str) -> tuple[list[str], list[dict]]:
    """``(header, records)``: the lower-cased column names and one dict per non-blank data row.

    Fields are split at tabs, lines at ``\\n``, ``\\r\\n`` or ``\\r``; quotes are kept as they are. Nothing
    limits a field's length but the upload's (the ``csv`` module refuses fields over 128 KiB).
    """
    (_, header_line), *rows = _numbered_lines(text)
    header = [h.strip().lower() for h in header_line.split("\t")]
    unknown = [h for h in header if h and h not in TSV_COLUMNS and h not in ("id", "target_index")]
    if unknown:
        raise ValueError(f"{filename}: unknown TSV column(s) {unknown}; "
                         f"use {', '.join(TSV_COLUMNS)} (sentence required).")
    records = []
    for line_number, line in rows:
        fields = line.split("\t")
        if not any(f.strip() for f in fields):
            continue
        if len(fields) > len(header):
            raise ValueError(f"{filename} line {line_number}: {len(fields)} fields but the header has {len(header)}.")
        records.append(dict(zip(header, fields)))
    return header, records


def _label_warnings(filename: str, header: list[str], records: list[dict]) -> list[str]:
    """Say where a word or a sense came without the other: ``make_corpus`` counts such rows as unlabelled."""
    for present, missing in (("sense", "word"), ("word", "sense")):
        if present in header and missing not in header:
            return [f"{filename} has a `{present}` column but no `{missing}` column, so its labels were dropped and "
                    "every sentence is unlabelled: a sense label needs both the word and its sense."]
    half = [number for number, record in enumerate(records, start=1)
            if bool(str(record.get("word") or "").strip()) != bool(str(record.get("sense") or "").strip())]
    if not half:
        return []
    if len(half) == 1:
        rows = f"data row {half[0]} gives"
    else:
        named = ", ".join(str(n) for n in half[:_ROWS_NAMED]) + (", …" if len(half) > _ROWS_NAMED else "")
        rows = f"{len(half)} data rows ({named}) give"
    return [f"{filename}: {rows} a word without a sense or a sense without a word; such rows count as unlabelled."]


def _text_records(text: str) -> list[dict]:
    return [{"sentence": line.strip()} for line in text.splitlines() if line.strip()]


def parse_corpus_upload(filename: str, data: bytes) -> CorpusUpload:
    """The corpus of an uploaded file, with warnings about labels it dropped.

    ``filename`` names the file in messages (and ``.tsv`` marks a TSV); ``data`` holds its bytes.

    Plain text: one sentence per line (blank lines skipped), all unlabelled, split ``train``. TSV: a header
    row naming ``sentence`` (with any of ``word, sense, split, pos``, or alone in a ``.tsv`` file); ``word`` +
    ``sense`` label a
    row, and a row (or a file) with only one of them is unlabelled and named in ``warnings``.

    Raises:
        ValueError: empty, larger than ``MAX_UPLOAD_BYTES`` (5 MiB), binary, not UTF-8, a malformed row (named),
            more than ``MAX_SENTENCES`` sentences, or no sentence containing a target word (bank, play, right) or
            a labelled word.
    """
    text = upload_text(filename, data)
    is_tsv = _is_tsv(filename, text)
    header, records = _tsv_records(filename, text) if is_tsv else ([], _text_records(text))
    if not records:
        raise ValueError(f"{filename} has a header but no sentences.")
    if len(records) > MAX_SENTENCES:
        raise ValueError(f"{filename} has {len(records)} sentences; the limit is {MAX_SENTENCES}.")
    frame = make_corpus(records, where=f"{filename} {'data row' if is_tsv else 'line'}")
    has_target = any(w in {t.lower() for t in tokenize(s)} for s in frame["sentence"] for w in TARGET_WORDS)
    if not has_target and not (frame["word"] != "").any():
        raise ValueError(
            f"{filename}: no sentence contains a target word ({', '.join(TARGET_WORDS)}) and no row is labelled "
            "with a word and sense, so there is nothing for the similarity pages to show."
        )
    return CorpusUpload(frame, _label_warnings(filename, header, records))
