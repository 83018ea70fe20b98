"""Hostile and damaged shard files (issue 36, items 8, 10 and 11): every recorded number is checked against what the
files can hold before it is used (no MemoryError, no hang, no raw TypeError), every dataset's kind, shape, dtype
and values, and ``sentence_to_index``'s type and JSON; each failure is one line naming the file and the attribute or
dataset, and nothing is written. ``N`` is capped at ``limits.MAX_SHARDS`` before any work (``embed --shard``)."""

import json
import os
import shutil
import subprocess
import sys
import time

import h5py
import numpy as np
import pytest

from elmo_keras.cli import main
from elmo_keras.embedding.embedder import ElmoEmbedder
from elmo_keras.embedding.embedder_files import SENTENCE_TO_INDEX
from elmo_keras.embedding.shards import ATTRIBUTE_PREFIX, SORT_WINDOW_BATCHES, merge_shards, parse_shard
from elmo_keras.limits import MAX_SHARDS
from tests.support.embed_strategy_worker import tiny_bilm
from tests.support.paths import REPO_ROOT

BATCH_SIZE = 2
BLOCK = BATCH_SIZE * SORT_WINDOW_BATCHES  # 32 lines
WORDS = "the cat sat on a mat dog ran far away by river bank".split()


@pytest.fixture(scope="module")
def embedder():
    return ElmoEmbedder(bilm=tiny_bilm())


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    rng = np.random.default_rng(3)
    lines = [" ".join(rng.choice(WORDS, size=rng.integers(1, 13))) for _ in range(2 * BLOCK + 6)]  # 70: 3 blocks
    path = tmp_path_factory.mktemp("corpus") / "corpus.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def shards(embedder, corpus, tmp_path_factory):
    """The three shards of ``corpus``: lines 0–31, 32–63 and 64–69."""
    directory = tmp_path_factory.mktemp("shards")
    paths = [directory / f"s{k}.hdf5" for k in (1, 2, 3)]
    for k, path in enumerate(paths, start=1):
        embedder.embed_file(corpus, path, batch_size=BATCH_SIZE, shard=(k, 3))
    return paths


def tampered(tmp_path, source, edit, name="tampered.hdf5"):
    """A copy of the shard ``source`` changed by ``edit(handle)``."""
    path = tmp_path / name
    shutil.copyfile(source, path)
    with h5py.File(path, "a") as handle:
        edit(handle)
    return path


def partials(directory):
    return [name for name in os.listdir(directory) if name.endswith(".partial")]


def refused(tmp_path, paths, message, names=None):
    """``merge_shards`` refuses ``paths`` with one line matching ``message`` (naming ``names``), writing nothing."""
    output = tmp_path / "merged.hdf5"
    with pytest.raises(ValueError, match=message) as info:
        merge_shards(output, paths)
    text = str(info.value)
    assert "\n" not in text, text
    for name in names or []:
        assert str(name) in text, text
    assert not output.exists() and not partials(tmp_path)
    return text


def with_attribute(field, value):
    def edit(handle):
        handle.attrs[ATTRIBUTE_PREFIX + field] = value
    return edit


def without_attribute(field):
    def edit(handle):
        del handle.attrs[ATTRIBUTE_PREFIX + field]
    return edit


# -- the record: every number checked before it is used ---------------------------------------------------------


