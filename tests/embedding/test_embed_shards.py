"""One file embedded as N shards (``embed_file(shard=(k, n))``, ``embed --shard K/N``) and merged back
(``merge_shards``, ``merge-shards``) is the one-process output, bit for bit; the merge refuses missing, duplicated
and foreign shards; bad shards are clear errors; and ``ElmoEmbedder(strategy=…)`` splits each batch across 2 replicas
(2 logical CPU devices, in a subprocess: ``tests/support/embed_strategy_worker.py``) with one device's vectors."""

import hashlib
import json
import os
import subprocess
import sys

import h5py
import numpy as np
import pytest

from elmo_keras.cli import main
from elmo_keras.embedding.embedder import ElmoEmbedder
from elmo_keras.embedding.embedder_files import OUTPUT_ATTRIBUTE, OUTPUT_MARK, SENTENCE_TO_INDEX
from elmo_keras.embedding.shards import (
    ATTRIBUTE_PREFIX,
    SORT_WINDOW_BATCHES,
    ShardRecord,
    check_shard,
    merge_shards,
    parse_shard,
    shard_lines,
)
from tests.support.backend_support import BACKEND, tensorflow_only
from tests.support.embed_strategy_worker import tiny_bilm
from tests.support.paths import REPO_ROOT

BATCH_SIZE = 2
BLOCK = BATCH_SIZE * SORT_WINDOW_BATCHES  # 32 lines: the sorting window, the unit of the shard boundaries
WORDS = "the cat sat on a mat dog ran far away by river bank".split()


