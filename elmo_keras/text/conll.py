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

**CoNLL-U** (``read_conllu``): parsed by the ``conllu`` package. The tokens are the syntactic words, one tag per
word: a multi-word token's range line (``2-3 don't``) is replaced by its words (``2 do``, ``3 n't``), which must
follow it, each on its own line; a range whose words are missing or out of order is an error (its text would
be lost). Empty nodes (ids ``1.1``) are skipped.

Every error names the file and, where there is one, the 1-based line: ``ValueError`` for content (not UTF-8:
the byte offset too; too few columns; no sentences; malformed CoNLL-U; a missing tag),
``FileNotFoundError`` / ``IsADirectoryError`` for a path that is not a file.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import conllu
from conllu.exceptions import ParseException

PathLike = str | os.PathLike
COMMENT_PREFIX = "# "
CONLLU_MISSING = "_"  # CoNLL-U's "no value"
_COLUMN_SEPARATOR = re.compile(r"[\t ]+")
_LINE_END = re.compile(r"\r\n|\r|\n")
_LINE_END_BYTES = re.compile(rb"\r\n|\r|\n")


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
    for number, line in enumerate(_read_lines(path), start=1):
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


def read_conllu(path: PathLike, column: str = "upos",
                allow_missing: bool = False) -> list[tuple[list[str], list[str]]]:
    """The ``(tokens, tags)`` pairs of a CoNLL-U file: the ``form`` column and the ``column`` column.

    A multi-word token range (``2-3 don't``) gives way to its syntactic words (``do``, ``n't``), which must follow
    it; empty nodes (``1.1``) are skipped; blocks holding only comments (a CoNLL-U Plus ``# global.columns``
    line) are skipped too.

    Args:
        path: the file.
        column: the column holding the tags (``"upos"``, ``"xpos"``, ``"deprel"``, a CoNLL-U Plus column...).
            Defaults to ``"upos"``.
        allow_missing: if True, a missing value (``_``) is returned as the tag ``"_"``; if False it is an error.
            Defaults to False.

    Returns:
        One ``(tokens, tags)`` pair of equal-length string lists per sentence, in file order.

    Raises:
        FileNotFoundError, IsADirectoryError: ``path`` is not a file.
        ValueError: naming the file and line: not UTF-8, a line ``conllu`` cannot parse (the first such line of
            the sentence; the sentence's first line if no single line fails), a word without an integer id, a
            multi-word token range not followed by its words, a word without ``column`` or with a missing value
            (naming the sentence and the token), a
            ``column`` holding structured values (``feats``, ``head``), or no sentences.
    """
    if not isinstance(column, str) or not column:
        raise ValueError(f"column must be a CoNLL-U column name such as 'upos', received {column!r}")
    lines = _read_lines(path)
    blocks = _blocks(lines)
    examples = []
    parsed = conllu.parse_incr(io.StringIO("".join(line + "\n" for line in lines)))
    for index, block in enumerate(blocks):
        try:
            sentence = next(parsed)
        except ParseException as error:
            raise ValueError(f"{path} line {_failing_line(block)}: malformed CoNLL-U: {error}") from None
        word_lines = [number for number, line in block if not line.strip().startswith("#")]
        if word_lines:
            name = f"sentence {index + 1}" + (f" (sent_id = {sentence.metadata['sent_id']})"
                                              if "sent_id" in sentence.metadata else "")
            examples.append(_conllu_example(path, sentence, word_lines, name, column, allow_missing))
    if not examples:
        raise ValueError(f"{path}: no sentences (the file is empty or holds only comments and blank lines)")
    return examples


def _conllu_example(path: PathLike, sentence: conllu.TokenList, word_lines: list[int], name: str, column: str,
                    allow_missing: bool) -> tuple[list[str], list[str]]:
    """The forms and ``column`` values of one parsed sentence's syntactic words (token ``i`` is on
    ``word_lines[i]``)."""
    tokens, tags = [], []
    words = _MultiwordWords(path, name)
    for token, number in zip(sentence, word_lines):
        where = f"{path} line {number}: {name}, token {token.get('form')!r}"
        token_id = token.get("id")
        if isinstance(token_id, tuple) and len(token_id) == 3 and token_id[1] == "-":  # (2, "-", 3): a range
            words.open(token_id, token.get("form"), number)
            continue
        if isinstance(token_id, tuple):  # (1, ".", 1): an empty node
            continue
        if not isinstance(token_id, int):
            raise ValueError(f"{where}: the id must be an integer, a range 1-2 or an empty node 1.1")
        words.word(token_id)
        if column not in token:
            raise ValueError(f"{where}: no {column!r} column ({len(token)} columns on the line)")
        value = token[column]
        if value is None or value == CONLLU_MISSING:
            if not allow_missing:
                raise ValueError(f"{where}: the {column!r} value is missing ('_'); pass allow_missing=True "
                                 "to keep it as the tag '_'")
            value = CONLLU_MISSING
        if not isinstance(value, str):
            raise ValueError(f"{where}: column {column!r} holds {type(value).__name__} values, not tags")
        tokens.append(token["form"])
        tags.append(value)
    words.close()
    return tokens, tags


class _MultiwordWords:
    """Checks that each multi-word token range ``a-b`` of a sentence is followed by its words ``a, …, b``."""

    def __init__(self, path: PathLike, name: str):
        self.path, self.name = path, name
        self.expected: list[int] = []
        self.range = None  # (first, last, form, line) of the open range

    def open(self, token_id: tuple, form, number: int) -> None:
        self.close()
        first, _, last = token_id
        self.range = (first, last, form, number)
        self.expected = list(range(first, last + 1))
        if len(self.expected) < 2:
            self._fail(f"the range {first}-{last} must span at least two words")

    def word(self, token_id: int) -> None:
        if self.expected:
            if token_id != self.expected[0]:
                self._fail(f"found word {token_id} where word {self.expected[0]} must follow")
            self.expected.pop(0)

    def close(self) -> None:
        if self.expected:
            self._fail(f"word {self.expected[0]} is missing")

    def _fail(self, problem: str):
        first, last, form, number = self.range
        raise ValueError(f"{self.path} line {number}: {self.name}, multi-word token {first}-{last} {form!r} must be "
                         f"followed by its words {first} to {last}, one per line: {problem} (its text would be "
                         "lost)")


def _blocks(lines: list[str]) -> list[list[tuple[int, str]]]:
    """``(line number, line)`` groups separated by blank lines: exactly the sentences ``conllu`` yields."""
    blocks, current = [], []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            current.append((number, line))
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def _failing_line(block: list[tuple[int, str]]) -> int:
    """The first word line of ``block`` that ``conllu`` cannot parse on its own, else the block's first line.

    ``conllu``'s exceptions carry no line number, so each line is parsed again alone (with the default
    columns).
    """
    for number, line in block:
        if not line.strip().startswith("#"):
            try:
                conllu.parse_token_and_metadata(line.strip())
            except ParseException:
                return number
    return block[0][0]


def _comment(index: int, key: str, value: str) -> str:
    """One ``# key = value`` line, checked to read back as the same pair."""
    if not key or "=" in key or any(character.isspace() for character in key):
        raise ValueError(f"example {index}: metadata key {key!r} is empty or holds '=' or white space")
    if not isinstance(value, str) or "\n" in value or "\r" in value or value != value.strip():
        raise ValueError(f"example {index}: metadata value {value!r} for {key!r} must be a one-line str without "
                         "surrounding spaces")
    return f"{COMMENT_PREFIX}{key} = {value}\n"


def _read_lines(path: PathLike) -> list[str]:
    """The lines of a UTF-8 text file without line ends (``\\n``, ``\\r\\n`` or a lone ``\\r``: a file saved with
    old Mac line ends is not one long line); a leading BOM is dropped."""
    if os.path.isdir(path):
        raise IsADirectoryError(f"{os.fspath(path)} is a directory, not a tagged text file")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"tagged text file not found: {os.fspath(path)}")
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = len(_LINE_END_BYTES.split(data[: error.start]))
        raise ValueError(
            f"{os.fspath(path)} line {line}: not valid UTF-8 at byte offset {error.start} "
            f"(byte 0x{data[error.start]:02x}): {error.reason}"
        ) from None
    return split_lines(text)


def split_lines(text: str) -> list[str]:
    """``text`` cut at ``\\r\\n``, ``\\n`` and lone ``\\r`` line ends (only these), without them."""
    return _LINE_END.split(text)