@pytest.mark.parametrize("edit, message", [
    (with_attribute("k", 1.9), r"elmo_keras_shard_k is 1.9 \(float64\), not a whole number"),  # was read as 1
    (with_attribute("k", 2.0), r"elmo_keras_shard_k is 2.0 \(float64\), not a whole number"),
    (with_attribute("k", np.bool_(True)), "not a whole number"),
    (with_attribute("k", "2"), r"elmo_keras_shard_k is '2' \(str\), not a whole number"),
    (with_attribute("k", "abc"), "not a whole number"),  # was: invalid literal for int() with base 10, no file
    (with_attribute("k", np.array([2, 3])), "not a whole number"),  # was: a TypeError
    (with_attribute("k", 0), r"elmo_keras_shard_k is 0, not a shard number of N = 3 \(1 to 3\)"),
    (with_attribute("k", 4), "not a shard number of N = 3"),
    (with_attribute("n", 0), r"elmo_keras_shard_n is 0, not a number of shards \(1 to 100,000\)"),
    (with_attribute("n", 10**8), "elmo_keras_shard_n is 100,000,000, not a number of shards"),  # was: MemoryError
    (with_attribute("block_lines", 0), "block_lines is 0, but embed --shard writes --batch-size × 16 = 32"),
    (with_attribute("block_lines", 7), "block_lines is 7"),
    (with_attribute("batch_size", 0), "batch_size is 0, not a batch size"),
    (with_attribute("input_lines", 0), "input_lines is 0, not a number of lines"),
    (with_attribute("input_lines", -5), "input_lines is -5"),
    (with_attribute("input_sha256", 5), r"input_sha256 is 5 \(int64\), not a text"),
    (with_attribute("input_sha256", "xyz"), "input_sha256 is 'xyz', not a SHA-256"),
    (with_attribute("output_format", "mean"), "output_format is 'mean', not one of all, top, average"),
    (with_attribute("output_format", 3), "not a text"),
    (with_attribute("first_line", 0), "first_line is 0, but its other attributes give the shard lines 32–63"),
    (with_attribute("stop_line", 1.5), "stop_line is 1.5 .*not a whole number"),
    (without_attribute("k"), "is not a shard written by embed --shard K/N .*no elmo_keras_shard_k attribute"),
])
def test_a_hostile_record_is_one_line_naming_the_file_and_attribute(shards, tmp_path, edit, message):
    bad = tampered(tmp_path, shards[1], edit)
    refused(tmp_path, [shards[0], bad, shards[2]], message, [bad])


def test_an_empty_attribute_is_no_number(shards, tmp_path):
    bad = tampered(tmp_path, shards[1], with_attribute("k", h5py.Empty("i8")))
    refused(tmp_path, [shards[0], bad, shards[2]], "elmo_keras_shard_k is .* not a whole number", [bad])


LIMITED = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))
from elmo_keras.embedding.shards import merge_shards
try:
    merge_shards(sys.argv[1], sys.argv[2:])
    print(json.dumps(["ok", ""]))
except BaseException as error:
    print(json.dumps([type(error).__name__, str(error)]))
"""


def merge_in_a_small_process(output, paths, seconds=60):
    """``merge_shards`` in a subprocess with 2 GiB of address space: ``(exception name, message)`` or a timeout."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", LIMITED, str(output), *map(str, paths)], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=seconds,
                          env=dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1"))
    assert done.returncode == 0, done.stderr[-2000:]
    return (*json.loads(done.stdout.strip().splitlines()[-1]), time.monotonic() - started)


def test_a_huge_shard_count_is_refused_without_enumerating_it(shards, tmp_path):
    """``n = 10**8`` in every shard gave a raw MemoryError listing the missing shards."""
    huge = [tampered(tmp_path, path, with_attribute("n", 10**8), name=f"h{k}.hdf5") for k, path in enumerate(shards)]
    kind, message, _ = merge_in_a_small_process(tmp_path / "merged.hdf5", huge)
    assert kind == "ShardFileError" and "elmo_keras_shard_n is 100,000,000, not a number of shards" in message


def test_missing_shards_are_counted_not_listed(shards, tmp_path):
    """N = MAX_SHARDS with 3 files: the first 10 missing are named, the rest counted, at once."""
    def edit(k):
        def change(handle):
            handle.attrs[ATTRIBUTE_PREFIX + "n"] = MAX_SHARDS
            handle.attrs[ATTRIBUTE_PREFIX + "k"] = k
            del handle.attrs[ATTRIBUTE_PREFIX + "first_line"], handle.attrs[ATTRIBUTE_PREFIX + "stop_line"]
        return change
    paths = [tampered(tmp_path, path, edit(k), name=f"m{k}.hdf5") for k, path in enumerate(shards, start=1)]
    started = time.monotonic()
    text = refused(tmp_path, paths, r"shard 4/100000, 5/100000, .*, 13/100000 and 99,987 more missing: give all "
                                    r"100,000 shards")
    assert time.monotonic() - started < 5, text


