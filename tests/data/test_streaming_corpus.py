"""StreamingCorpus: files found by glob (gzip and plain), the one-pass vocabulary scan, shuffled batches that are
deterministic for a seed, cover every sentence once per epoch, encode as the in-memory path does, and resume at any
step; clear errors for bad files."""

from __future__ import annotations

import collections
import gzip
import os

import numpy as np
import pytest

from elmo_keras._backend import padded_time
from elmo_keras.data import polysemy_sentences
from elmo_keras.data.corpus_files import CorpusFileError, corpus_paths
from elmo_keras.data.streaming import StreamingCorpus, _buffer_shuffled, _interleaved
from elmo_keras.text.batching import char_ids_with_boundaries
from elmo_keras.text.sentence_files import MAX_LINE_BYTES
from elmo_keras.text.vocabulary import PAD_ID, Vocabulary

BATCH = 24


def write_lines(path, lines):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "wt", encoding="utf-8") as handle:
        handle.write("".join(f"{line}\n" for line in lines))


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    """The polysemy training split in three shards (two gzip, one plain with blank lines and a CRLF line)."""
    directory = tmp_path_factory.mktemp("shards")
    sentences = [" ".join(tokens) for tokens in polysemy_sentences("train")]
    write_lines(directory / "part-0.txt.gz", sentences[:200])
    write_lines(directory / "part-1.txt.gz", sentences[200:300])
    write_lines(directory / "part-2.txt", ["", *sentences[300:400], "   ", *sentences[400:]])
    with open(directory / "part-2.txt", "ab") as handle:  # a Windows line ending: \r is whitespace
        handle.write(b"Windows line .\r\n")
    return directory


@pytest.fixture(scope="module")
def sentences(corpus_dir):
    return [tokens for _, _, tokens in _file_order_sentences(corpus_dir)]


def _file_order_sentences(directory):
    for path in sorted(directory.iterdir()):
        opener = gzip.open if path.name.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if line.split():
                    yield path, number, line.split()


@pytest.fixture(scope="module")
def scanned(corpus_dir):
    corpus = StreamingCorpus(str(corpus_dir / "part-*"), shuffle_buffer=100)
    vocabulary, stats = corpus.scan()
    return corpus, vocabulary, stats


