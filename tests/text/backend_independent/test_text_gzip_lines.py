"""Gzipped text files (elmo_keras/text/text_lines.py, read by text/conllu_files.py): read like the plain file,
damaged streams and over-large ones refused in one line naming the file."""

import gzip

import pytest

from elmo_keras.text import text_lines
from elmo_keras.text.conllu_files import read_conllu_sentences
from elmo_keras.text.text_lines import read_text_lines

# a multi-word token (2-3 = do + n't), an empty node (4.1), a missing xpos and a CRLF line end
CONLLU = (
    "# sent_id = s1\n# text = I don't know.\n"
    "1\tI\tI\tPRON\tPRP\t_\t4\tnsubj\t_\t_\n"
    "2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n"
    "2\tdo\tdo\tAUX\tVBP\t_\t4\taux\t_\t_\n"
    "3\tn't\tnot\tPART\tRB\t_\t4\tadvmod\t_\t_\n"
    "4\tknow\tknow\tVERB\tVB\t_\t0\troot\t_\t_\r\n"
    "4.1\tknows\tknow\tVERB\t_\t_\t_\t_\t4:conj\t_\n"
    "5\t.\t.\tPUNCT\t.\t_\t4\tpunct\t_\t_\n"
    "\n"
    "# sent_id = s2\n"
    "1\tZoë\tZoë\tPROPN\t_\t_\t0\troot\t_\t_\n"
)


def write_both(tmp_path, text: str):
    plain = tmp_path / "sample.conllu"
    plain.write_bytes(text.encode("utf-8"))
    packed = tmp_path / "sample.conllu.gz"
    packed.write_bytes(gzip.compress(text.encode("utf-8")))
    return plain, packed


def test_a_gzipped_conllu_file_reads_like_the_plain_one(tmp_path):
    plain, packed = write_both(tmp_path, CONLLU)
    assert read_text_lines(packed) == read_text_lines(plain)
    columns = ("upos", "xpos", "lemma")
    sentences = read_conllu_sentences(packed, columns, allow_missing=True)
    assert sentences == read_conllu_sentences(plain, columns, allow_missing=True)
    assert [s.tokens for s in sentences] == [["I", "do", "n't", "know", "."], ["Zoë"]]
    assert sentences[0].tags["xpos"] == ["PRP", "VBP", "RB", "VB", "."] and sentences[1].tags["xpos"] == ["_"]


def _truncated(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _corrupted(data: bytes) -> bytes:
    middle = len(data) // 2  # a byte of the deflate stream: bad data or a CRC mismatch at the end
    return data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1:]


def _not_gzip(data: bytes) -> bytes:
    return CONLLU.encode("utf-8")


@pytest.mark.parametrize("damage", [_truncated, _corrupted, _not_gzip])
def test_a_damaged_gzip_file_is_one_line_naming_it(tmp_path, damage):
    _, packed = write_both(tmp_path, CONLLU * 20)
    packed.write_bytes(damage(packed.read_bytes()))
    for read in (read_text_lines, read_conllu_sentences):
        with pytest.raises(ValueError) as error:
            read(packed)
        message = str(error.value)
        assert str(packed) in message and "not a readable gzip file" in message and "\n" not in message


def test_more_than_the_limit_once_decompressed_is_refused(tmp_path, monkeypatch):
    text = "word\n" * 1000
    _, packed = write_both(tmp_path, text)
    monkeypatch.setattr(text_lines, "MAX_DECOMPRESSED_BYTES", len(text))
    assert len(read_text_lines(packed)) == 1001  # exactly the limit: read
    monkeypatch.setattr(text_lines, "MAX_DECOMPRESSED_BYTES", len(text) - 1)
    with pytest.raises(ValueError) as error:
        read_text_lines(packed)
    message = str(error.value)
    assert str(packed) in message and "too large to read whole" in message and "\n" not in message


def test_a_gzip_bomb_is_refused_without_inflating_it_whole(tmp_path, monkeypatch):
    bomb = tmp_path / "bomb.conllu.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as handle:  # 16 MiB of zeros in about 16 KiB
        for _ in range(16):
            handle.write(bytes(2**20))
    assert bomb.stat().st_size < 2**15
    inflated = []
    real_open = gzip.open

    class CountingReader:
        def __init__(self, path, mode):
            self.handle = real_open(path, mode)

        def __enter__(self):
            return self

        def __exit__(self, *exception):
            return self.handle.__exit__(*exception)

        def read(self, size):
            chunk = self.handle.read(size)
            inflated.append(len(chunk))
            return chunk

    monkeypatch.setattr(gzip, "open", CountingReader)
    monkeypatch.setattr(text_lines, "MAX_DECOMPRESSED_BYTES", 2**20)
    with pytest.raises(ValueError, match="too large to read whole") as error:
        read_conllu_sentences(bomb)
    assert str(bomb) in str(error.value) and "\n" not in str(error.value)
    assert sum(inflated) <= 2**20 + text_lines._CHUNK  # stopped one chunk past the limit, not at 16 MiB