def corpus_lines(count: int, seed: int = 0) -> list[str]:
    """``count`` sentences of 1–12 words, some repeated (``sentence_to_index`` keeps the last line of each)."""
    rng = np.random.default_rng(seed)
    lines = [" ".join(rng.choice(WORDS, size=rng.integers(1, 13))) for _ in range(count)]
    lines[count - 3] = lines[5] = lines[count // 2]  # one sentence on three lines, in different shards
    return lines


@pytest.fixture(scope="module")
def embedder():
    return ElmoEmbedder(bilm=tiny_bilm())


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "corpus.txt"
    path.write_text("\n".join(corpus_lines(2 * BLOCK + 6)) + "\n", encoding="utf-8")  # 70 lines: 3 blocks
    return path


@pytest.fixture(scope="module")
def whole(embedder, corpus, tmp_path_factory):
    """The one-process output of ``corpus``."""
    output = tmp_path_factory.mktemp("whole") / "whole.hdf5"
    embedder.embed_file(corpus, output, batch_size=BATCH_SIZE)
    return output


def embed_shards(embedder, corpus, directory, n, **kwargs):
    paths = [directory / f"shard-{k}-of-{n}.hdf5" for k in range(1, n + 1)]
    for k, path in enumerate(paths, start=1):
        embedder.embed_file(corpus, path, batch_size=BATCH_SIZE, shard=(k, n), **kwargs)
    return paths


def assert_same_output(first, second):
    """Same dataset names in the same order, same dtypes and shapes, equal bits, the same sentence_to_index text."""
    with h5py.File(first, "r") as a, h5py.File(second, "r") as b:
        assert list(a) == list(b)
        for name in a:
            if name != SENTENCE_TO_INDEX:
                assert a[name].dtype == b[name].dtype and a[name].shape == b[name].shape, name
                np.testing.assert_array_equal(a[name][...], b[name][...], err_msg=name, strict=True)
        assert a[SENTENCE_TO_INDEX][0] == b[SENTENCE_TO_INDEX][0]
        assert dict(b.attrs) == dict(a.attrs) == {OUTPUT_ATTRIBUTE: OUTPUT_MARK}  # ours; no shard attributes


# -- boundaries and arguments ----------------------------------------------------------------------------------


@pytest.mark.parametrize("lines, block, n", [(70, 32, 1), (70, 32, 3), (70, 32, 5), (1, 32, 4), (1000, 7, 9),
                                            (64, 32, 2), (65, 1, 64)])
def test_shards_tile_the_lines_in_whole_blocks(lines, block, n):
    ranges = [shard_lines(k, n, lines, block) for k in range(1, n + 1)]
    assert [i for r in ranges for i in r] == list(range(lines))  # in order, none twice, none left out
    assert all(r.start % block == 0 for r in ranges if r)  # every shard starts a block: the same sorting windows
    sizes = [-(-len(r) // block) for r in ranges]  # blocks per shard
    assert max(sizes) - min(sizes) <= 1


@pytest.mark.parametrize("text, expected", [("1/4", (1, 4)), (" 4/4 ", (4, 4)), ("1/1", (1, 1))])
def test_parse_shard(text, expected):
    assert parse_shard(text) == expected


@pytest.mark.parametrize("text, message", [("0/4", "between 1 and N=4"), ("5/4", "between 1 and N=4"),
                                           ("a/b", "K/N with whole numbers"), ("1-4", "K/N"), ("1/0", "N must be"),
                                           ("-1/4", "K/N"), ("2", "K/N")])
def test_bad_shards_say_what_a_shard_is(text, message):
    with pytest.raises(ValueError, match=message):
        parse_shard(text)


@pytest.mark.parametrize("shard", [(1,), "1/4", (1.0, 4), (True, 2), (0, 3), (4, 3)])
def test_check_shard_refuses(shard):
    with pytest.raises(ValueError, match="shard"):
        check_shard(shard)


# -- shards equal the one-process output ------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 3, 5])  # 5: more shards than the 3 blocks, two of them empty
def test_shards_merge_into_the_one_process_output(embedder, corpus, whole, tmp_path, n):
    paths = embed_shards(embedder, corpus, tmp_path, n)
    lines = corpus.read_text(encoding="utf-8").splitlines()
    with h5py.File(whole, "r") as one:
        for k, path in enumerate(paths, start=1):
            with h5py.File(path, "r") as shard:
                own = shard_lines(k, n, len(lines), BLOCK)
                assert set(shard) == {str(i) for i in own} | {SENTENCE_TO_INDEX}
                for i in own:  # global line index, the one-process vectors bit for bit
                    np.testing.assert_array_equal(shard[str(i)][...], one[str(i)][...], strict=True)
                index = json.loads(shard[SENTENCE_TO_INDEX][0])
                assert {int(name) for name in index.values()} <= set(own)
                assert set(index) == {lines[i] for i in own}
                record = ShardRecord.read(str(path))
                assert (record.k, record.n, record.input_lines, record.block_lines) == (k, n, len(lines), BLOCK)
    if n == 5:
        assert [len(shard_lines(k, 5, len(lines), BLOCK)) for k in range(1, 6)] == [0, 32, 0, 32, 6]
    merged = tmp_path / "merged.hdf5"
    assert merge_shards(merged, paths[::-1]) == len(lines)  # any order
    assert_same_output(whole, merged)
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".partial")]


def test_top_layer_shards_too(embedder, corpus, tmp_path):
    whole = tmp_path / "whole.hdf5"
    embedder.embed_file(corpus, whole, output_format="top", batch_size=BATCH_SIZE)
    merged = tmp_path / "merged.hdf5"
    merge_shards(merged, embed_shards(embedder, corpus, tmp_path, 2, output_format="top"))
    assert_same_output(whole, merged)


def test_progress_counts_the_shards_lines(embedder, corpus, tmp_path):
    calls = []
    count = embedder.embed_file(corpus, tmp_path / "s.hdf5", batch_size=BATCH_SIZE, shard=(3, 3),
                                progress=lambda done, total: calls.append((done, total)))
    assert count == 6 and calls == [(2, 6), (4, 6), (6, 6)]


@tensorflow_only("the default 'graph' path")
def test_batch_mates_change_a_sentence_by_float_rounding_at_most(embedder):
    """Not bit for bit: oneDNN picks its convolution and matmul kernels by shape (the batch's rows, its longest
    token), and on some CPUs of this class they round differently (6e-8 seen); shards stay bit-identical to the
    one-process output because they batch exactly alike."""
    sentences = [line.split() for line in corpus_lines(12, seed=1)]
    alone = [embedder.embed_sentence(sentence) for sentence in sentences]
    for size in (3, 12):
        for start in range(0, len(sentences), size):
            for offset, vectors in enumerate(embedder.embed_batch(sentences[start : start + size])):
                np.testing.assert_allclose(vectors, alone[start + offset], rtol=0, atol=1e-6)


# -- refusals -----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def three_shards(embedder, corpus, tmp_path_factory):
    return embed_shards(embedder, corpus, tmp_path_factory.mktemp("three"), 3)


def refuse_merge(tmp_path, shards, message):
    output = tmp_path / "merged.hdf5"
    with pytest.raises(ValueError, match=message):
        merge_shards(output, shards)
    assert not output.exists() and not [name for name in os.listdir(tmp_path) if name.endswith(".partial")]


def test_merge_refuses_a_missing_shard(three_shards, tmp_path):
    refuse_merge(tmp_path, [three_shards[0], three_shards[2]], r"shard 2/3 missing")


def test_merge_refuses_a_duplicated_shard(three_shards, tmp_path):
    copy = tmp_path / "copy.hdf5"
    copy.write_bytes(three_shards[1].read_bytes())
    refuse_merge(tmp_path, [*three_shards, copy], r"shard 2/3 is given twice")
    refuse_merge(tmp_path, [*three_shards, three_shards[0]], r"shard 1/3 is given twice")


def test_merge_refuses_a_shard_of_another_input(embedder, three_shards, tmp_path):
    other = tmp_path / "other.txt"
    other.write_text("\n".join(corpus_lines(2 * BLOCK + 6, seed=7)) + "\n", encoding="utf-8")  # as many lines
    foreign = tmp_path / "foreign.hdf5"
    embedder.embed_file(other, foreign, batch_size=BATCH_SIZE, shard=(2, 3))
    refuse_merge(tmp_path, [three_shards[0], foreign, three_shards[2]], r"foreign.hdf5 is a shard of another input")


def test_merge_refuses_shards_of_different_runs(embedder, corpus, three_shards, tmp_path):
    of_two = embed_shards(embedder, corpus, tmp_path, 2)
    refuse_merge(tmp_path, [three_shards[0], of_two[1]], r"is shard 2/2 but .* is shard 1/3")
    other_batch = tmp_path / "batch4.hdf5"
    embedder.embed_file(corpus, other_batch, batch_size=4, shard=(2, 3))
    refuse_merge(tmp_path, [three_shards[0], other_batch, three_shards[2]], r"--batch-size 4 .* --batch-size 2")


def test_merge_refuses_what_is_not_a_complete_shard(embedder, whole, three_shards, tmp_path):
    refuse_merge(tmp_path, [whole], r"not a shard written by embed --shard")
    text = tmp_path / "notes.txt"
    text.write_text("not HDF5\n", encoding="utf-8")
    refuse_merge(tmp_path, [text], r"not an HDF5 file")
    damaged = tmp_path / "damaged.hdf5"
    damaged.write_bytes(three_shards[1].read_bytes())
    with h5py.File(damaged, "a") as handle:
        del handle["40"]
    refuse_merge(tmp_path, [three_shards[0], damaged, three_shards[2]], r"damaged.hdf5 \(shard 2/3\).*lacks \['40'\]")
    with pytest.raises(ValueError, match="give the shard files"):
        merge_shards(tmp_path / "merged.hdf5", [])


def test_merge_never_writes_over_a_shard(three_shards):
    before = three_shards[0].read_bytes()
    with pytest.raises(ValueError, match="is shard file"):
        merge_shards(three_shards[0], three_shards)
    assert three_shards[0].read_bytes() == before


def test_bad_or_stateful_shards_are_refused_before_embedding(corpus, tmp_path):
    stateful = ElmoEmbedder(bilm=tiny_bilm(), stateful=True)
    with pytest.raises(ValueError, match="shard= needs a stateless embedder"):
        stateful.embed_file(corpus, tmp_path / "s.hdf5", shard=(1, 2))
    with pytest.raises(ValueError, match="between 1 and N=2"):
        ElmoEmbedder(bilm=tiny_bilm()).embed_file(corpus, tmp_path / "s.hdf5", shard=(0, 2))
    assert list(tmp_path.iterdir()) == []


def test_the_record_is_in_the_attributes(three_shards, corpus):
    with h5py.File(three_shards[1], "r") as handle:
        attributes = {name.removeprefix(ATTRIBUTE_PREFIX): value for name, value in handle.attrs.items()}
    assert attributes["input_sha256"] == hashlib.sha256(corpus.read_bytes()).hexdigest()
    assert (attributes["k"], attributes["n"], attributes["first_line"], attributes["stop_line"]) == (2, 3, 32, 64)


# -- the command line ---------------------------------------------------------------------------------------------


@pytest.mark.fixtures
def test_embed_shard_and_merge_shards_commands(model_dir, tmp_path, capsys):
    corpus = tmp_path / "input.txt"
    corpus.write_text("\n".join(corpus_lines(20)) + "\n", encoding="utf-8")  # batch 1: blocks of 16, 2 blocks
    model = ["--options", str(model_dir / "options.json"), "--weights", str(model_dir / "lm_weights.hdf5"),
             "--batch-size", "1"]
    assert main(["embed", str(corpus), str(tmp_path / "whole.hdf5"), *model, "--quiet"]) == 0
    shards = [str(tmp_path / f"part{k}.hdf5") for k in (1, 2, 3)]
    capsys.readouterr()
    for k, shard in enumerate(shards, start=1):
        assert main(["embed", str(corpus), shard, *model, "--shard", f"{k}/3"]) == 0
    err = capsys.readouterr().err
    assert "[" + "#" * 30 + "] 16/16 sentences" in err and "wrote 16 sentences (all)" in err  # shard 2/3's lines
    assert "shard 1/3 is empty" in err and "wrote 4 sentences (all)" in err and "(shard 3/3)" in err
    assert main(["merge-shards", str(tmp_path / "merged.hdf5"), *shards]) == 0
    assert "merged 3 shards (20 sentences)" in capsys.readouterr().err
    assert_same_output(tmp_path / "whole.hdf5", tmp_path / "merged.hdf5")

    assert main(["merge-shards", str(tmp_path / "bad.hdf5"), shards[0], shards[2]]) == 1
    assert capsys.readouterr().err == ("error: shard 2/3 missing: give all 3 shards of the run "
                                       "(embed --shard K/3 for each missing K)\n")


@pytest.mark.parametrize("value, message", [("0/4", "between 1 and N=4"), ("5/4", "between 1 and N=4"),
                                            ("a/b", "K/N with whole numbers")])
def test_embed_shard_argument_errors(tmp_path, capsys, value, message):
    with pytest.raises(SystemExit) as stopped:
        main(["embed", "in.txt", str(tmp_path / "o.hdf5"), "--model-dir", str(tmp_path), "--shard", value])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "argument --shard" in err and message in err


def test_embed_refuses_stateful_shards(tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["embed", "in.txt", str(tmp_path / "o.hdf5"), "--model-dir", str(tmp_path), "--shard", "1/2",
              "--stateful"])
    assert stopped.value.code == 2 and "--shard needs stateless embedding" in capsys.readouterr().err


# -- several devices in one process -------------------------------------------------------------------------------


@tensorflow_only("tf.distribute.MirroredStrategy splits each batch across 2 logical CPU devices")
def test_a_strategy_gives_one_devices_vectors(tmp_path):
    out = tmp_path / "result.json"
    done = subprocess.run([sys.executable, "-m", "tests.support.embed_strategy_worker", str(out)], cwd=REPO_ROOT,
                          env=dict(os.environ, KERAS_BACKEND="tensorflow"), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["replicas"] == 2
    assert result["five"] <= 1e-5 and result["one"] <= 1e-5  # an odd batch; fewer rows than replicas
    assert result["five_scale"] > 0.1  # the vectors are far from zero: the comparison means something


def test_strategy_arguments_are_checked():
    bilm = tiny_bilm()
    with pytest.raises(ValueError, match="strategy= needs stateful=False and execution='graph'"):
        ElmoEmbedder(bilm=bilm, stateful=True, strategy="mirrored")
    with pytest.raises(ValueError, match="strategy= needs stateful=False and execution='graph'"):
        ElmoEmbedder(bilm=bilm, execution="xla", strategy="mirrored")
    with pytest.raises(ValueError, match="strategy must be None, 'mirrored' or a tf.distribute.Strategy"):
        ElmoEmbedder(bilm=bilm, strategy="data-parallel")
    with pytest.raises(ValueError, match="strategy must be None, 'mirrored' or a tf.distribute.Strategy"):
        ElmoEmbedder(bilm=bilm, strategy=object())
    if BACKEND != "tensorflow":
        with pytest.raises(ValueError, match="needs the tensorflow backend"):
            ElmoEmbedder(bilm=bilm, strategy="mirrored")
