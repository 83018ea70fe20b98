"""Tokenizer, Vocabulary and ELMo character ids (exact arrays for the original bilm-tf/AllenNLP scheme)."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import elmo_keras
from elmo_keras.text import (
    BEGIN_OF_SENTENCE_CHAR,
    BEGIN_OF_WORD_CHAR,
    BOS_ID,
    END_OF_SENTENCE_CHAR,
    END_OF_WORD_CHAR,
    EOS_ID,
    MAX_CHARS_PER_TOKEN,
    PAD_ID,
    PADDING_CHAR,
    UNK_ID,
    Vocabulary,
    batch_to_ids,
    token_to_char_ids,
    tokenize,
)

# --- tokenizer -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "text, expected",
    [
        ("I sat on the river bank.", ["I", "sat", "on", "the", "river", "bank", "."]),
        ("Don't turn right, turn left!", ["Don't", "turn", "right", ",", "turn", "left", "!"]),
        ("It costs $3.50 (or 1,000 yen).", ["It", "costs", "$", "3.50", "(", "or", "1,000", "yen", ")", "."]),
        ("a well-known \"play\"", ["a", "well-known", '"', "play", '"']),
        ("  ", []),
        ("", []),
        ("東京 🙂ok", ["東京", "🙂", "ok"]),
    ],
)
def test_tokenize_rules(text, expected):
    assert tokenize(text) == expected


def test_tokenize_rejects_non_str():
    with pytest.raises(TypeError, match="expects a str"):
        tokenize(["already", "tokens"])


@given(st.text())
@settings(max_examples=200, deadline=None)
def test_tokenize_keeps_every_non_space_character(text):
    tokens = tokenize(text)
    assert "".join(tokens) == "".join(text.split())
    assert all(token and not any(ch.isspace() for ch in token) for token in tokens)


# --- character ids ---------------------------------------------------------------------------------------------

def test_char_id_constants_match_original_scheme_plus_one():
    assert (BEGIN_OF_SENTENCE_CHAR, END_OF_SENTENCE_CHAR) == (257, 258)
    assert (BEGIN_OF_WORD_CHAR, END_OF_WORD_CHAR, PADDING_CHAR) == (259, 260, 261)
    assert MAX_CHARS_PER_TOKEN == 50


def _row(*ids):
    return np.array(list(ids) + [261] * (50 - len(ids)), dtype=np.int32)


def test_ascii_token_exact_row():
    np.testing.assert_array_equal(token_to_char_ids("bank"), _row(259, 99, 98, 111, 108, 260))


def test_non_ascii_token_is_utf8_bytes_plus_one():
    # "é" = C3 A9, "€" = E2 82 AC
    np.testing.assert_array_equal(token_to_char_ids("é€"),
                                  _row(259, 0xC3 + 1, 0xA9 + 1, 0xE2 + 1, 0x82 + 1, 0xAC + 1, 260))


def test_58_byte_token_is_cut_to_48_bytes():
    token = "abcdefghij" * 5 + "klmnopqr"  # 58 bytes
    expected = np.array([259] + [b + 1 for b in token.encode()[:48]] + [260], dtype=np.int32)
    np.testing.assert_array_equal(token_to_char_ids(token), expected)


def test_sentence_boundary_tokens():
    np.testing.assert_array_equal(token_to_char_ids("<S>"), _row(259, 257, 260))
    np.testing.assert_array_equal(token_to_char_ids("</S>"), _row(259, 258, 260))


def test_lone_surrogates_are_dropped():
    np.testing.assert_array_equal(token_to_char_ids("a\ud800b"), token_to_char_ids("ab"))


def test_batch_to_ids_shape_and_padding_rows():
    ids = batch_to_ids([["The", "bank"], ["A", "river", "bank", "."]])
    assert ids.dtype == np.int32 and ids.shape == (2, 4, 50)
    np.testing.assert_array_equal(ids[0, 2:], 0)
    np.testing.assert_array_equal(ids[0, 1], token_to_char_ids("bank"))
    assert (ids[1] > 0).any(axis=-1).all()


@pytest.mark.parametrize(
    "bad, error, match",
    [
        ([], ValueError, "sentences has no sentences"),
        ([["ok"], []], ValueError, "sentence 1 is empty"),
        (["not tokenized"], TypeError, "tokenize it first"),
        ("not tokenized", TypeError, "must be a list of token lists, received the str"),
        ([["ok", ""]], ValueError, "sentence 0, token 1: token is empty"),
        ([["\ud800"]], ValueError, "no UTF-8-encodable"),
        ([["ok", 3]], TypeError, "sentence 0, token 1"),
    ],
)
def test_batch_to_ids_bad_input(bad, error, match):
    with pytest.raises(error, match=match):
        batch_to_ids(bad)


@given(st.text(max_size=1000))
@settings(max_examples=300, deadline=None)
def test_any_unicode_token_gives_valid_row_or_value_error(token):
    try:
        row = token_to_char_ids(token)
    except ValueError as error:
        assert "token" in str(error)
        assert token.encode("utf-8", "ignore") == b""
        return
    assert row.shape == (MAX_CHARS_PER_TOKEN,) and row.dtype == np.int32
    assert row[0] == BEGIN_OF_WORD_CHAR
    assert 1 <= row.min() and row.max() <= PADDING_CHAR
    if token in ("<S>", "</S>"):
        return
    n_bytes = min(len(token.encode("utf-8", "ignore")), 48)
    assert row[n_bytes + 1] == END_OF_WORD_CHAR
    assert (row[1 : n_bytes + 1] <= 256).all()
    assert (row[n_bytes + 2 :] == PADDING_CHAR).all()


@given(st.lists(st.lists(st.text(min_size=1, max_size=60).filter(lambda t: t.encode("utf-8", "ignore")),
                         min_size=1, max_size=6),
                min_size=1, max_size=4))
@settings(max_examples=100, deadline=None)
def test_batch_to_ids_rows_match_token_rows(sentences):
    ids = batch_to_ids(sentences)
    assert ids.shape == (len(sentences), max(map(len, sentences)), MAX_CHARS_PER_TOKEN)
    for i, sentence in enumerate(sentences):
        for j, token in enumerate(sentence):
            np.testing.assert_array_equal(ids[i, j], token_to_char_ids(token))
        assert (ids[i, len(sentence) :] == 0).all()


# --- vocabulary ------------------------------------------------------------------------------------------------

def test_vocabulary_special_ids_and_lookup():
    vocab = Vocabulary.from_corpus(["the bank . the bank", "the river"], min_count=2)
    assert (PAD_ID, UNK_ID, BOS_ID, EOS_ID) == (0, 1, 2, 3)
    assert vocab.tokens[:4] == ["<pad>", "<unk>", "<S>", "</S>"]
    assert vocab.tokens[4:] == ["the", "bank"]  # most frequent first; "." and "river" under min_count
    assert vocab.token_to_id("river") == UNK_ID
    assert vocab.id_to_token(vocab.token_to_id("bank")) == "bank"
    assert vocab.encode(["the", "zebra"]) == [4, UNK_ID]
    assert vocab.ids_to_tokens([2, 4, 3]) == ["<S>", "the", "</S>"]
    with pytest.raises(IndexError, match="outside the vocabulary"):
        vocab.id_to_token(len(vocab))


def test_vocabulary_lowercase():
    vocab = Vocabulary.from_corpus(["The Bank", "the bank"], lowercase=True)
    assert len(vocab) == 6 and vocab.token_to_id("BANK") == vocab.token_to_id("bank")
    assert vocab.token_to_id("<S>") == BOS_ID


def test_vocabulary_json_round_trip(tmp_path):
    vocab = Vocabulary.from_corpus([["Café", "bank", "🙂"], ["bank"]])
    path = tmp_path / "vocab.json"
    vocab.save(path)
    loaded = Vocabulary.load(path)
    assert loaded == vocab and loaded.tokens == vocab.tokens and len(loaded) == len(vocab) == 7


def test_vocabulary_load_errors_name_the_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.json"):
        Vocabulary.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe not json")
    with pytest.raises(ValueError, match="bad.json"):
        Vocabulary.load(bad)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"tokens": ["a"]}))
    with pytest.raises(ValueError, match="other.json is not an elmo_keras vocabulary"):
        Vocabulary.load(other)


def test_vocabulary_rejects_bad_tokens():
    with pytest.raises(ValueError, match="duplicate"):
        Vocabulary(["a", "a"])
    with pytest.raises(ValueError, match="duplicate"):
        Vocabulary(["<unk>"])
    with pytest.raises(ValueError, match="min_count"):
        Vocabulary.from_corpus(["a"], min_count=0)


def test_public_api_names():
    for name in ("tokenize", "batch_to_ids", "Vocabulary"):
        assert hasattr(elmo_keras, name)
