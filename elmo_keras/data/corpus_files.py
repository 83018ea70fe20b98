"""The text files of a streamed corpus: which files a pattern names, and their sentences read one line at a time.

A corpus is one or more files of one whitespace-tokenized sentence per line (bilm-tf's training-file format; tokens
separated as Python's ``str.split()`` separates them: any Unicode space), read by the rules of
``text.sentence_files``, blank lines skipped: UTF-8, ``.gz`` files read as gzip, lines ended as ``str.splitlines()``
ends them, a line that is not UTF-8 or longer than ``MAX_LINE_BYTES`` (1 MiB) an error naming the file and the
line. Nothing here holds more than one line of a file at a time.

- ``corpus_paths``: a glob, a path or a list of them → the sorted, de-duplicated list of files, or a clear error
  (nothing matched, a directory, a missing file).
- ``file_sentences``: one file's sentences as ``(line_number, tokens)``. A file loaded in memory (``train --corpus
  FILE``) is read through it too, so it gives the same tokens either way.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterator, Sequence

from elmo_keras.text.sentence_files import SentenceFileError, sentence_lines

# The error of a corpus file that cannot be read as sentences (not UTF-8, a line too long, a damaged .gz file), or of
# files that changed since a scan: the sentence files' error under the name the data package has always exported.
CorpusFileError = SentenceFileError


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


def file_sentences(path: str) -> Iterator[tuple[int, list[str]]]:
    """The sentences of one corpus file, in file order: ``(line_number, tokens)``, blank lines skipped.

    Args:
        path: a file of ``corpus_paths``.

    Yields:
        ``(line_number, tokens)``: the 1-based line number and the line's whitespace-separated tokens (non-empty).

    Raises:
        CorpusFileError: a line that is not UTF-8, a line over ``text.sentence_files.MAX_LINE_BYTES``, or a ``.gz``
            file that is not complete gzip: empty, not gzip, or truncated (each naming the file, and the line where
            there is one).
    """
    for number, line in sentence_lines(path, blank_lines="skip"):
        yield number, line.split()
