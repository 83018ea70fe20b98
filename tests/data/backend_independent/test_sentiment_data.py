"""The toy sentiment corpus: the file loads, the split is fixed and disjoint, word order decides some labels."""

import subprocess
import sys

import pytest

from elmo_keras.data.sentiment import (
    LABELS,
    PATTERNS,
    SENTIMENT_FILE,
    load_sentiment,
    sentiment_patterns,
)
from tests.support.paths import REPO_ROOT

REPO = REPO_ROOT


def labelled(split="all"):
    sentences, labels, _ = load_sentiment(split)
    return {" ".join(s): label for s, label in zip(sentences, labels)}


def test_the_file_loads_with_fixed_disjoint_splits():
    train, heldout = labelled("train"), labelled("heldout")
    assert len(train) == 1152 and len(heldout) == 288  # 18 batches of 64 (see tools/make_sentiment_data.py)
    assert not set(train) & set(heldout)
    assert labelled("all") == {**train, **heldout}
    assert load_sentiment()[2] == LABELS == ("negative", "positive")
    assert set(sentiment_patterns("heldout")) == set(PATTERNS)
    for split in ("train", "heldout"):  # both labels in every pattern of every split
        patterns = sentiment_patterns(split)
        _, labels, _ = load_sentiment(split)
        assert {(p, label) for p, label in zip(patterns, labels)} == {(p, c) for p in PATTERNS for c in LABELS}


def test_negation_and_contrast_make_word_order_matter():
    train = labelled("train")
    assert train["i like this movie very much !"] == "positive"  # the classic lecture example's sentence
    assert train["this movie is not good ."] == "negative"
    assert train["this movie is good , not bad ."] == "positive"
    assert train["this movie is bad , not good ."] == "negative"
    assert train["this movie is not very bad ."] == "positive"
    bags = {}
    for sentence, label in labelled().items():  # same words, both labels: a bag of words cannot separate them
        bags.setdefault(tuple(sorted(sentence.split())), set()).add(label)
    assert sum(len(labels) == 2 for labels in bags.values()) >= 5  # 6 in the shipped file


def test_the_generator_reproduces_the_shipped_file(tmp_path):
    out = tmp_path / SENTIMENT_FILE
    subprocess.run([sys.executable, str(REPO / "tools" / "make_sentiment_data.py"), "--out", str(out)], check=True,
                   capture_output=True)
    assert out.read_bytes() == (REPO / "elmo_keras" / "data" / SENTIMENT_FILE).read_bytes()


def test_an_unknown_split_is_explained():
    with pytest.raises(ValueError, match="split must be 'train', 'heldout' or 'all'"):
        load_sentiment("test")
