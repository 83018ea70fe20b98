"""The one reader of files of one sentence per line (``text.sentence_files``): line ends, blank lines (skipped or
refused), a byte-order mark, gzip, and errors naming the file and the line."""

import gzip
import pathlib
import tempfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elmo_keras.text.sentence_files import MAX_LINE_BYTES, SentenceFileError, sentence_lines

MIXED = "\ufeff a  b \r\nc\rd\u2028e\x85f\n\n  \t\ng\n".encode()  # lines 1-5 hold sentences, 6 and 7 are blank


def read(path, blank_lines="skip"):
    return list(sentence_lines(path, blank_lines=blank_lines))


def test_lines_end_as_str_splitlines_ends_them_and_come_stripped(tmp_path):
    path = tmp_path / "mixed.txt"
    path.write_bytes(MIXED)
    expected = [(1, "a  b"), (2, "c"), (3, "d"), (4, "e"), (5, "f"), (8, "g")]
    assert read(path) == read(str(path)) == expected
    zipped = tmp_path / "mixed.txt.gz"
    zipped.write_bytes(gzip.compress(MIXED))
    assert read(zipped) == expected  # a .gz file is read as gzip


def test_blank_lines_are_skipped_or_refused_as_the_caller_says(tmp_path):
    path = tmp_path / "mixed.txt"
    path.write_bytes(MIXED)
    lines = sentence_lines(path, blank_lines="refuse")
    assert [next(lines) for _ in range(5)] == [(1, "a  b"), (2, "c"), (3, "d"), (4, "e"), (5, "f")]
    with pytest.raises(SentenceFileError, match=r"mixed\.txt, line 6 is blank; every line must hold one sentence$"):
        next(lines)
    with pytest.raises(ValueError, match=r"blank_lines must be one of \('skip', 'refuse'\), received 'keep'"):
        sentence_lines(tmp_path / "not read.txt", blank_lines="keep")  # refused at the call, before any reading
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"\xef\xbb\xbf")  # a byte-order mark alone: no line (what that means is the caller's)
    assert read(empty) == read(empty, "refuse") == []


def test_bytes_that_are_not_utf8_are_named_by_file_and_line(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"first\rsecond\ncaf\xe9 au lait\n")  # line 3: after a lone \r
    message = (r"latin1\.txt, line 3: not UTF-8 \(invalid continuation byte at byte 3 of the line: b'caf\\xe9 au lait"
               r"\\n'\); convert the file to UTF-8")
    for rule in ("skip", "refuse"):
        with pytest.raises(SentenceFileError, match=message):
            read(path, rule)


def test_an_overlong_line_is_refused_before_it_is_decoded(tmp_path):
    path = tmp_path / "long.txt"
    path.write_bytes(b"ok\n" + b"\xff" * (MAX_LINE_BYTES + 1))
    with pytest.raises(SentenceFileError, match=r"long\.txt, line 2: longer than 1,048,576 bytes; a sentence file "
                                                r"holds one sentence per line"):
        read(path)


def test_a_damaged_gzip_file_is_named(tmp_path):
    path = tmp_path / "shard.txt.gz"
    path.write_bytes(gzip.compress(b"one\ntwo\n" * 50_000)[:-30])
    with pytest.raises(SentenceFileError, match=r"shard\.txt\.gz, line \d+: not a complete gzip file .*gzip -t"):
        read(path)


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="ab é\t\r\n\x0c\x85\u2028", max_size=60))
def test_a_file_gives_the_lines_of_its_text_read_whole(text):
    with tempfile.TemporaryDirectory() as directory:
        path = pathlib.Path(directory) / "text.txt"
        path.write_bytes(text.encode())
        expected = [(number, line.strip()) for number, line in enumerate(text.splitlines(), start=1) if line.strip()]
        assert read(path) == expected
