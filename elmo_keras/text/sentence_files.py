"""Files of one sentence per line, read by one set of rules (``sentence_lines``): ``train``'s corpus files, loaded or
streamed (``data.corpus_files``), and ``embed``'s input files (``embedding.embedder``).

- **Bytes**: UTF-8; a file named ``*.gz`` is read as gzip; a byte-order mark opening the file is dropped. The file is
  read in pieces ending at ``\\n`` of at most ``MAX_LINE_BYTES``, so nothing here holds more than one piece of it.
- **Lines** end where ``str.splitlines()`` ends them (``\\n``, ``\\r\\n``, a lone ``\\r``, ``\\x85``, ``\\u2028``…), so
  a file gives the same lines read a piece at a time as read whole. A line comes without the white space around it;
  its number, 1-based, counts these lines (in a file of ``\\n`` line ends, the numbers an editor shows).
- **Blank lines** (white space only) are skipped or refused, as the caller says (``blank_lines``, no default):
  a training corpus skips them (blank lines between paragraphs hold no sentence, and nothing is tied to a line's
  number); ``embed`` refuses them, because its output's dataset ``"i"`` holds line ``i + 1``: skipping a blank line
  would tie every later line to the wrong dataset, and a blank line has nothing to embed (AllenNLP's ``elmo`` command
  refuses them too).
- **Errors** name the file and the line, ``"corpus.txt, line 4: not UTF-8 (…)"``: a ``SentenceFileError`` (a
  ``ValueError``) for a line that is not UTF-8, a piece over ``MAX_LINE_BYTES`` (a text not split into sentences),
  a blank line refused, or a ``.gz`` file that is not complete gzip (empty, not gzip, truncated).

An empty file yields no line: what that means (nothing to embed, a corpus without sentences) is the caller's to say.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterator
from typing import BinaryIO, Literal

# One sentence per line: a line this long is a text not split into sentences (read whole, it would defeat
# streaming); bilm-tf's 1B Word Benchmark lines are at most a few kilobytes.
MAX_LINE_BYTES = 1 << 20
BLANK_LINE_RULES = ("skip", "refuse")
GZIP_SUFFIX = ".gz"
GZIP_MAGIC = b"\x1f\x8b"
_BYTE_ORDER_MARK = "\ufeff"


class SentenceFileError(ValueError):
    """A file of one sentence per line cannot be read as sentences: a line that is not UTF-8, too long or blank (where
    blank lines are refused), or a ``.gz`` file that is not complete gzip. ``data.CorpusFileError`` is this class."""


def sentence_lines(path: str | os.PathLike, *, blank_lines: Literal["skip", "refuse"]) -> Iterator[tuple[int, str]]:
    """The lines of a file of one sentence per line, in file order, read by the rules of the module's docstring.

    Args:
        path: the file (read as gzip if its name ends in ``.gz``); checked to exist by the caller.
        blank_lines: ``"skip"`` or ``"refuse"`` a line of white space only (see the module's docstring for who
            does which, and why).

    Returns:
        An iterator of ``(line_number, text)``: the 1-based line number and the line without the white space around
        it (never empty).

    Raises:
        ValueError: ``blank_lines`` is neither rule (at the call, before the file is opened).
        SentenceFileError: while iterating, a line that is not UTF-8, a piece over ``MAX_LINE_BYTES``, a blank line
            refused, or a ``.gz`` file that is not complete gzip, each naming the file (and the line where there is
            one); the lines before it have been yielded.
    """
    if blank_lines not in BLANK_LINE_RULES:
        raise ValueError(f"blank_lines must be one of {BLANK_LINE_RULES}, received {blank_lines!r}")
    return _lines(os.fspath(path), skip_blank=blank_lines == "skip")


def _lines(path: str, skip_blank: bool) -> Iterator[tuple[int, str]]:
    number = 0  # the lines read so far
    try:
        with open_binary(path) as handle:
            while raw := handle.readline(MAX_LINE_BYTES + 1):
                if len(raw) > MAX_LINE_BYTES:
                    raise SentenceFileError(
                        f"{path}, line {number + 1}: longer than {MAX_LINE_BYTES:,} bytes; a sentence file holds one "
                        "sentence per line (split the text into sentences first)")
                text = _decoded(raw, path, number)
                if number == 0:
                    text = text.removeprefix(_BYTE_ORDER_MARK)
                for line in text.splitlines():  # "\r", "\x85", "\u2028"…: the lines of the file's text read whole
                    number += 1
                    line = line.strip()
                    if line:
                        yield number, line
                    elif not skip_blank:
                        raise SentenceFileError(f"{path}, line {number} is blank; every line must hold one sentence")
    except (OSError, EOFError) as error:  # gzip.BadGzipFile is an OSError; EOFError: a truncated gzip stream
        where = f", line {number + 1}" if number else ""
        damaged = path.endswith(GZIP_SUFFIX) and isinstance(error, (gzip.BadGzipFile, EOFError))
        problem = "not a complete gzip file (files named *.gz are read as gzip)" if damaged else "cannot be read"
        remedy = "; check it with gzip -t, then recompress it or leave it out of the corpus" if damaged else ""
        raise SentenceFileError(f"{path}{where}: {problem}: {error}{remedy}") from error


def _decoded(raw: bytes, path: str, lines_before: int) -> str:
    """``raw``, a piece of ``path`` after ``lines_before`` lines, decoded; else an error naming its line."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        # the lines of the valid part before the bad byte ("x" stands for it): the last one holds it
        lines = (raw[:error.start].decode("utf-8") + "x").splitlines()
        raise SentenceFileError(
            f"{path}, line {lines_before + len(lines)}: not UTF-8 ({error.reason} at byte "
            f"{len(lines[-1][:-1].encode())} of the line: {raw[max(0, error.start - 10):error.start + 10]!r}); "
            "convert the file to UTF-8, e.g. iconv -f latin1 -t utf-8") from None


def open_binary(path: str) -> BinaryIO:
    """``path`` opened for reading bytes: through gzip for ``.gz`` files.

    Raises:
        gzip.BadGzipFile: a ``.gz`` file that does not start as gzip does, an empty one included (gzip itself
            reads a 0-byte file as empty text).
    """
    if not path.endswith(GZIP_SUFFIX):
        return open(path, "rb")
    with open(path, "rb") as handle:
        start = handle.read(len(GZIP_MAGIC))
    if start != GZIP_MAGIC:
        raise gzip.BadGzipFile(f"Not a gzipped file ({start!r})" if start else "the file is empty (0 bytes)")
    return gzip.open(path, "rb")
