"""Uploaded TSV corpora: any field up to the upload limit parses, and no line layout gives a raw traceback."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elmo_keras.explorer.uploads import MAX_UPLOAD_BYTES, parse_corpus_upload

HEADER = "word\tsense\tsentence\n"


@pytest.mark.parametrize("column", ["sentence", "word", "sense"])
def test_a_tsv_field_over_128_kib_parses(column):
    """The ``csv`` module refuses a field over 128 KiB (``_csv.Error: field larger than field limit``)."""
    long = "x" * (200 * 1024)
    row = {"word": "bank", "sense": "money", "sentence": f"the bank {long}"}
    if column == "word":
        row.update(word=long, sentence=f"the bank {long}")
    elif column == "sense":
        row["sense"] = long
    data = (HEADER + "\t".join(row[c] for c in ("word", "sense", "sentence")) + "\n").encode()
    assert len(data) < MAX_UPLOAD_BYTES
    frame = parse_corpus_upload("big.tsv", data).frame
    assert len(frame) == 1 and frame.loc[0, column] == (row[column] if column != "word" else long)


def test_a_long_field_with_too_many_tokens_is_refused_naming_its_row():
    sentence = "the bank " + " ".join(["x"] * 50_000)
    with pytest.raises(ValueError, match=r"big\.tsv data row 1: the sentence has 50002 tokens; the limit is 100"):
        parse_corpus_upload("big.tsv", (HEADER + f"bank\tmoney\t{sentence}\n").encode())


def test_a_carriage_return_ends_a_line_as_in_plain_text():
    """``csv`` raised ``new-line character seen in unquoted field`` on a lone ``\\r``."""
    frame = parse_corpus_upload("mac.tsv", b"sentence\rthe bank is open\rturn right\r").frame
    assert list(frame["sentence"]) == ["the bank is open", "turn right"]


def test_blank_lines_before_the_header_keep_line_numbers_true():
    """The header is the first line with text (as ``_is_tsv`` finds it), not an empty first line."""
    frame = parse_corpus_upload("c.tsv", b"\n\nsentence\tword\tsense\nthe bank is here\tbank\tmoney\n").frame
    assert frame.loc[0, "word"] == "bank"
    with pytest.raises(ValueError, match=r"c\.tsv line 4: 4 fields but the header has 3"):
        parse_corpus_upload("c.tsv", b"\n\nsentence\tword\tsense\na\tb\tc\td\n")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(st.text(alphabet=st.sampled_from("ab bank\"'\r\n\\\x0b\x85\u2028,;"), max_size=12),
                         min_size=1, max_size=4), min_size=1, max_size=6))
def test_any_tsv_upload_parses_or_says_why_in_one_line(rows):
    text = HEADER + "\n".join("\t".join(fields) for fields in rows) + "\n"
    try:
        parse_corpus_upload("f.tsv", text.encode())
    except ValueError as error:
        assert "\n" not in str(error) and str(error).startswith("f.tsv")