def test_a_record_claiming_a_trillion_lines_is_refused_at_once(shards, tmp_path):
    """``input_lines = 10**12, n = 1`` (block_lines = 1 then, refused now on its own) kept ``_check_contents``
    building the names of 10**12 lines."""
    def edit(handle):
        for field, value in (("k", 1), ("n", 1), ("input_lines", 10**12)):
            handle.attrs[ATTRIBUTE_PREFIX + field] = value
        del handle.attrs[ATTRIBUTE_PREFIX + "first_line"], handle.attrs[ATTRIBUTE_PREFIX + "stop_line"]
    bad = tampered(tmp_path, shards[0], edit)
    kind, message, seconds = merge_in_a_small_process(tmp_path / "merged.hdf5", [bad])
    assert kind == "ShardFileError", message
    assert f"{bad} (shard 1/1) should hold the datasets of its 1,000,000,000,000 lines" in message
    assert "but it holds 33 members" in message and seconds < 30
    bad = tampered(tmp_path, shards[0], with_attribute("block_lines", 1), name="block1.hdf5")
    refused(tmp_path, [bad, *shards[1:]], "block_lines is 1", [bad])


# -- the contents: kind, shape, dtype, values, sentence_to_index ------------------------------------------------


def replace(name, make):
    def edit(handle):
        del handle[name]
        make(handle, name)
    return edit


def all_values(value):
    def edit(handle):
        for name in handle:
            if name != SENTENCE_TO_INDEX:
                handle[name][...] = value
    return edit


def one_value(name, value):
    def edit(handle):
        data = handle[name][...]
        data.flat[3] = value
        handle[name][...] = data
    return edit


def index_text(text):
    return replace(SENTENCE_TO_INDEX, lambda h, n: h.create_dataset(n, (1,), dtype=h5py.string_dtype("utf-8"),
                                                                    data=[text]))


def mapped(change):
    """``sentence_to_index`` rewritten as ``change(index)`` returns it."""
    def edit(handle):
        index = json.loads(handle[SENTENCE_TO_INDEX][0])
        del handle[SENTENCE_TO_INDEX]
        handle.create_dataset(SENTENCE_TO_INDEX, (1,), dtype=h5py.string_dtype("utf-8"),
                              data=[json.dumps(change(index))])
    return edit


def first_item_with(transform):
    def change(index):
        text, name = next(iter(index.items()))
        del index[text]
        return {**index, **dict([transform(text, name)])}
    return change


@pytest.mark.parametrize("edit, message", [
    (replace("40", lambda h, n: h.create_group(n)), "40 is a Group, not a dataset"),
    (replace("40", lambda h, n: h.create_dataset(n, data=np.arange(7.0))), r"dataset 40 is float64 of shape \(7,\)"),
    (replace("40", lambda h, n: h.create_dataset(n, data=np.zeros((3, 4, 16)))), "dataset 40 is float64"),
    (replace("40", lambda h, n: h.create_dataset(n, data=np.zeros((4, 16), np.float32))),
     r"of shape \(4, 16\), but --all shards hold float32 arrays of shape \(layers, tokens, dim\)"),
    (replace("40", lambda h, n: h.create_dataset(n, data=np.zeros((3, 0, 16), np.float32))), "at least one token"),
    (replace("40", lambda h, n: h.create_dataset(n, data=np.zeros((3, 4, 5), np.float32))),
     r"dataset 40 has shape \(3, 4, 5\), but the shards' vectors are \(3, tokens, 16\).*another model"),
    (replace("40", lambda h, n: h.__setitem__(n, h5py.SoftLink("/41"))), r"40 is a link \(SoftLink\)"),
    (replace("40", lambda h, n: h.__setitem__(n, h5py.ExternalLink("/etc/passwd", "/x"))),
     r"40 is a link \(ExternalLink\)"),
    (replace("40", lambda h, n: h.create_dataset(n, (3, 10**7, 16), dtype=np.float32, chunks=(1, 1, 16))),
     "dataset 40 is not stored whole and contiguous"),  # 1.9 GB of fill values from a small file
    (all_values(np.nan), "holds NaN or infinite values"),  # an all-NaN shard was merged, exit 0
    (one_value("50", np.inf), "dataset 50 holds NaN or infinite values"),
    (lambda h: h.create_dataset("70", data=np.zeros((3, 1, 16), np.float32)), r"also holds \['70'\]"),
    (replace(SENTENCE_TO_INDEX, lambda h, n: h.create_group(n)), "sentence_to_index is a Group"),
    (replace(SENTENCE_TO_INDEX, lambda h, n: h.create_dataset(n, data=[7])),
     "sentence_to_index is int64 of shape .* not the 1-element string dataset"),  # was: TypeError in json.loads
    (replace(SENTENCE_TO_INDEX, lambda h, n: h.create_dataset(n, (0,), dtype=h5py.string_dtype())),
     "not the 1-element string dataset"),  # was: IndexError
    (index_text("{not json"), "sentence_to_index is not JSON text .*JSONDecodeError"),  # was: no file named
    (replace(SENTENCE_TO_INDEX, lambda h, n: h.create_dataset(n, (1,), dtype=h5py.string_dtype("ascii"),
                                                              data=[b"\xff\xfe"])), "is not JSON text"),
    (index_text("[1, 2]"), "not a JSON object of sentence → dataset name"),
    (index_text('{"a": 5}'), "not a JSON object"),
    (mapped(first_item_with(lambda text, name: (text, "5"))), r"maps .* to '5', not a dataset of its lines 32–63"),
    (mapped(lambda index: {**index, "zz": next(iter(index.values()))}), "maps both .* and 'zz' to dataset"),
    (mapped(first_item_with(lambda text, name: (text + " extra", name))), r"dataset \d+ has \d+ tokens, but its "
                                                                          "sentence"),
])
def test_a_hostile_dataset_is_one_line_naming_the_file_and_dataset(shards, tmp_path, edit, message):
    bad = tampered(tmp_path, shards[1], edit)
    refused(tmp_path, [shards[0], bad, shards[2]], message, [bad])


