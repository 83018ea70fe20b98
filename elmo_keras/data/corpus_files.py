"""The text files of a streamed corpus: which files a pattern names, and their sentences read one line at a time.

A corpus is one or more UTF-8 text files (``.gz`` files are read as gzip), one sentence per line, tokens separated
by whitespace (Python's ``str.split()``: any Unicode space), bilm-tf's training-file format. Blank lines are
skipped; a file is read in pieces ending at ``\\n`` (at most ``MAX_LINE_BYTES``), each split into lines as
``str.splitlines()`` splits them (``\\r\\n``, a lone ``\\r``, ``\\x85``, ``\\u2028``…), so a file gives the same
sentences streamed and read whole; a byte-order mark opening a file is dropped. Nothing here holds more than one
piece of a file at a time.

- ``corpus_paths``: a glob, a path or a list of them → the sorted, de-duplicated list of files, or a clear error
  (nothing matched, a directory, a missing file).
- ``file_sentences``: one file's sentences as ``(line_number, tokens)``; a line that is not UTF-8, or longer than
  ``MAX_LINE_BYTES``, raises an error naming the file and the line. A file loaded in memory (``train
  --corpus FILE``) is read through it too, so it gives the same tokens either way.
"""

from __future__ import annotations

import glob
import gzip
import os
from collections.abc import Iterator, Sequence

# One sentence per line: a line this long is a file that is not split into sentences (read whole, it would defeat
# streaming); bilm-tf's 1B Word Benchmark lines are at most a few kilobytes.
MAX_LINE_BYTES = 1 << 20
GZIP_SUFFIX = ".gz"
GZIP_MAGIC = b"\x1f\x8b"
_BYTE_ORDER_MARK = "\ufeff"


class CorpusFileError(ValueError):
    """A corpus file cannot be read as sentences: not UTF-8, a line too long, missing, or not a file."""


def corpus_paths(pattern: str | os.PathLike | Sequence[str | os.PathLike]) -> list[str]:
    """The files of a corpus, sorted and without duplicates.

    Args:
        pattern: a path, a glob (``"shards/*.txt.gz"``, ``**`` allowed) or a list of them.

    Returns:
        Absolute paths, sorted (so the file order, and the scan's counts, never depend on the file system).

    Raises:
        TypeError: ``pattern`` is not a str, a path or a list of them.
        ValueError: an empty list, a glob matching no file, or a path that is a directory.
        FileNotFoundError: a plain path (no glob characters) that does not exist.
    """
    patterns = [pattern] if isinstance(pattern, (str, os.PathLike)) else pattern
    if not isinstance(patterns, Sequence) or isinstance(patterns, bytes):
        raise TypeError(f"corpus must be a path, a glob or a list of them, received {type(pattern).__name__}")
    if len(patterns) == 0:
        raise ValueError("the corpus file list is empty: pass a glob such as 'shards/*.txt.gz' or a list of paths")
    found = set()
    for item in patterns:
        if not isinstance(item, (str, os.PathLike)):
            raise TypeError(f"corpus paths must be str or os.PathLike, received {type(item).__name__}: {item!r:.60}")
        item = os.path.expanduser(os.fspath(item))
        if glob.has_magic(item) and not os.path.isfile(item):  # a file named "data[2020].txt" is that file
            matches = [path for path in glob.glob(item, recursive=True) if os.path.isfile(path)]
            if not matches:
                raise ValueError(f"no corpus file matches {item!r} (relative to {os.getcwd()}); check the pattern")
            found.update(os.path.abspath(path) for path in matches)
        elif os.path.isdir(item):
            raise ValueError(f"corpus path {item} is a directory; pass a glob of its files, e.g. '{item}/*.txt'")
        elif not os.path.exists(item):
            raise FileNotFoundError(f"corpus file not found: {item}")
        else:
            found.add(os.path.abspath(item))
    return sorted(found)


def open_binary(path: str):
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


def file_sentences(path: str) -> Iterator[tuple[int, list[str]]]:
    """The sentences of one corpus file, in file order: ``(line_number, tokens)``, blank lines skipped.

    Args:
        path: a file of ``corpus_paths``.

    Yields:
        ``(line_number, tokens)``: the 1-based line number and the line's whitespace-separated tokens (non-empty).

    Raises:
        CorpusFileError: a line that is not UTF-8, a line over ``MAX_LINE_BYTES``, or a ``.gz`` file that is not
            complete gzip: empty, not gzip, or truncated (each naming the file, and the line where there is one).
    """
    line_number = 0
    try:
        with open_binary(path) as handle:
            while True:
                raw = handle.readline(MAX_LINE_BYTES + 1)
                if not raw:
                    return
                line_number += 1
                if len(raw) > MAX_LINE_BYTES:
                    raise CorpusFileError(
                        f"{path}, line {line_number}: longer than {MAX_LINE_BYTES:,} bytes; a corpus file holds one "
                        "sentence per line (split the text into sentences first)")
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as error:
                    raise CorpusFileError(
                        f"{path}, line {line_number}: not UTF-8 ({error.reason} at byte {error.start} of the line: "
                        f"{raw[max(0, error.start - 10):error.start + 10]!r}); convert the file to UTF-8, e.g. "
                        "iconv -f latin1 -t utf-8") from None
                if line_number == 1 and line.startswith(_BYTE_ORDER_MARK):
                    line = line[1:]
                for sentence in line.splitlines():  # "\r", "\x85", "\u2028"…: the lines str.splitlines() sees,
                    tokens = sentence.split()         # as in the file's text read whole
                    if tokens:
                        yield line_number, tokens
    except (OSError, EOFError) as error:  # gzip.BadGzipFile is an OSError; EOFError: a truncated gzip stream
        where = f", line {line_number + 1}" if line_number else ""
        damaged = path.endswith(GZIP_SUFFIX) and isinstance(error, (gzip.BadGzipFile, EOFError))
        problem = "not a complete gzip file (files named *.gz are read as gzip)" if damaged else "cannot be read"
        remedy = "; check it with gzip -t, then recompress it or leave it out of the corpus" if damaged else ""
        raise CorpusFileError(f"{path}{where}: {problem}: {error}{remedy}") from error

