"""The toy polysemy corpus (elmo_keras/data/polysemy.tsv) and its loader."""

import types
from importlib import resources

import pandas as pd
import pytest

from elmo_keras.data import SENSES, TARGET_WORDS, load_polysemy, polysemy_sentences
from elmo_keras.data import polysemy as polysemy_module
from elmo_keras.text import tokenize

UPOS = {"NOUN", "VERB", "AUX", "ADJ", "ADV", "PRON", "DET", "ADP", "CCONJ", "SCONJ", "PART", "NUM", "PUNCT",
        "PROPN", "INTJ"}


@pytest.fixture(scope="module")
def corpus() -> pd.DataFrame:
    return load_polysemy()


def test_constants():
    assert TARGET_WORDS == ("bank", "play", "right")
    assert SENSES == {"bank": ("money", "river"), "play": ("theatre", "game"), "right": ("direction", "correct")}


def test_columns_and_dtypes(corpus):
    assert list(corpus.columns) == ["id", "word", "sense", "sentence", "tokens", "target_index", "split", "pos"]
    assert corpus["id"].dtype == "int64" and corpus["target_index"].dtype == "int64"
    for column in ("word", "sense", "sentence", "split"):
        assert pd.api.types.is_string_dtype(corpus[column]), column
        assert all(isinstance(value, str) for value in corpus[column])
    for column in ("tokens", "pos"):
        assert all(isinstance(value, list) and all(isinstance(x, str) for x in value) for value in corpus[column])
    assert corpus["id"].is_unique
    assert set(corpus["split"]) == {"train", "heldout"}


def test_target_counts_and_sense_balance(corpus):
    targets = corpus[corpus["word"] != ""]
    assert set(targets["word"]) == set(TARGET_WORDS)
    for word in TARGET_WORDS:
        rows = targets[targets["word"] == word]
        assert len(rows) >= 64, word
        counts = rows["sense"].value_counts()
        assert set(counts.index) == set(SENSES[word])
        assert counts.nunique() == 1, f"{word}: senses are not balanced: {counts.to_dict()}"


def test_heldout_fraction_per_word_and_sense(corpus):
    targets = corpus[corpus["word"] != ""]
    for (word, sense), rows in targets.groupby(["word", "sense"]):
        heldout = (rows["split"] == "heldout").sum()
        assert heldout >= 0.2 * len(rows), (word, sense, heldout, len(rows))
        assert heldout < len(rows)
    fillers = corpus[corpus["word"] == ""]
    assert (fillers["split"] == "train").all()


def test_no_duplicate_sentences_so_splits_are_disjoint(corpus):
    assert corpus["sentence"].is_unique
    train = set(corpus.loc[corpus["split"] == "train", "sentence"])
    heldout = set(corpus.loc[corpus["split"] == "heldout", "sentence"])
    assert heldout and not train & heldout


def test_tokens_and_targets_match(corpus):
    for row in corpus.itertuples():
        assert row.tokens == tokenize(row.sentence), row.id
        if row.word:
            lowered = [token.lower() for token in row.tokens]
            assert lowered[row.target_index] == row.word, row.id
            assert lowered.count(row.word) == 1, row.id
            assert 5 <= len(row.tokens) <= 16, row.id
            assert row.sense in SENSES[row.word], row.id


def test_fillers_have_no_target_word(corpus):
    fillers = corpus[corpus["word"] == ""]
    assert len(fillers) >= 100
    assert (fillers["sense"] == "").all() and (fillers["target_index"] == -1).all()
    for row in fillers.itertuples():
        lowered = [token.lower() for token in row.tokens]
        assert not any(token.startswith(TARGET_WORDS) for token in lowered), row.id


def test_pos_tags_align_with_tokens(corpus):
    for row in corpus.itertuples():
        assert len(row.pos) == len(row.tokens), row.id
        assert set(row.pos) <= UPOS, row.id
        assert all(tag == "PUNCT" for token, tag in zip(row.tokens, row.pos) if not token[0].isalnum()), row.id
    play = corpus[corpus["word"] == "play"]
    for row in play.itertuples():
        assert row.pos[row.target_index] == ("NOUN" if row.sense == "theatre" else "VERB"), row.id


def test_vocabulary_is_small(corpus):
    vocabulary = {token.lower() for tokens in corpus["tokens"] for token in tokens}
    assert len(vocabulary) <= 450


def test_returned_frame_is_a_copy():
    first = load_polysemy()
    original_sentence, original_tokens = first.loc[0, "sentence"], list(first.loc[0, "tokens"])
    first.loc[0, "sentence"] = "changed"
    first.loc[0, "tokens"].append("extra")
    first["split"] = "mutated"
    second = load_polysemy()
    assert second.loc[0, "sentence"] == original_sentence
    assert second.loc[0, "tokens"] == original_tokens
    assert set(second["split"]) == {"train", "heldout"}


def test_polysemy_sentences_splits_add_up(corpus):
    train, heldout, everything = (polysemy_sentences(s) for s in ("train", "heldout", "all"))
    assert polysemy_sentences() == train
    assert len(train) + len(heldout) == len(everything) == len(corpus)
    assert len(heldout) == (corpus["split"] == "heldout").sum()
    assert everything == [list(tokens) for tokens in corpus["tokens"]]
    train[0].append("extra")
    assert polysemy_sentences("train")[0] == corpus["tokens"][0]
    with pytest.raises(ValueError, match="split"):
        polysemy_sentences("test")


def test_data_file_is_package_data():
    assert resources.files("elmo_keras.data").joinpath("polysemy.tsv").is_file()


@pytest.mark.parametrize(
    "line, message",
    [
        ("7\tbank\tmoney\tI went to the river.\t2\ttrain\tPRON VERB ADP DET NOUN PUNCT", "id=7.*not 'bank'"),
        ("7\tbank\tmoney\tI went to the bank.\t4\ttrain\tPRON VERB ADP DET PUNCT", "id=7.*5 POS tags for 6"),
        ("7\tbank\tmoney\tI went to the bank.\t4\ttrain\tPRON VERB ADP DET NOUN XX", "id=7.*unknown POS"),
        ("7\tbank\tmoney\tI went to the bank.\t4\ttest\tPRON VERB ADP DET NOUN PUNCT", "id=7.*unknown split"),
        ("7\tbank\tgame\tI went to the bank.\t4\ttrain\tPRON VERB ADP DET NOUN PUNCT", "id=7.*unknown sense"),
        ("7\t\t\tI went to the bank.\t-1\ttrain\tPRON VERB ADP DET NOUN PUNCT", "id=7.*filler"),
    ],
)
def test_inconsistent_file_raises_naming_the_row(tmp_path, monkeypatch, line, message):
    header = "id\tword\tsense\tsentence\ttarget_index\tsplit\tpos"
    good = "3\tplay\tgame\tWe play chess.\t1\ttrain\tPRON VERB NOUN PUNCT"
    (tmp_path / "polysemy.tsv").write_text(f"{header}\n{good}\n{line}\n", encoding="utf-8")
    fake_resources = types.SimpleNamespace(files=lambda package: tmp_path)
    monkeypatch.setattr(polysemy_module, "resources", fake_resources)
    polysemy_module._parsed_rows.cache_clear()
    try:
        with pytest.raises(ValueError, match=message):
            load_polysemy()
    finally:
        monkeypatch.undo()
        polysemy_module._parsed_rows.cache_clear()
