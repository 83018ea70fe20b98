"""The packaged treebank (elmo_keras/data/treebank.py and elmo_keras/data/ud_english_ewt/): the published counts,
multi-word tokens expanded and empty nodes skipped on the real files, the tags, the errors, and the files the same
as the upstream copy in ../shared."""

import builtins
import gzip
import os
import pathlib

import pytest

from elmo_keras.data import treebank as treebank_module
from elmo_keras.data.treebank import (
    TREEBANK_COLUMNS,
    TREEBANK_COUNTS,
    TREEBANK_SPLITS,
    treebank_examples,
    treebank_path,
    treebank_sentences,
    ud_english_ewt,
)
from tests.support.paths import REPO_ROOT

UPOS_TAGS = {"ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN", "PUNCT",
             "SCONJ", "SYM", "VERB", "X"}  # the 17 Universal POS tags
SHARED_TREEBANK = REPO_ROOT.parent / "shared" / "data" / "ud_english_ewt"
PACKAGE_FOLDER = pathlib.Path(treebank_module.__file__).parent / "ud_english_ewt"


@pytest.fixture(scope="module")
def splits():
    """Every split read once (about 7 s for train; the loader keeps them for the process)."""
    return {split: ud_english_ewt(split) for split in TREEBANK_SPLITS}


def raw_lines(split: str) -> list[str]:
    """The packaged file's lines, decompressed here without the project's reader."""
    return gzip.decompress(treebank_path(split).read_bytes()).decode("utf-8").splitlines()


def word_id_kinds(lines: list[str]) -> dict[str, int]:
    """How many word lines of each kind: ``word`` (an integer id), ``range`` (``3-4``), ``empty`` (``8.1``), and
    ``sentences`` (words numbered 1)."""
    ids = [line.split("\t", 1)[0] for line in lines if line and not line.startswith("#")]
    return {"word": sum(i.isdigit() for i in ids), "range": sum("-" in i for i in ids),
            "empty": sum("." in i for i in ids), "sentences": ids.count("1")}


def test_the_published_counts(splits):
    assert TREEBANK_COUNTS == {"train": (12_544, 204_577), "dev": (2_001, 25_147), "test": (2_077, 25_094)}
    for split, (sentences, words) in TREEBANK_COUNTS.items():
        assert len(splits[split]) == sentences, split
        assert sum(len(sentence.tokens) for sentence in splits[split]) == words, split
        kinds = word_id_kinds(raw_lines(split))  # the file itself: syntactic words only
        assert (kinds["sentences"], kinds["word"]) == (sentences, words), split
        assert kinds["range"] > 0 and kinds["empty"] > 0, split  # so both exclusions above were needed


def test_multiword_tokens_are_expanded(splits):
    found = set()
    for sentence in splits["train"]:
        pairs = set(zip(sentence.tokens, sentence.tokens[1:]))
        for contraction, words in (("don't", ("do", "n't")), ("can't", ("ca", "n't"))):
            if contraction in sentence.metadata["text"].split() and words in pairs:
                assert contraction not in sentence.tokens
                found.add(contraction)
    assert found == {"don't", "can't"}


def test_empty_nodes_are_left_out(splits):
    """Dev's first empty node (``8.1 write``, a copy of word 5) is in the file and not in the tokens."""
    lines = raw_lines("dev")
    empty = next(number for number, line in enumerate(lines) if line.split("\t", 1)[0] == "8.1")
    first = max(number for number in range(empty) if lines[number].startswith("# sent_id"))
    last = next(number for number in range(empty, len(lines)) if not lines[number])
    rows = [line.split("\t") for line in lines[first:last] if not line.startswith("#")]
    sentence = next(s for s in splits["dev"] if s.metadata["sent_id"] == lines[first].split(" = ", 1)[1])
    assert lines[empty].split("\t")[1] == "write"
    assert sentence.tokens == [row[1] for row in rows if row[0].isdigit()]
    assert len(sentence.tokens) == int(rows[-1][0]) == len(rows) - 1 - sum("-" in row[0] for row in rows)


def test_every_token_has_a_upos_tag_and_every_column(splits):
    for split, sentences in splits.items():
        for sentence in sentences:
            assert set(sentence.tags) == set(TREEBANK_COLUMNS)
            assert all(len(values) == len(sentence.tokens) for values in sentence.tags.values())
            assert set(sentence.tags["upos"]) <= UPOS_TAGS, (split, sentence.metadata["sent_id"])
    assert {tag for sentence in splits["train"] for tag in sentence.tags["upos"]} == UPOS_TAGS


def test_examples_and_sentences_of_a_column(splits):
    examples = treebank_examples("dev", "xpos")
    assert len(examples) == 2_001
    assert all(len(tokens) == len(tags) for tokens, tags in examples)
    assert [tokens for tokens, _ in examples] == treebank_sentences("dev")
    assert [tags for _, tags in examples] == [sentence.tags["xpos"] for sentence in splits["dev"]]
    assert {"NN", "VBZ", "DT", "."} <= {tag for _, tags in examples for tag in tags}  # Penn tags
    assert treebank_sentences("test", limit=3) == [sentence.tokens for sentence in splits["test"][:3]]


@pytest.mark.parametrize("call, named", [
    (lambda: ud_english_ewt("validation"), "split must be one of ('train', 'dev', 'test'), received 'validation'"),
    (lambda: treebank_sentences("Train"), "split must be one of ('train', 'dev', 'test'), received 'Train'"),
    (lambda: treebank_examples("dev", "feats"), "column must be one of ('upos', 'xpos', 'lemma', 'deprel'), "
                                                "received 'feats'"),
    (lambda: treebank_examples("heldout"), "received 'heldout'"),
])
def test_bad_split_or_column_is_one_line(call, named):
    with pytest.raises(ValueError) as error:
        call()
    assert named in str(error.value) and "\n" not in str(error.value)


def test_the_loader_opens_only_the_package_files(monkeypatch):
    for split in TREEBANK_SPLITS:
        path = pathlib.Path(str(treebank_path(split)))
        assert path.parent == PACKAGE_FOLDER and path.is_file(), split
    opened = []
    real_open = builtins.open

    def recording_open(file, *args, **kwargs):
        opened.append(os.path.realpath(file) if isinstance(file, (str, os.PathLike)) else file)
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", recording_open)
    sentences = treebank_module._read.__wrapped__("dev")  # past the per-process cache: the file is opened
    monkeypatch.undo()
    assert len(sentences) == 2_001
    assert opened == [os.path.realpath(PACKAGE_FOLDER / "en_ewt-ud-dev.conllu.gz")]


@pytest.mark.parametrize("split", TREEBANK_SPLITS)
def test_the_packaged_files_are_the_upstream_files(split):
    upstream = SHARED_TREEBANK / f"en_ewt-ud-{split}.conllu.gz"
    if not upstream.is_file():
        pytest.skip(f"the upstream treebank is not at {SHARED_TREEBANK} (it lives in ../shared/data, absent here)")
    assert gzip.decompress(treebank_path(split).read_bytes()) == gzip.decompress(upstream.read_bytes())
