"""Read CoNLL-U files (Universal Dependencies), plain or gzipped, parsed by the ``conllu`` package.

The tokens are the syntactic words, one value per word and column: a multi-word token's range line
(``2-3 don't``) gives way to its words (``2 do``, ``3 n't``), which must follow it, each on its own line; a range
whose words are missing or out of order is an error (its text would be lost). Empty nodes (ids ``8.1``, enhanced
dependencies only) are skipped. Blocks holding only comments (a CoNLL-U Plus ``# global.columns`` line) are skipped
too. ``# key = value`` comments are the sentence's metadata (``sent_id``, ``text``).

Every error names the file and the 1-based line: ``ValueError`` for content (not UTF-8, malformed CoNLL-U, a word
without an integer id, a broken range, a missing value, a column of structured values, no sentences),
``FileNotFoundError`` / ``IsADirectoryError`` for a path that is not a file.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import NamedTuple

import conllu
from conllu.exceptions import ParseException

from elmo_keras.text.text_lines import PathLike, read_text_lines

CONLLU_MISSING = "_"  # CoNLL-U's "no value"


class ConlluSentence(NamedTuple):
    """One sentence of a CoNLL-U file, as ``read_conllu_sentences`` returns it."""

    tokens: list[str]  # the syntactic words' forms
    tags: dict[str, list[str]]  # column name → one value per token
    metadata: dict[str, str]  # the ``# key = value`` comments (``sent_id``, ``text``, ...)
    line: int  # 1-based line number of the sentence's first line


def read_conllu(path: PathLike, column: str = "upos",
                allow_missing: bool = False) -> list[tuple[list[str], list[str]]]:
    """The ``(tokens, tags)`` pairs of a CoNLL-U file: the ``form`` column and the ``column`` column.

    Args:
        path: the file (``.gz``: gzipped).
        column: the column holding the tags (``"upos"``, ``"xpos"``, ``"deprel"``, a CoNLL-U Plus column...).
            Defaults to ``"upos"``.
        allow_missing: if True, a missing value (``_``) is returned as the tag ``"_"``; if False it is an error.
            Defaults to False.

    Returns:
        One ``(tokens, tags)`` pair of equal-length string lists per sentence, in file order.

    Raises:
        As ``read_conllu_sentences``.
    """
    if not isinstance(column, str) or not column:
        raise ValueError(f"column must be a CoNLL-U column name such as 'upos', received {column!r}")
    return [(sentence.tokens, sentence.tags[column])
            for sentence in read_conllu_sentences(path, (column,), allow_missing)]


def read_conllu_sentences(path: PathLike, columns: Sequence[str] = ("upos",),
                          allow_missing: bool = False) -> list[ConlluSentence]:
    """Every sentence of a CoNLL-U file with its syntactic words, the values of ``columns`` and its metadata.

    Args:
        path: the file (``.gz``: gzipped).
        columns: the columns to return (``"upos"``, ``"xpos"``, ``"lemma"``, ``"deprel"``, a CoNLL-U Plus
            column...), each a column of plain values (not ``feats``, ``head`` or ``deps``).
        allow_missing: if True, a missing value (``_``) is returned as ``"_"``; if False it is an error.
            Defaults to False.

    Returns:
        One ``ConlluSentence`` per sentence, in file order.

    Raises:
        FileNotFoundError, IsADirectoryError: ``path`` is not a file.
        ValueError: naming the file and line: not UTF-8, a line ``conllu`` cannot parse (the first such line of
            the sentence; the sentence's first line if no single line fails), a word without an integer id, a
            multi-word token range not followed by its words, a word without a column or with a missing value
            (naming the sentence and the token), a column holding structured values (``feats``, ``head``), or no
            sentences; or ``columns`` is empty or holds something other than a column name.
    """
    if isinstance(columns, str) or not columns or not all(isinstance(c, str) and c for c in columns):
        raise ValueError(f"columns must be a non-empty list of CoNLL-U column names such as ['upos', 'xpos'], "
                         f"received {columns!r}")
    lines = read_text_lines(path, what="tagged text file")
    blocks = _blocks(lines)
    sentences = []
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
            tokens, tags = _words(path, sentence, word_lines, name, tuple(columns), allow_missing)
            sentences.append(ConlluSentence(tokens, tags, dict(sentence.metadata), block[0][0]))
    if not sentences:
        raise ValueError(f"{path}: no sentences (the file is empty or holds only comments and blank lines)")
    return sentences


def _words(path: PathLike, sentence: conllu.TokenList, word_lines: list[int], name: str, columns: tuple[str, ...],
           allow_missing: bool) -> tuple[list[str], dict[str, list[str]]]:
    """The forms and ``columns`` values of one parsed sentence's syntactic words (token ``i`` is on
    ``word_lines[i]``)."""
    tokens: list[str] = []
    tags: dict[str, list[str]] = {column: [] for column in columns}
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
        for column in columns:
            tags[column].append(_value(token, column, where, allow_missing))
        tokens.append(token["form"])
    words.close()
    return tokens, tags


def _value(token, column: str, where: str, allow_missing: bool) -> str:
    """One word's value in ``column``, checked."""
    if column not in token:
        raise ValueError(f"{where}: no {column!r} column ({len(token)} columns on the line)")
    value = token[column]
    if value is None or value == CONLLU_MISSING:
        if not allow_missing:
            raise ValueError(f"{where}: the {column!r} value is missing ('_'); pass allow_missing=True "
                             "to keep it as the tag '_'")
        return CONLLU_MISSING
    if not isinstance(value, str):
        raise ValueError(f"{where}: column {column!r} holds {type(value).__name__} values, not tags")
    return value


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
