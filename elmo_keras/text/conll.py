"""Read and write tagged sentences: CoNLL-style column files and CoNLL-U.

**CoNLL-style files** (``read_conll``, ``read_conll_sentences``, ``write_conll``), UTF-8 (a leading byte-order
mark is dropped; ``\\n``, ``\\r\\n`` and lone ``\\r`` line ends, as every reader here reads them)::

    # id = 1
    # split = train
    New	B-LOC
    York	E-LOC
    is	O
    ...
                                  <- a blank line ends a sentence
    # id = 2
    ...

- a token line holds columns separated by tabs and/or spaces: the first column is the token, column
  ``tag_column`` (an index into the columns, ``-1`` = the last) is its tag, other columns are ignored. So
  ``token<TAB>tag`` files and CoNLL-2003 ``token POS chunk NER`` files both read. Tokens cannot contain spaces;
- a blank (or whitespace-only) line ends a sentence; several blank lines in a row are one break;
- a line starting with ``"# "`` is a comment. A comment ``# key = value`` is metadata of the sentence it
  precedes (``read_conll_sentences`` returns it); other comments, and comments after the last sentence, are
  ignored. A token ``#`` is still a token: ``#<TAB>SYM`` does not start with ``"# "``.

**CoNLL-U** (``read_conllu``, ``read_conllu_sentences``): in ``text.conllu_files``, re-exported here.

Every error names the file and, where there is one, the 1-based line: ``ValueError`` for content (not UTF-8:
the byte offset too; too few columns; no sentences), ``FileNotFoundError`` / ``IsADirectoryError`` for a path
that is not a file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from elmo_keras.text.conllu_files import ConlluSentence, read_conllu, read_conllu_sentences  # noqa: F401 (re-exported)
from elmo_keras.text.text_lines import PathLike, read_text_lines, split_lines  # noqa: F401 (split_lines re-exported)

COMMENT_PREFIX = "# "
_COLUMN_SEPARATOR = re.compile(r"[\t ]+")


class ConllSentence(NamedTuple):
    """One sentence of a CoNLL-style file, as ``read_conll_sentences`` returns it."""

    tokens: list[str]
    tags: list[str]
    metadata: dict[str, str]  # from the ``# key = value`` comments before (or inside) the sentence
    line: int  # 1-based line number of the sentence's first token


def read_conll(path: PathLike, tag_column: int = -1) -> list[tuple[list[str], list[str]]]:
    """The ``(tokens, tags)`` pairs of a CoNLL-style file, in file order (format: see the module docstring).

    Args:
        path: the file.
        tag_column: index of the tag among a line's columns (0 is the token, so it must not be 0; negative
            counts from the end). Defaults to -1, the last column.

    Returns:
        One ``(tokens, tags)`` pair of equal-length string lists per sentence.

    Raises:
        FileNotFoundError, IsADirectoryError: ``path`` is not a file.
        ValueError: naming the file (and line): not UTF-8, a line with too few columns, no sentences at all;
            or ``tag_column`` is 0 or not an integer.
    """
    return [(sentence.tokens, sentence.tags) for sentence in read_conll_sentences(path, tag_column)]


def read_conll_sentences(path: PathLike, tag_column: int = -1) -> list[ConllSentence]:
    """Like ``read_conll``, with each sentence's ``# key = value`` metadata and first line number.

    A key repeated within one sentence's comments is an error naming the line.

    Args:
        path, tag_column: as for ``read_conll``.

    Returns:
        One ``ConllSentence`` per sentence, in file order.

    Raises:
        FileNotFoundError, IsADirectoryError, ValueError: as for ``read_conll``, and a ``ValueError`` for a
            repeated metadata key.
    """
    if isinstance(tag_column, bool) or not isinstance(tag_column, int) or tag_column == 0:
        raise ValueError(f"tag_column must be a non-zero integer (column 0 is the token), received {tag_column!r}")
    min_columns = tag_column + 1 if tag_column > 0 else max(2, 1 - tag_column)
    sentences: list[ConllSentence] = []
    tokens: list[str] = []
    tags: list[str] = []
    metadata: dict[str, str] = {}
    first_line = 0
    for number, line in enumerate(read_text_lines(path, what="tagged text file"), start=1):
        if not line.strip():
            if tokens:
                sentences.append(ConllSentence(tokens, tags, metadata, first_line))
                tokens, tags, metadata = [], [], {}
        elif line.startswith(COMMENT_PREFIX):
            key, separator, value = line[len(COMMENT_PREFIX):].partition("=")
            if separator and key.strip():
                if key.strip() in metadata:
                    raise ValueError(f"{path} line {number}: comment key {key.strip()!r} repeated in one sentence")
                metadata[key.strip()] = value.strip()
        else:
            columns = _COLUMN_SEPARATOR.split(line.strip("\t "))
            if len(columns) < min_columns:
                raise ValueError(
                    f"{path} line {number}: {len(columns)} column(s), but a token line needs at least {min_columns} "
                    f"(the token and tag column {tag_column}): {line!r}"
                )
            if not tokens:
                first_line = number
            tokens.append(columns[0])
            tags.append(columns[tag_column])
    if tokens:
        sentences.append(ConllSentence(tokens, tags, metadata, first_line))
    if not sentences:
        raise ValueError(f"{path}: no sentences (the file is empty or holds only comments and blank lines)")
    return sentences


def write_conll(path: PathLike, examples: Sequence[tuple[Sequence[str], Sequence[str]]],
                metadata: Sequence[Mapping[str, str]] | None = None) -> None:
    """Write ``(tokens, tags)`` pairs as a CoNLL-style file that ``read_conll`` reads back unchanged.

    One ``token<TAB>tag`` line per token, a blank line between sentences, UTF-8 without a byte-order mark,
    ``\\n`` line ends. With ``metadata``, sentence ``i`` is preceded by one ``# key = value`` line per item of
    ``metadata[i]``, in its order.

    Args:
        path: the output file (replaced if it exists).
        examples: ``(tokens, tags)`` pairs of equal, non-zero length.
        metadata: None, or one mapping per example. Defaults to None.

    Raises:
        ValueError: before anything is written, naming the example: an empty sentence, unequal lengths, an empty
            token or tag, or one holding white space; a metadata key that is empty or holds ``=`` or white
            space, or a value with a line break or surrounding spaces; ``metadata`` of the wrong length.
    """
    if metadata is not None and len(metadata) != len(examples):
        raise ValueError(f"metadata has {len(metadata)} items for {len(examples)} examples")
    blocks = []
    for index, (tokens, tags) in enumerate(examples):
        if not tokens or len(tokens) != len(tags):
            raise ValueError(f"example {index}: {len(tokens)} tokens and {len(tags)} tags (need equal, non-zero)")
        for field in (*tokens, *tags):
            if not isinstance(field, str) or not field or any(character.isspace() for character in field):
                raise ValueError(f"example {index}: token or tag {field!r} is empty, not a str or holds white space")
        comments = [_comment(index, key, value) for key, value in (metadata[index] if metadata else {}).items()]
        blocks.append("".join(comments) + "".join(f"{token}\t{tag}\n" for token, tag in zip(tokens, tags)))
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write("\n".join(blocks))


def _comment(index: int, key: str, value: str) -> str:
    """One ``# key = value`` line, checked to read back as the same pair."""
    if not key or "=" in key or any(character.isspace() for character in key):
        raise ValueError(f"example {index}: metadata key {key!r} is empty or holds '=' or white space")
    if not isinstance(value, str) or "\n" in value or "\r" in value or value != value.strip():
        raise ValueError(f"example {index}: metadata value {value!r} for {key!r} must be a one-line str without "
                         "surrounding spaces")
    return f"{COMMENT_PREFIX}{key} = {value}\n"
