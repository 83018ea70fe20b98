"""The synthetic tagging data shipped in elmo_keras/data/ (POS, frames, NER, unlabelled text) and its loaders."""

import collections
import contextlib
import importlib.util
import re
import types
from importlib import resources

import pytest
from seqeval.metrics import f1_score
from seqeval.scheme import IOBES

from elmo_keras.data import (
    FRAME_ELEMENTS,
    FRAME_LABELS,
    NER_LABELS,
    POS_TAGS,
    frame_examples,
    ner_examples,
    pos_examples,
    tagging_unlabelled_sentences,
)
from elmo_keras.data import tagging as tagging_module
from elmo_keras.tagging import read_conll_sentences
from elmo_keras.text import tokenize
from tests.support.paths import REPO_ROOT

REPO = REPO_ROOT
LABELLED = {"pos": pos_examples, "frames": frame_examples, "ner": ner_examples}
FILES = (tagging_module.POS_FILE, tagging_module.FRAMES_FILE, tagging_module.NER_FILE, tagging_module.UNLABELLED_FILE)


@pytest.fixture(scope="module")
def generator():
    """tools/make_tagging_data.py, imported as a module."""
    spec = importlib.util.spec_from_file_location("make_tagging_data", REPO / "tools" / "make_tagging_data.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def joined(examples):
    return [" ".join(tokens) for tokens, _ in examples]


def is_valid_bioes(tags):
    """BIOES: B-X (I-X)* E-X or S-X spans, O outside; nothing else."""
    inside = None
    for tag in tags:
        prefix, _, kind = tag.partition("-")
        if inside is not None and (prefix not in "IE" or kind != inside):
            return False
        if inside is None and prefix not in ("O", "B", "S"):
            return False
        inside = kind if prefix in ("B", "I") else None
    return inside is None


def is_valid_frame_sequence(labels):
    """Frame labels: ``I_E#F`` only continues ``B_E#F`` or ``I_E#F`` of the same element and frame."""
    previous = "null"
    for label in labels:
        if label.startswith("I_") and previous[2:] != label[2:]:
            return False
        previous = label if label.startswith(("B_", "I_")) else "null"
    return True


def most_frequent_tag(train, test):
    """Predict each word's most frequent training tag; unseen words get the most frequent tag overall."""
    counts, overall = collections.defaultdict(collections.Counter), collections.Counter()
    for tokens, tags in train:
        for token, tag in zip(tokens, tags):
            counts[token][tag] += 1
            overall[tag] += 1
    default = overall.most_common(1)[0][0]
    return [[counts[token].most_common(1)[0][0] if token in counts else default for token in tokens]
            for tokens, _ in test]


def accuracy(predicted, examples):
    pairs = [(p, g) for tags, (_, gold) in zip(predicted, examples) for p, g in zip(tags, gold)]
    return sum(p == g for p, g in pairs) / len(pairs)


def test_label_inventories():
    assert NER_LABELS == ("O", "B-PER", "I-PER", "E-PER", "S-PER", "B-LOC", "I-LOC", "E-LOC", "S-LOC",
                          "B-ORG", "I-ORG", "E-ORG", "S-ORG")
    assert len(FRAME_LABELS) == len(set(FRAME_LABELS)) == 29
    assert FRAME_LABELS[:7] == ("null", "Opening", "Closure", "Booking", "Locative_relation", "Agreement",
                                "Disagreement")
    assert {"B_Place#Opening", "I_Place#Opening", "B_Time#Closure", "B_Party#Booking"} <= set(FRAME_LABELS)
    assert sum(len(elements) for elements in FRAME_ELEMENTS.values()) * 2 + 7 == len(FRAME_LABELS)


def test_sizes_and_splits():
    sizes = {name: (len(load("train")), len(load("heldout"))) for name, load in LABELLED.items()}
    assert sizes == {"pos": (880, 220), "frames": (104, 26), "ner": (320, 80)}
    assert len(tagging_unlabelled_sentences()) == 3504
    for name, load in LABELLED.items():
        everything = load("all")
        assert sorted(joined(everything)) == sorted(joined(load("train")) + joined(load("heldout"))), name
        assert load() == load("train")
    total = sum((REPO / "elmo_keras" / "data" / file_name).stat().st_size for file_name in FILES)
    assert total < 400_000  # the package data must stay well under 1 MB (measured: 345,125 bytes)


def test_ids_and_splits_are_stable():
    """Ids run 1..N in file order; the held-out ids are pinned (regenerating must not move sentences)."""
    expected = {tagging_module.POS_FILE: [4, 8, 9, 10, 12], tagging_module.FRAMES_FILE: [13, 18, 21, 24, 30],
                tagging_module.NER_FILE: [12, 18, 21, 26, 34]}
    for file_name, first_heldout in expected.items():
        path = REPO / "elmo_keras" / "data" / file_name
        sentences = read_conll_sentences(path)
        assert [int(s.metadata["id"]) for s in sentences] == list(range(1, len(sentences) + 1))
        heldout = [int(s.metadata["id"]) for s in sentences if s.metadata["split"] == "heldout"]
        assert heldout[:5] == first_heldout, file_name
    assert joined(frame_examples("all")[:1]) == ["the train station is near the nearest car park ."]
    assert joined(ner_examples("all")[:1]) == ["It rained heavily in Tokyo on Tuesday ."]


def test_splits_are_disjoint_and_sentences_unique():
    texts = {name: joined(load("all")) for name, load in LABELLED.items()}
    for name, sentences in texts.items():
        assert len(set(sentences)) == len(sentences), name
    assert not set(texts["pos"]) & set(texts["frames"])


def test_heldout_labels_are_all_seen_in_training():
    for name, load in LABELLED.items():
        train = {tag for _, tags in load("train") for tag in tags}
        heldout = {tag for _, tags in load("heldout") for tag in tags}
        assert heldout <= train, (name, heldout - train)


def test_tag_sets():
    used = {name: {tag for _, tags in load("all") for tag in tags} for name, load in LABELLED.items()}
    assert used["pos"] == POS_TAGS  # all 15 UPOS tags occur
    assert used["frames"] == set(FRAME_LABELS)
    assert used["ner"] == set(NER_LABELS)
    for tokens, tags in pos_examples("all"):
        assert all((tag == "PUNCT") == (not token[0].isalnum()) for token, tag in zip(tokens, tags)), tokens


def test_sequences_are_valid():
    assert all(is_valid_bioes(tags) for _, tags in ner_examples("all"))
    assert all(is_valid_frame_sequence(labels) for _, labels in frame_examples("all"))
    assert not is_valid_bioes(["O", "E-LOC"]) and not is_valid_bioes(["B-LOC", "E-PER"])
    assert not is_valid_bioes(["B-LOC"]) and is_valid_bioes(["B-LOC", "I-LOC", "E-LOC", "S-PER", "O"])
    assert not is_valid_frame_sequence(["null", "I_Place#Opening"])
    assert not is_valid_frame_sequence(["B_Place#Opening", "I_Place#Closure"])


def test_frame_set_shares_the_pos_vocabulary():
    """Measured: all 144 frame word types occur in the POS training set; 60 of them occur at most twice among
    the frame training sentences, and 50 of those 60 at least 10 times in the POS training set."""
    pos_train = collections.Counter(token for tokens, _ in pos_examples("train") for token in tokens)
    frame_train = collections.Counter(token for tokens, _ in frame_examples("train") for token in tokens)
    frame_vocabulary = {token for tokens, _ in frame_examples("all") for token in tokens}
    assert len(frame_vocabulary) == 144
    assert frame_vocabulary <= set(pos_train)
    rare = [token for token in frame_vocabulary if frame_train[token] <= 2]
    assert len(rare) == 60 and sum(pos_train[token] >= 10 for token in rare) == 50


def test_ambiguous_words_have_both_readings():
    pos_of = collections.defaultdict(set)
    for tokens, tags in pos_examples("train"):
        for token, tag in zip(tokens, tags):
            pos_of[token].add(tag)
    assert pos_of["book"] == {"NOUN", "VERB"} and pos_of["close"] == {"ADJ", "VERB"}
    assert pos_of["open"] == {"ADJ", "VERB"} and pos_of["no"] == {"DET", "INTJ"}
    frames_of = collections.defaultdict(set)
    for tokens, labels in frame_examples("all"):
        for token, label in zip(tokens, labels):
            frames_of[token].add(label)
    assert {"Booking", "I_Place#Opening"} <= frames_of["book"]
    assert frames_of["close"] == {"Closure", "Locative_relation"}
    types_of = collections.defaultdict(set)
    for tokens, tags in ner_examples("train"):
        for token, tag in zip(tokens, tags):
            if tag != "O":
                types_of[token].add(tag[2:])
    for name in ("Jordan", "Washington", "Georgia", "Sydney", "Chelsea", "Barcelona", "Paris", "York"):
        assert len(types_of[name]) >= 2, (name, types_of[name])


def test_frame_elements_line_up_with_pos_chunks(generator):
    """In the generator's output (where frame sentences still have their POS tags) every element starts with
    a determiner, pronoun, preposition, number, noun or adverb and ends on a noun, pronoun, number, proper noun
    or adverb; frame-evoking words are verbs, adjectives, prepositions or answer words."""
    data = generator.generate()
    assert [(tokens, labels) for tokens, labels, _ in data["frames"]] == frame_examples("all")
    for (tokens, labels, _), pos in zip(data["frames"], data["frame_pos"]):
        spans, current = [], None
        for label, tag in zip(labels + ["null"], pos + ["PUNCT"]):
            if current and not label.startswith("I_"):
                spans.append(current)
                current = None
            if label.startswith("B_"):
                current = [tag]
            elif label.startswith("I_"):
                current.append(tag)
            elif label in FRAME_ELEMENTS:
                assert tag in ("VERB", "ADJ", "ADP", "INTJ"), (tokens, label, tag)
        for span in spans:
            assert span[0] in ("DET", "PRON", "ADP", "NUM", "NOUN", "ADV"), (tokens, span)
            assert span[-1] in ("NOUN", "PRON", "NUM", "PROPN", "ADV"), (tokens, span)


def test_unlabelled_text():
    lines = {" ".join(tokens) for tokens in tagging_unlabelled_sentences()}
    for name, load in LABELLED.items():
        assert not lines & set(joined(load("heldout"))), name
        assert set(joined(load("train"))) <= lines, name
    for tokens in tagging_unlabelled_sentences():
        assert tokenize(" ".join(tokens)) == tokens


def test_some_heldout_names_are_only_in_unlabelled_text():
    """39 of the 182 entity tokens of held-out NER sentences never occur in NER training; all are in the
    unlabelled text (where a biLM can learn their contexts)."""
    train_words = {token for tokens, _ in ner_examples("train") for token in tokens}
    unlabelled_words = {token for tokens in tagging_unlabelled_sentences() for token in tokens}
    entity_tokens = [token for tokens, tags in ner_examples("heldout") for token, tag in zip(tokens, tags)
                     if tag != "O"]
    unseen = [token for token in entity_tokens if token not in train_words]
    assert (len(entity_tokens), len(unseen)) == (182, 39)
    assert set(unseen) <= unlabelled_words


def test_most_frequent_tag_baselines():
    """Reference scores on the held-out splits for the taggers built on this data."""
    def baseline(load):
        return most_frequent_tag(load("train"), load("heldout")), load("heldout")

    assert accuracy(*baseline(pos_examples)) == pytest.approx(0.9565, abs=1e-4)
    assert accuracy(*baseline(frame_examples)) == pytest.approx(0.7143, abs=1e-4)
    predicted, heldout = baseline(ner_examples)
    gold = [tags for _, tags in heldout]
    assert f1_score(gold, predicted, mode="strict", scheme=IOBES) == pytest.approx(0.6425, abs=1e-4)


def test_regenerating_reproduces_the_files_byte_for_byte(generator, tmp_path):
    paths = generator.write_all(tmp_path)
    assert sorted(paths) == sorted(FILES)
    for file_name, path in paths.items():
        assert path.read_bytes() == (REPO / "elmo_keras" / "data" / file_name).read_bytes(), file_name


def test_files_are_package_data():
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    patterns = re.search(r'^"elmo_keras.data" = \[(.*)\]$', pyproject, re.MULTILINE).group(1)
    assert {'"*.conll"', '"*.txt"'} <= {pattern.strip() for pattern in patterns.split(",")}
    for file_name in FILES:
        assert resources.files("elmo_keras.data").joinpath(file_name).is_file()


def test_loaders_return_fresh_lists():
    first = frame_examples("all")
    first[0][0].append("extra")
    first[0][1][0] = "changed"
    again = frame_examples("all")[0]
    assert again[0][-1] == "." and again[1][0] == "B_Figure#Locative_relation"
    sentences = tagging_unlabelled_sentences()
    sentences[0].append("extra")
    assert tagging_unlabelled_sentences()[0][-1] != "extra"
    for load in LABELLED.values():
        with pytest.raises(ValueError, match="split"):
            load("test")


@pytest.fixture
def fake_data_dir(tmp_path, monkeypatch):
    """Point the loaders at ``tmp_path`` instead of the package data; the caches are cleared around the test."""
    fake = types.SimpleNamespace(files=lambda package: tmp_path, as_file=contextlib.nullcontext)
    monkeypatch.setattr(tagging_module, "resources", fake)
    tagging_module._labelled.cache_clear()
    tagging_module._unlabelled.cache_clear()
    yield tmp_path
    monkeypatch.undo()
    tagging_module._labelled.cache_clear()
    tagging_module._unlabelled.cache_clear()


@pytest.mark.parametrize(
    "second, message",
    [
        ("# split = train\nit\tO\n", r"line 6: .*'# id = N'.*''"),
        ("# id = 1\n# split = train\nit\tO\n", r"line 7: .*new integer, found '1'"),
        ("# id = 2\n# split = test\nit\tO\n", r"line 7: unknown split 'test'"),
        ("# id = 2\n# split = train\nit\tB-MISC\n", r"line 7: unknown tag\(s\) \['B-MISC'\]"),
    ],
)
def test_inconsistent_file_raises_naming_the_line(fake_data_dir, second, message):
    first = "# id = 1\n# split = train\nParis\tS-LOC\n"
    (fake_data_dir / tagging_module.NER_FILE).write_text(f"{first}\n{second}", encoding="utf-8")
    with pytest.raises(ValueError, match=f"{tagging_module.NER_FILE} {message}"):
        ner_examples("all")


def test_blank_unlabelled_line_raises(fake_data_dir):
    (fake_data_dir / tagging_module.UNLABELLED_FILE).write_text("a b\n\nc\n", encoding="utf-8")
    with pytest.raises(ValueError, match="tagging_unlabelled.txt line 2 is blank"):
        tagging_unlabelled_sentences()


def test_every_reader_ends_lines_at_lone_carriage_returns_only(fake_data_dir):
    """A labelled file with old Mac line ends used to read as one comment line ("no sentences"); a Unicode line
    separator inside an unlabelled sentence used to split it in two."""
    (fake_data_dir / tagging_module.NER_FILE).write_bytes(
        b"# id = 1\r# split = train\rParis\tS-LOC\rrocks\tO\r\r# id = 2\r# split = heldout\rhi\tO\r")
    assert ner_examples("all") == [(["Paris", "rocks"], ["S-LOC", "O"]), (["hi"], ["O"])]
    (fake_data_dir / tagging_module.UNLABELLED_FILE).write_text("a\u2028b c\nd\n", encoding="utf-8")
    assert tagging_unlabelled_sentences() == [["a", "b", "c"], ["d"]]
