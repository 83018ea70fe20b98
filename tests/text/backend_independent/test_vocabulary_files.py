"""bilm-tf's vocabulary file format: written with <S>, </S>, <UNK> first and read back equal, ids mapped as the
module says, written in one rename, malformed files refused naming the line, bilm-tf's own test file read."""

from __future__ import annotations

import os

import pytest

from elmo_keras.text.vocabulary import BOS_ID, EOS_ID, UNK_ID, Vocabulary
from elmo_keras.text.vocabulary_files import (
    BILM_SPECIAL_TOKENS,
    VocabularyFileError,
    read_bilm_vocabulary,
    write_bilm_vocabulary,
)

SENTENCES = [["the", "bank", "is", "closed", "."], ["the", "river", "bank", "."], ["Über", "café", "."]]


def bilm_tf_ids(path):
    """bilm-tf's ``Vocabulary`` reading rule (bilm/data.py): a token's id is its line index, lines stripped,
    ``!!!MAXTERMID`` skipped."""
    with open(path, encoding="utf-8") as handle:
        lines = [line.strip() for line in handle if line.strip() != "!!!MAXTERMID"]
    return {token: index for index, token in enumerate(lines)}


def test_round_trip_and_the_id_mapping_to_bilm_tf(tmp_path):
    vocabulary = Vocabulary.from_corpus(SENTENCES)
    path = tmp_path / "vocab.txt"
    write_bilm_vocabulary(vocabulary, path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[:3] == ["<S>", "</S>", "<UNK>"] == list(BILM_SPECIAL_TOKENS)
    assert lines[3:] == vocabulary.tokens[4:]  # most frequent first, as bilm-tf's README asks
    assert read_bilm_vocabulary(path) == vocabulary
    assert read_bilm_vocabulary(path, require_special_tokens=True) == vocabulary
    theirs = bilm_tf_ids(path)
    assert (theirs["<S>"], theirs["</S>"], theirs["<UNK>"]) == (BOS_ID - 2, EOS_ID - 2, UNK_ID + 1)
    assert all(theirs[token] == ours - 1 for ours, token in enumerate(vocabulary.tokens) if ours >= 4)
    lowercase = Vocabulary.from_corpus(SENTENCES, lowercase=True)
    write_bilm_vocabulary(lowercase, path)
    assert read_bilm_vocabulary(path, lowercase=True) == lowercase


def test_specials_anywhere_and_the_skipped_line_are_read_as_bilm_tf_reads_them(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_bytes("\ufeffthe\r\n  bank \n<UNK>\n</S>\n!!!MAXTERMID\ncafé\n<S>\n".encode())
    vocabulary = read_bilm_vocabulary(path, require_special_tokens=True)
    assert vocabulary.tokens == ["<pad>", "<unk>", "<S>", "</S>", "the", "bank", "café"]


def test_writing_replaces_the_file_in_one_step_and_refuses_tokens_the_format_cannot_hold(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("previous contents\n", encoding="utf-8")
    for token in ["two words", "<UNK>", "!!!MAXTERMID", "tab\there"]:
        with pytest.raises(VocabularyFileError, match="bilm-tf"):
            write_bilm_vocabulary(Vocabulary(["fine", token]), path)
    assert path.read_text(encoding="utf-8") == "previous contents\n"
    write_bilm_vocabulary(Vocabulary(["fine"]), path)
    assert path.read_text(encoding="utf-8") == "<S>\n</S>\n<UNK>\nfine\n"
    assert os.listdir(tmp_path) == ["vocab.txt"]  # no temporary file left behind


def test_a_written_file_has_the_permissions_of_any_new_file(tmp_path):
    from elmo_keras.safe_files import new_file_mode

    write_bilm_vocabulary(Vocabulary(["fine"]), tmp_path / "vocab.txt")
    assert (tmp_path / "vocab.txt").stat().st_mode & 0o777 == new_file_mode()  # not mkstemp's 0600


@pytest.mark.parametrize("contents, kwargs, message", [
    (b"<S>\n</S>\n<UNK>\nthe\n\nbank\n", {}, r"line 5: blank"),
    (b"the\nbank\nthe\n", {}, r"line 3: 'the' repeats line 1"),
    (b"the\ntwo words\n", {}, r"line 2: 'two words' holds whitespace"),
    (b"the\ncaf\xe9\n", {}, r"line 2: not UTF-8"),
    (b"the\n<unk>\n", {}, r"line 2: '<unk>' is elmo_keras's own special token .* is '<UNK>'"),
    (b"the\nBank\n", {"lowercase": True}, r"line 2: 'Bank' has capitals"),
    (b"<S>\n</S>\nthe\n", {"require_special_tokens": True}, r"lacks <UNK>; bilm-tf trains only with"),
])
def test_malformed_files_are_refused_naming_the_line(tmp_path, contents, kwargs, message):
    path = tmp_path / "vocab.txt"
    path.write_bytes(contents)
    with pytest.raises(VocabularyFileError, match=r"vocab\.txt(, | )" + message):
        read_bilm_vocabulary(path, **kwargs)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"vocabulary file not found: .*absent\.txt"):
        read_bilm_vocabulary(tmp_path / "absent.txt")


def test_bilm_tf_test_vocabulary_file(shared_fixtures):
    """bilm-tf's own test vocabulary: <S> on line 208, </S> on line 258, no <UNK> (an embedding vocabulary)."""
    path = shared_fixtures / "elmo_bilm_tf" / "vocab_test.txt"
    lines = path.read_text(encoding="utf-8").splitlines()
    vocabulary = read_bilm_vocabulary(path)
    assert (lines.index("<S>"), lines.index("</S>"), "<UNK>" in lines) == (207, 257, False)
    assert vocabulary.tokens[4:] == [line for line in lines if line not in ("<S>", "</S>")]
    assert len(vocabulary) == len(lines) - 2 + 4
    with pytest.raises(VocabularyFileError, match="lacks <UNK>"):
        read_bilm_vocabulary(path, require_special_tokens=True)
