"""Uploaded corpus files: accepted formats and every refusal, each with a message for the user."""

from __future__ import annotations

import pytest

from elmo_keras.explorer.uploads import MAX_SENTENCES, MAX_UPLOAD_BYTES, parse_corpus_upload


def test_plain_text_one_sentence_per_line():
    upload = parse_corpus_upload("c.txt", "I went to the bank.\n\n  We play chess .  \nNothing here\n".encode())
    frame = upload.frame
    assert upload.warnings == []
    assert list(frame["sentence"]) == ["I went to the bank.", "We play chess .", "Nothing here"]
    assert set(frame["split"]) == {"train"} and set(frame["word"]) == {""}  # unlabelled
    assert list(frame["tokens"][0]) == ["I", "went", "to", "the", "bank", "."]


def test_a_byte_order_mark_and_windows_line_ends_are_fine():
    frame = parse_corpus_upload("c.txt", "\ufeffThe bank is open.\r\nTurn right here.\r\n".encode()).frame
    assert list(frame["sentence"]) == ["The bank is open.", "Turn right here."]


def test_tsv_with_the_corpus_columns():
    data = ("word\tsense\tsentence\tsplit\tpos\n"
            "bank\triver\tWe sat on the bank .\theldout\tPRON VERB ADP DET NOUN PUNCT\n"
            "\t\tA filler line .\ttrain\t\n").encode()
    upload = parse_corpus_upload("c.tsv", data)
    frame = upload.frame
    assert upload.warnings == []
    assert list(frame["word"]) == ["bank", ""] and list(frame["sense"]) == ["river", ""]
    assert list(frame["target_index"]) == [4, -1] and list(frame["split"]) == ["heldout", "train"]
    assert list(frame["pos"][0]) == ["PRON", "VERB", "ADP", "DET", "NOUN", "PUNCT"] and list(frame["pos"][1]) == []


@pytest.mark.parametrize("header", ["sentence", "Sentence ", "sentence\t"])
def test_a_one_column_tsv_does_not_keep_its_header_as_a_sentence(header):
    upload = parse_corpus_upload("c.tsv", f"{header}\nThe bank is open .\nTurn right here .\n".encode())
    assert list(upload.frame["sentence"]) == ["The bank is open .", "Turn right here ."] and upload.warnings == []
    text = parse_corpus_upload("c.txt", b"Sentence\nThe bank is open .\n")  # plain text may start with the word
    assert list(text.frame["sentence"]) == ["Sentence", "The bank is open ."]


@pytest.mark.parametrize(("columns", "row", "present", "missing"), [
    ("sense\tsentence", "money\tThe bank is open .", "sense", "word"),
    ("word\tsentence", "bank\tThe bank is open .", "word", "sense"),
])
def test_a_tsv_with_half_a_label_says_the_labels_were_dropped(columns, row, present, missing):
    upload = parse_corpus_upload("c.tsv", f"{columns}\n{row}\n".encode())
    assert set(upload.frame["word"]) == {""} and set(upload.frame["sense"]) == {""}
    assert upload.warnings == [f"c.tsv has a `{present}` column but no `{missing}` column, so its labels were "
                               "dropped and every sentence is unlabelled: a sense label needs both the word and its "
                               "sense."]


def test_rows_with_half_a_label_are_named():
    rows = "".join(f"bank\t\tThe bank {i} .\n" for i in range(6)) + "bank\tmoney\tThe bank .\n\tmoney\tA bank .\n"
    upload = parse_corpus_upload("c.tsv", f"word\tsense\tsentence\n{rows}".encode())
    assert list(upload.frame["word"]) == [""] * 6 + ["bank", ""]
    assert upload.warnings == ["c.tsv: 7 data rows (1, 2, 3, 4, 5, …) give a word without a sense or a sense without "
                               "a word; such rows count as unlabelled."]
    one = parse_corpus_upload("c.tsv", b"word\tsense\tsentence\nbank\t\tThe bank .\n")
    assert one.warnings == ["c.tsv: data row 1 gives a word without a sense or a sense without a word; such rows count "
                            "as unlabelled."]


@pytest.mark.parametrize(("data", "message"), [
    (b"", "is empty"),
    (b"  \n\t\n", "only white space"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
    ("bank".encode("utf-16"), "binary"),  # UTF-16 has NUL bytes
    ("the bank café\n".encode("latin-1"), "not UTF-8 text: byte 0xe9 at line 1"),
    (b"the bank \x01\x02\x03\x04\x05\x06\x07\x08", "control characters"),
    (b"no target word here\nnor here\n", "no sentence contains a target word"),
    (b"word\tsense\tsentence\nbank\tmoney\tThe river is wide .\n",
     "data row 1: the sentence does not contain the word 'bank'"),
    (b"word\tsense\tsentence\tsplit\nbank\tmoney\tThe bank .\tdev\n", "split must be one of"),
    (b"sentence\tpos\nThe bank .\tDET NOUN\n", "2 POS tags for 3 tokens"),
    (b"sentence\tcolour\nThe bank .\tred\n", "unknown TSV column"),
    (b"sentence\tword\nThe bank .\tbank\textra\n", "3 fields but the header has 2"),
    (b"sentence\tword\n", "has a header but no sentences"),
    (("bank " * 101).encode(), "the limit is 100"),
])
def test_bad_uploads_are_refused_with_a_clear_message(data, message):
    with pytest.raises(ValueError, match=message):
        parse_corpus_upload("bad.txt" if b"\t" not in data else "bad.tsv", data)


def test_files_over_5_mb_are_refused_before_decoding():
    with pytest.raises(ValueError, match=r"bad.txt is 5.0 MB; the limit is 5.0 MB"):
        parse_corpus_upload("bad.txt", b"a" * (MAX_UPLOAD_BYTES + 1))


def test_too_many_sentences():
    with pytest.raises(ValueError, match=f"the limit is {MAX_SENTENCES}"):
        parse_corpus_upload("big.txt", b"the bank\n" * (MAX_SENTENCES + 1))


def test_not_bytes():
    with pytest.raises(ValueError, match="expected the file's bytes"):
        parse_corpus_upload("x.txt", "the bank")
