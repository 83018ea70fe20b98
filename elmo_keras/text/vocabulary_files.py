"""bilm-tf's vocabulary file format, read into and written from our ``Vocabulary``.

The format (bilm-tf ``bilm/data.py``, ``Vocabulary``): a UTF-8 text file, one token per line, each line
``str.strip()``-ed; a token's id is its line index (a line ``!!!MAXTERMID`` is skipped and takes no id). The
special tokens are ``<S>``, ``</S>`` and ``<UNK>`` (case-sensitive). For **training**, bilm-tf requires all three
(``load_vocab`` reads with ``validate_file=True``) and its README asks for them on the first three lines, followed by
the corpus tokens most frequent first; a vocabulary used only to embed text may leave ``<UNK>`` out and put the
specials anywhere (bilm-tf's own test vocabulary, ``tests/fixtures/model/vocab_test.txt``, has ``<S>`` on line
208, ``</S>`` on line 258 and no ``<UNK>``).

Our ``Vocabulary`` has four fixed ids before the corpus tokens; the mapping between the two is by token:

- ``<pad>`` (our id 0): not written (bilm-tf has no padding token; its batches mask with id 0 after adding 1);
- ``<unk>`` (1) ⇄ ``<UNK>``: written on line 3 (bilm-tf id 2); read from wherever it is, or absent;
- ``<S>`` (2) ⇄ ``<S>``: line 1 (bilm-tf id 0); ``</S>`` (3) ⇄ ``</S>``: line 2 (bilm-tf id 1);
- a corpus token of id ``i`` ≥ 4 is written on line ``i`` (bilm-tf id ``i − 1``); read back, the non-special lines
  take ids 4, 5, … in file order.

So a file we write is one bilm-tf trains with, and reading it back gives an equal ``Vocabulary`` (lowercase is not
stored in the format: say it when reading). Reading refuses what bilm-tf would silently get wrong: a blank line (it
would become the token ``""``), a token with whitespace inside (no whitespace-split corpus can contain it), a
repeated token (bilm-tf keeps the later id), and our own ``<pad>``/``<unk>`` as ordinary tokens.
"""

from __future__ import annotations

import os

from elmo_keras.safe_files import replace_file
from elmo_keras.text.char_ids import BOS_TOKEN, EOS_TOKEN
from elmo_keras.text.vocabulary import PAD_TOKEN, SPECIAL_TOKENS, UNK_TOKEN, Vocabulary

BILM_UNK_TOKEN = "<UNK>"
BILM_SPECIAL_TOKENS = (BOS_TOKEN, EOS_TOKEN, BILM_UNK_TOKEN)  # bilm-tf's first three lines, ids 0, 1, 2
BILM_SKIPPED_LINE = "!!!MAXTERMID"  # bilm-tf skips this line (a marker some vocabulary dumps end with)


class VocabularyFileError(ValueError):
    """A bilm-tf vocabulary file that cannot be read, or a vocabulary that cannot be written in the format."""


def bilm_vocabulary_lines(vocabulary: Vocabulary) -> list[str]:
    """The lines ``write_bilm_vocabulary`` writes: ``<S>``, ``</S>``, ``<UNK>``, then the corpus tokens in id order.

    Raises:
        VocabularyFileError: a token holds whitespace, or is one of bilm-tf's special tokens or ``!!!MAXTERMID``
            (the file could not be read back as the same vocabulary).
    """
    corpus_tokens = vocabulary.tokens[len(SPECIAL_TOKENS):]
    for token in corpus_tokens:
        if token in BILM_SPECIAL_TOKENS or token == BILM_SKIPPED_LINE:
            raise VocabularyFileError(f"the vocabulary holds {token!r} as a corpus token, but it is special in "
                                      "bilm-tf's format; rename or drop it before writing")
        if len(token.split()) != 1 or token.strip() != token:
            raise VocabularyFileError(f"the vocabulary token {token!r} holds whitespace, which bilm-tf's one-token-"
                                      "per-line format cannot store")
    return [*BILM_SPECIAL_TOKENS, *corpus_tokens]


