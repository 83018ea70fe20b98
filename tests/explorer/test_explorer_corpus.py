"""The working corpus: building, editing, filtering and splitting it — without Streamlit."""

from __future__ import annotations

import pandas as pd
import pytest

from elmo_keras.data.polysemy import COLUMNS
from elmo_keras.explorer.corpus import (
    builtin_corpus,
    corpus_from_table,
    describe,
    editor_table,
    filter_corpus,
    fingerprint,
    labelled_words,
    make_corpus,
    sense_order,
    split_sentences,
    word_choices,
)


def test_make_corpus_fills_every_column():
    frame = make_corpus([{"word": "Bank", "sense": "river", "sentence": "By the BANK .", "split": "heldout"},
                         {"sentence": "Just words ."}])
    assert tuple(frame.columns) == COLUMNS
    assert list(frame["id"]) == [1, 2] and list(frame["word"]) == ["bank", ""]
    assert list(frame["target_index"]) == [2, -1] and list(frame["split"]) == ["heldout", "train"]
    assert list(frame["tokens"][0]) == ["By", "the", "BANK", "."]


def test_a_word_without_a_sense_counts_as_unlabelled():
    frame = make_corpus([{"word": "bank", "sentence": "The bank ."}])
    assert frame.loc[0, "word"] == "" and frame.loc[0, "target_index"] == -1


@pytest.mark.parametrize(("record", "message"), [
    ({"sentence": "  "}, "row 1: the sentence is empty"),
    ({"word": "bank", "sense": "money", "sentence": "No target ."}, "does not contain the word 'bank'"),
    ({"sentence": "x .", "split": "test"}, "split must be one of"),
    ({"sentence": "x y .", "pos": "NOUN"}, "1 POS tags for 3 tokens"),
])
def test_make_corpus_names_the_bad_row(record, message):
    with pytest.raises(ValueError, match=message):
        make_corpus([record])


def test_make_corpus_needs_a_sentence():
    with pytest.raises(ValueError, match="no sentences"):
        make_corpus([])


def test_editing_keeps_pos_tags_of_unchanged_sentences_and_drops_blank_rows():
    corpus = builtin_corpus()
    table = editor_table(corpus)
    assert list(table.columns) == ["word", "sense", "sentence", "split"]
    table.loc[0, "sentence"] = table.loc[0, "sentence"].replace(".", "!")
    extra = pd.DataFrame([{"word": "play", "sense": "game", "sentence": "Let us play cards .", "split": "train"},
                          {"word": None, "sense": None, "sentence": None, "split": None}])
    edited = corpus_from_table(pd.concat([table, extra], ignore_index=True), corpus)
    assert len(edited) == len(corpus) + 1
    assert list(edited["pos"][1]) == list(corpus["pos"][1])  # unchanged sentence keeps its tags
    assert list(edited["pos"][0]) == [] and list(edited["pos"].iloc[-1]) == []  # changed / new: no tags
    assert edited["word"].iloc[-1] == "play" and edited["target_index"].iloc[-1] == 2
    assert fingerprint(edited) != fingerprint(corpus) and fingerprint(builtin_corpus()) == fingerprint(corpus)


def test_a_bad_edit_names_the_table_row():
    table = editor_table(builtin_corpus()).head(3)
    table.loc[2, "word"], table.loc[2, "sense"] = "play", "game"
    with pytest.raises(ValueError, match="table row 3: the sentence does not contain the word 'play'"):
        corpus_from_table(table)


def test_filters_combine():
    corpus = builtin_corpus()
    shown = filter_corpus(corpus, words=["bank"], senses=["river"], splits=["heldout"])
    assert len(shown) > 0 and set(shown["sense"]) == {"river"} and set(shown["split"]) == {"heldout"}
    assert list(shown.columns) == ["id", "word", "sense", "sentence", "split"]
    fillers = filter_corpus(corpus, words=["(none)"])
    assert set(fillers["word"]) == {""}
    found = filter_corpus(corpus, contains="RIVER")
    assert len(found) > 0 and all("river" in s.lower() for s in found["sentence"])
    assert len(filter_corpus(corpus)) == len(corpus)


def test_split_sentences_and_descriptions():
    corpus = builtin_corpus()
    train, heldout = split_sentences(corpus)
    assert len(train) + len(heldout) == len(corpus) and heldout
    assert describe(corpus).startswith(f"{len(corpus)} sentences ({len(train)} train / {len(heldout)} held-out)")
    assert describe(corpus.iloc[:1]).startswith("1 sentence (")
    with pytest.raises(ValueError, match="no training sentences"):
        split_sentences(corpus[corpus["split"] == "heldout"])


def test_word_choices_put_the_labelled_words_first():
    corpus = builtin_corpus()
    choices = word_choices(corpus)
    assert choices[:3] == ["bank", "play", "right"] == labelled_words(corpus)
    assert "river" in choices and "." not in choices and len(set(choices)) == len(choices)
    assert word_choices(corpus, vocabulary={"river"})[3:] == ["river"]


def test_sense_order_puts_known_senses_first_and_special_labels_last():
    assert sense_order("bank", ["typed", "river", "unlabelled", "money"]) == ["money", "river", "unlabelled", "typed"]
    assert sense_order("tree", ["b", "a"]) == ["a", "b"]