def test_glob_finds_gzip_and_plain_files_and_scan_equals_from_corpus(corpus_dir, sentences, scanned):
    corpus, vocabulary, stats = scanned
    assert [os.path.basename(p) for p in corpus.paths] == ["part-0.txt.gz", "part-1.txt.gz", "part-2.txt"]
    assert vocabulary == Vocabulary.from_corpus(sentences)
    assert (stats.num_files, stats.num_sentences, stats.num_tokens) == (3, len(sentences), sum(map(len, sentences)))
    assert stats.longest_sentence == max(map(len, sentences)) and corpus.num_sentences == len(sentences)
    assert corpus.steps_per_epoch(BATCH) == -(-len(sentences) // BATCH)
    assert list(corpus.sentences()) == sentences and corpus.head(3) == sentences[:3]
    lowercase = StreamingCorpus([corpus_dir / "part-2.txt", str(corpus_dir / "*.gz")], lowercase=True)
    assert lowercase.scan(min_count=2)[0] == Vocabulary.from_corpus(sentences, min_count=2, lowercase=True)


def test_the_scan_fingerprints_file_names_and_sentences(corpus_dir, sentences, scanned, tmp_path):
    """The checkpoints' corpus fingerprint, computed in the scan's one pass with ``checkpoint_files``' scheme."""
    from elmo_keras.models.bilm.checkpoint_files import fingerprint

    corpus, _, stats = scanned
    chunks = []
    for path in corpus.paths:
        chunks += [f"\n{os.path.basename(path)}", *(" ".join(t) for t in StreamingCorpus(path).sentences())]
    assert stats.fingerprint == fingerprint(chunks)
    copy = tmp_path / "copy"
    copy.mkdir()
    for path in corpus.paths:  # a copy elsewhere is the same corpus; a renamed or edited file is not
        (copy / os.path.basename(path)).write_bytes(open(path, "rb").read())
    assert StreamingCorpus(str(copy / "part-*")).scan()[1].fingerprint == stats.fingerprint
    (copy / "part-2.txt").rename(copy / "part-3.txt")
    assert StreamingCorpus(str(copy / "part-*")).scan()[1].fingerprint != stats.fingerprint
    with open(copy / "part-3.txt", "a", encoding="utf-8") as handle:
        handle.write("one more line\n")
    (copy / "part-3.txt").rename(copy / "part-2.txt")
    assert StreamingCorpus(str(copy / "part-*")).scan()[1].fingerprint != stats.fingerprint


@pytest.mark.parametrize("min_count, max_size", [(1, None), (2, None), (1, 7), (3, 5), (1, 0), (9, 10_000)])
def test_vocabulary_from_counts_equals_from_corpus(min_count, max_size):
    """Ties (many tokens seen equally often) are broken alphabetically; with ``lowercase`` the counts of a word's
    spellings are added together, as ``from_corpus`` counts them."""
    rng = np.random.default_rng(0)
    words = ["b", "a", "C", "c", "<S>", "<pad>", "é", "Z", "aa", "ab"]
    corpus = [list(rng.choice(words, size=rng.integers(1, 6))) for _ in range(60)]
    for lowercase in (False, True):
        expected = Vocabulary.from_corpus(corpus, min_count=min_count, lowercase=lowercase, max_size=max_size)
        for counts in (collections.Counter(t for s in corpus for t in s),
                       collections.Counter(t.lower() if lowercase else t for s in corpus for t in s)):
            assert Vocabulary.from_counts(counts, min_count, lowercase, max_size) == expected


def decoded_rows(inputs, targets, vocabulary):
    """The sentences of a batch's real rows (targets decoded), and its filler-row count."""
    rows, fillers = [], 0
    for row in targets:
        if row[0] == PAD_ID:
            assert not row.any()
            fillers += 1
            continue
        length = int(np.count_nonzero(row))
        rows.append(vocabulary.ids_to_tokens(row[1 : length - 1]))
    return rows, fillers


@pytest.mark.parametrize("token_input", ["word", "char"])
def test_every_sentence_once_per_epoch_encoded_as_the_in_memory_path(scanned, sentences, token_input):
    corpus, vocabulary, _ = scanned
    steps = corpus.steps_per_epoch(BATCH)
    for epoch in range(2):
        batches = list(corpus.epoch_batches(vocabulary, token_input, BATCH, seed=3, epoch=epoch))
        assert len(batches) == steps
        seen, filler_counts = [], []
        for inputs, targets in batches:
            rows, fillers = decoded_rows(inputs, targets, vocabulary)
            assert inputs.dtype == targets.dtype == np.int32 and targets.shape[0] == BATCH
            assert targets.shape[1] == padded_time(max(map(len, rows)) + 2)
            filler_counts.append(fillers)
            if token_input == "char":  # bit for bit the ids of text.char_ids, zero rows past each sentence
                expected = char_ids_with_boundaries(rows, targets.shape[1])
                np.testing.assert_array_equal(inputs[: len(rows)], expected)
                assert not inputs[len(rows):].any()
            else:
                np.testing.assert_array_equal(inputs, targets)
            seen += rows
        assert sorted(map(tuple, seen)) == sorted(map(tuple, sentences))
        # one short batch, in the epoch's last pool, filled up with all-padding rows
        assert sum(filler_counts) == steps * BATCH - len(sentences) == max(filler_counts) > 0


def test_a_file_gives_the_same_sentences_streamed_and_read_whole(tmp_path):
    from elmo_keras.cli.train import read_corpus_file

    path = tmp_path / "data[2020].txt"  # glob characters in a real file's name: that file, not a pattern
    path.write_bytes("a b\rc d\u2028e f\r\n\ng h\x85i\n".encode())
    assert corpus_paths(str(path)) == [str(path)]
    streamed = list(StreamingCorpus(str(path)).sentences())
    assert streamed == read_corpus_file(str(path)) == [
        ["a", "b"], ["c", "d"], ["e", "f"], ["g", "h"], ["i"]]


def test_lowercase_vocabulary_lowercases_word_ids_never_char_ids(corpus_dir):
    corpus = StreamingCorpus(str(corpus_dir / "part-1.txt.gz"), lowercase=True)
    vocabulary, _ = corpus.scan()
    plan = list(corpus.epoch_sentence_batches(BATCH, seed=0, epoch=0))
    for batch, (inputs, targets) in zip(plan, corpus.epoch_batches(vocabulary, "char", BATCH, seed=0, epoch=0)):
        length = targets.shape[1]
        np.testing.assert_array_equal(inputs[: len(batch)], char_ids_with_boundaries(batch, length))
        assert [vocabulary.ids_to_tokens(row[1 : len(s) + 1]) for row, s in zip(targets, batch)] == \
            [[t.lower() for t in s] for s in batch]


def test_same_seed_same_batches_another_seed_other_batches(scanned):
    corpus, vocabulary, _ = scanned

    def plan(seed, epoch):
        return list(corpus.epoch_sentence_batches(BATCH, seed, epoch))

    assert plan(5, 0) == plan(5, 0) and plan(5, 1) == plan(5, 1)
    assert plan(5, 0) != plan(6, 0) and plan(5, 0) != plan(5, 1)


def test_pools_sort_by_length_so_batches_hold_similar_lengths(scanned):
    """Within a pool of 8 batches the sentences are sorted by length: less padding than unsorted batches."""
    corpus, _, _ = scanned
    unsorted = StreamingCorpus(corpus.paths, shuffle_buffer=100, pool_batches=1)
    unsorted.num_sentences = corpus.num_sentences

    def padding(plan):
        return sum(len(batch) * max(map(len, batch)) - sum(map(len, batch)) for batch in plan)

    for epoch in range(2):
        sorted_plan = list(corpus.epoch_sentence_batches(BATCH, 0, epoch))
        unsorted_plan = list(unsorted.epoch_sentence_batches(BATCH, 0, epoch))
        assert padding(sorted_plan) < 0.5 * padding(unsorted_plan)


def test_interleave_reads_files_in_turn_and_the_buffer_shuffles_within_its_size(tmp_path):
    for name, lines in {"a": ["a1", "a2", "a3"], "b": ["b1"], "c": ["c1", "c2"]}.items():
        write_lines(tmp_path / name, lines)
    paths = [str(tmp_path / name) for name in "abc"]
    assert [t for [t] in _interleaved(paths, 2)] == ["a1", "b1", "a2", "c1", "a3", "c2"]
    assert [t for [t] in _interleaved(paths, 1)] == ["a1", "a2", "a3", "b1", "c1", "c2"]
    items = list(range(50))
    assert list(_buffer_shuffled(items, 1, np.random.default_rng(0))) == items
    shuffled = list(_buffer_shuffled(items, 10, np.random.default_rng(0)))
    assert sorted(shuffled) == items and shuffled != items
    assert all(item < position + 10 for position, item in enumerate(shuffled))  # only what entered the buffer leaves


def dataset_arrays(dataset):
    return [(np.asarray(x), np.asarray(y)) for x, y in dataset.as_numpy_iterator()]


def test_the_dataset_is_the_epochs_concatenated_and_start_step_drops_the_first_batches(scanned):
    """Runs on every backend: ``fit`` takes this ``tf.data.Dataset`` on each."""
    corpus, vocabulary, _ = scanned
    steps = corpus.steps_per_epoch(BATCH)
    expected = [batch for epoch in range(2) for batch in corpus.epoch_batches(vocabulary, "char", BATCH, 1, epoch)]
    dataset = corpus.batches(vocabulary, "char", BATCH, seed=1, epochs=2)
    assert dataset.element_spec[0].shape.as_list() == [BATCH, None, 50]
    full = dataset_arrays(dataset)
    assert len(full) == 2 * steps
    for (x, y), (ex, ey) in zip(full, expected):
        np.testing.assert_array_equal(x, ex)
        np.testing.assert_array_equal(y, ey)
    for start_step in (steps - 2, steps + 3):
        resumed = dataset_arrays(corpus.batches(vocabulary, "char", BATCH, seed=1, epochs=2, start_step=start_step))
        assert len(resumed) == len(full) - start_step
        for (x, y), (ex, ey) in zip(resumed, full[start_step:]):
            np.testing.assert_array_equal(x, ex)
            np.testing.assert_array_equal(y, ey)


def test_pattern_errors_are_clear(tmp_path):
    with pytest.raises(ValueError, match=r"no corpus file matches .*nothing-\*\.txt"):
        StreamingCorpus(str(tmp_path / "nothing-*.txt"))
    with pytest.raises(ValueError, match="is a directory; pass a glob"):
        corpus_paths(tmp_path)
    with pytest.raises(ValueError, match="file list is empty"):
        corpus_paths([])
    with pytest.raises(FileNotFoundError, match="corpus file not found: .*absent.txt"):
        corpus_paths(str(tmp_path / "absent.txt"))
    with pytest.raises(TypeError, match="received int"):
        corpus_paths(3)


def test_bad_lines_are_named_by_file_and_line(tmp_path):
    bad = tmp_path / "bad.txt.gz"
    with gzip.open(bad, "wb") as handle:
        handle.write("fine line\n\nstill fine\n".encode() + b"caf\xe9 au lait\n")
    with pytest.raises(CorpusFileError, match=r"bad\.txt\.gz, line 4: not UTF-8 .*invalid continuation byte"):
        StreamingCorpus(str(bad)).scan()
    long = tmp_path / "long.txt"
    long.write_bytes(b"ok\n" + b"x " * (MAX_LINE_BYTES // 2 + 1))
    with pytest.raises(CorpusFileError, match=r"long\.txt, line 2: longer than 1,048,576 bytes; .*one sentence per"):
        StreamingCorpus(str(long)).scan()
    damaged = tmp_path / "damaged.gz"
    damaged.write_bytes(b"not gzip at all\n")
    with pytest.raises(CorpusFileError, match=r"damaged\.gz: not a complete gzip file \(files named \*\.gz are read as "
                                              r"gzip\): Not a gzipped"):
        StreamingCorpus(str(damaged)).scan()
    truncated = tmp_path / "truncated.txt.gz"
    lines = "".join(f"line {i} holds {i * 7919 % 10007}\n" for i in range(20_000)).encode()
    truncated.write_bytes(gzip.compress(lines)[:-30])
    with pytest.raises(CorpusFileError, match=r"truncated\.txt\.gz, line \d+: not a complete gzip file"):
        StreamingCorpus(str(truncated)).scan()
    blank = tmp_path / "blank.txt"
    blank.write_text("\n  \n\t\n", encoding="utf-8")
    with pytest.raises(ValueError, match="hold no sentence"):
        StreamingCorpus(str(blank)).scan()


def test_batches_need_a_scan_and_valid_settings_and_notice_changed_files(tmp_path):
    path = tmp_path / "small.txt"
    write_lines(path, ["a b", "c d e", "f"])
    corpus = StreamingCorpus(str(path))
    with pytest.raises(RuntimeError, match=r"call corpus\.scan\(\) first"):
        corpus.steps_per_epoch(2)
    vocabulary, _ = corpus.scan()
    with pytest.raises(ValueError, match=r"start_step must be an int in \[0, epochs × steps_per_epoch = 4\]"):
        corpus.batches(vocabulary, "word", 2, seed=0, epochs=2, start_step=5)
    with pytest.raises(ValueError, match="token_input must be one of"):
        corpus.batches(vocabulary, "bytes", 2, seed=0, epochs=1)
    with pytest.raises(ValueError, match="shuffle_buffer must be a positive int"):
        StreamingCorpus(str(path), shuffle_buffer=0)
    write_lines(path, ["a b", "c d e", "f", "g"])
    with pytest.raises(CorpusFileError, match=r"changed since scan\(\): 3 sentences then, more now"):
        list(corpus.epoch_sentence_batches(2, seed=0, epoch=0))


@pytest.mark.parametrize("text", ["is the bank open?", "bank " * 60, "[the bank] * 2"])
def test_a_single_sentence_is_never_taken_for_files(text, tmp_path, monkeypatch):
    """A str streams files only if it names one, or is a glob matching one: a long sentence (over the file system's
    name limit) or one with glob characters reaches the "single str" error, not an OSError or "no file matches"."""
    from elmo_keras.models.bilm.training_data import is_streamed_corpus, prepare_training_data

    monkeypatch.chdir(tmp_path)
    assert not is_streamed_corpus(text)
    with pytest.raises(TypeError, match="received a single str; wrap it in a list"):
        prepare_training_data(text, config=None, seed=0)
    write_lines(tmp_path / "a.txt", ["the bank"])
    assert is_streamed_corpus("a.txt") and is_streamed_corpus("*.txt") and is_streamed_corpus(str(tmp_path / "a?txt"))