def write_bilm_vocabulary(vocabulary: Vocabulary, path: str | os.PathLike) -> None:
    """Write ``vocabulary`` as a bilm-tf vocabulary file (module docstring), replacing ``path`` in one rename.

    A reader never sees a half-written file: the lines go to a temporary file in the same directory, which then
    replaces ``path``; if anything fails, a previous file at ``path`` stays as it was.

    Raises:
        VocabularyFileError: a token the format cannot store (``bilm_vocabulary_lines``).
        OSError: the directory cannot be written.
    """
    text = bilm_vocabulary_bytes(vocabulary)
    replace_file(path, lambda handle: handle.write(text))


def bilm_vocabulary_bytes(vocabulary: Vocabulary) -> bytes:
    """The whole file ``write_bilm_vocabulary`` writes: ``bilm_vocabulary_lines``, each ended by ``\\n``, UTF-8.

    Raises:
        VocabularyFileError: as ``bilm_vocabulary_lines``.
    """
    return "".join(f"{line}\n" for line in bilm_vocabulary_lines(vocabulary)).encode("utf-8")


def read_bilm_vocabulary(path: str | os.PathLike, lowercase: bool = False,
                         require_special_tokens: bool = False) -> Vocabulary:
    """The ``Vocabulary`` of a bilm-tf vocabulary file: its corpus tokens in file order after our four specials.

    Args:
        path: the file.
        lowercase: bool, the vocabulary lowercases lookups (every token in the file must then be lowercase).
            Defaults to False.
        require_special_tokens: bool, refuse a file without ``<S>``, ``</S>`` and ``<UNK>`` (what bilm-tf
            requires to train). Defaults to False (a vocabulary to embed with may lack them).

    Raises:
        FileNotFoundError: no such file.
        VocabularyFileError: not UTF-8, a blank line, a token with whitespace inside, a repeated token, our
            ``<pad>``/``<unk>`` as a token, capitals in a lowercase vocabulary, or (when required) a missing
            special token; each naming the file and the line.
    """
    path = os.fspath(path)
    tokens, first_line, specials_seen = [], {}, set()
    try:
        with open(path, "rb") as handle:
            for number, raw in enumerate(handle, start=1):
                token = _line_token(raw, path, number)
                if token == BILM_SKIPPED_LINE:
                    continue
                if token in first_line:
                    raise VocabularyFileError(f"{path}, line {number}: {token!r} repeats line {first_line[token]}")
                first_line[token] = number
                if token in BILM_SPECIAL_TOKENS:
                    specials_seen.add(token)
                elif token in (PAD_TOKEN, UNK_TOKEN):
                    raise VocabularyFileError(
                        f"{path}, line {number}: {token!r} is elmo_keras's own special token and cannot be a corpus "
                        f"token; bilm-tf's unknown-word token is {BILM_UNK_TOKEN!r}")
                elif lowercase and token != token.lower():
                    raise VocabularyFileError(f"{path}, line {number}: {token!r} has capitals, but the vocabulary "
                                              "is read as lowercase (pass lowercase=False)")
                else:
                    tokens.append(token)
    except FileNotFoundError:
        raise FileNotFoundError(f"vocabulary file not found: {path}") from None
    missing = [token for token in BILM_SPECIAL_TOKENS if token not in specials_seen]
    if require_special_tokens and missing:
        raise VocabularyFileError(f"{path} lacks {', '.join(missing)}; bilm-tf trains only with <S>, </S> and "
                                  "<UNK> in the vocabulary file (write it with write_bilm_vocabulary)")
    vocabulary = Vocabulary(tokens, lowercase=lowercase)
    vocabulary.source = path
    return vocabulary


def _line_token(raw: bytes, path: str, number: int) -> str:
    """The token on one line (stripped, as bilm-tf strips it), or a ``VocabularyFileError`` naming the line."""
    try:
        token = raw.decode("utf-8").strip()
    except UnicodeDecodeError as error:
        raise VocabularyFileError(f"{path}, line {number}: not UTF-8 ({error.reason} at byte {error.start})") from None
    if number == 1:
        token = token.removeprefix("\ufeff")  # a byte-order mark
    if not token:
        raise VocabularyFileError(f"{path}, line {number}: blank; a bilm-tf vocabulary file has one token per line "
                                  "(bilm-tf would read the blank line as the token '')")
    if len(token.split()) != 1:
        raise VocabularyFileError(f"{path}, line {number}: {token!r} holds whitespace; one token per line")
    return token