def test_the_command_prints_one_line_for_a_hostile_shard(shards, tmp_path, capsys):
    bad = tampered(tmp_path, shards[1], with_attribute("k", 1.9))
    output = tmp_path / "merged.hdf5"
    assert main(["merge-shards", str(output), str(shards[0]), str(bad), str(shards[2])]) == 1
    err = capsys.readouterr().err
    assert err == (f"error: {bad}: its attribute elmo_keras_shard_k is 1.9 (float64), not a whole number; embed it "
                   "again (embed --shard K/N)\n")
    bad = tampered(tmp_path, shards[1], all_values(np.nan), name="nan.hdf5")
    assert main(["merge-shards", str(output), str(shards[0]), str(bad), str(shards[2])]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {bad}: dataset ") and err.count("\n") == 1 and "NaN" in err
    assert not output.exists() and not partials(tmp_path)


def test_intact_shards_still_merge(shards, tmp_path):
    assert merge_shards(tmp_path / "merged.hdf5", shards[::-1]) == 70


# -- N is capped before any work --------------------------------------------------------------------------------


@pytest.mark.parametrize("text, message", [
    ("1/99999999999999999999999", "at most 100,000, received a number of 23 digits"),  # was: TypeError dtype('O')
    ("1/" + "9" * 5000, "at most 100,000, received a number of 5,000 digits"),  # int() refuses 5,000 digits itself
    ("1/100001", "at most 100,000"),
    ("123456/100000", "between 1 and N=100000"),
    ("9" * 5000 + "/4", "between 1 and N=4 .*, received a number of 5,000 digits"),
    ("²/4", "K/N with whole numbers"),  # '²'.isdigit() is True, int('²') an error
])
def test_parse_shard_caps_n_and_refuses_huge_numbers(text, message):
    with pytest.raises(ValueError, match=message) as info:
        parse_shard(text)
    assert len(str(info.value)) < 300


def test_parse_shard_accepts_the_maximum():
    assert parse_shard(f"{MAX_SHARDS}/{MAX_SHARDS}") == (MAX_SHARDS, MAX_SHARDS) and parse_shard("01/04") == (1, 4)


def test_embed_refuses_a_huge_shard_count_before_embedding(embedder, corpus, tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["embed", str(corpus), str(tmp_path / "o.hdf5"), "--model-dir", str(tmp_path), "--shard",
              "1/99999999999999999999999"])
    assert stopped.value.code == 2 and "at most 100,000" in capsys.readouterr().err
    for shard in ((1, 10**23), (1, 10**5000), (10**5000, 3)):
        with pytest.raises(ValueError, match="at most 100,000|between 1 and N=3 .*, received a number of"):
            embedder.embed_file(corpus, tmp_path / "o.hdf5", batch_size=BATCH_SIZE, shard=shard)
    assert list(tmp_path.iterdir()) == []
