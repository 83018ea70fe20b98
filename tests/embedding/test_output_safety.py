"""What ``embed``, ``merge-shards`` and ``export_pretrained`` may write over (issue 36, items 3, 4 and 5): no output is
a download-cache record, lock or partial file, or lies in the cache; ``merge-shards CORPUS S1 S2 S3`` (the output
forgotten) and any existing file that is not an output of ours are refused, not replaced; and two writers of one
output (threads, processes, a killed one) never destroy each other or a finished output."""

import os
import signal
import subprocess
import sys
import threading
import time

import h5py
import numpy as np
import pytest

from elmo_keras.cli import main
from elmo_keras.embedding.embedder import ElmoEmbedder
from elmo_keras.embedding.embedder_files import (
    OUTPUT_ATTRIBUTE,
    OUTPUT_MARK,
    SENTENCE_TO_INDEX,
    check_embed_paths,
    is_embed_output,
    write_sentence_to_index,
    writing_hdf5,
)
from elmo_keras.embedding.shards import merge_shards
from elmo_keras.pretrained.export import export_pretrained
from elmo_keras.safe_files import OutputOverwritesInputError, new_file_mode
from tests.support.embed_strategy_worker import tiny_bilm
from tests.support.paths import REPO_ROOT

BATCH_SIZE = 2
LINES = [" ".join(["word"] * (1 + i % 5)) for i in range(40)]  # 40 lines: 2 blocks of 32


@pytest.fixture(scope="module")
def bilm():
    return tiny_bilm()


@pytest.fixture(scope="module")
def embedder(bilm):
    return ElmoEmbedder(bilm=bilm)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "in40.txt"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def shards(embedder, corpus, tmp_path_factory):
    directory = tmp_path_factory.mktemp("shards")
    paths = [directory / f"s{k}.h5" for k in (1, 2, 3)]
    for k, path in enumerate(paths, start=1):
        embedder.embed_file(corpus, path, batch_size=BATCH_SIZE, shard=(k, 3))
    return paths


@pytest.fixture
def fake_model(tmp_path):
    """Model files never loaded: the refusals come first."""
    options, weights = tmp_path / "options.json", tmp_path / "W.hdf5"
    options.write_text("{}", encoding="utf-8")
    weights.write_bytes(b"\x89HDF weights")
    return ["--options", str(options), "--weights", str(weights)]


def partials(directory):
    return sorted(name for name in os.listdir(directory) if name.endswith(".partial"))


def one_line_error(argv, capsys, message):
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err, err
    return err


# -- item 3: no output is part of the download cache (nor another writer's temporary file) -----------------------


@pytest.mark.parametrize("name, message", [("W.hdf5.sha256", "is the SHA-256 record of W.hdf5"),
                                           ("W.hdf5.lock", "is the download lock of W.hdf5"),
                                           (".W.hdf5.download-abcd1234.tmp", "named like a partial download"),
                                           (".out.h5.abcd_123.partial", "named like the temporary file of another "
                                                                        "output")])
def test_embed_and_merge_refuse_a_cache_record_lock_or_partial(corpus, shards, fake_model, tmp_path, capsys, name,
                                                               message):
    target = tmp_path / name
    one_line_error(["embed", str(corpus), str(target), *fake_model, "--quiet"], capsys, message)
    one_line_error(["merge-shards", str(target), *map(str, shards)], capsys, message)
    with pytest.raises(OutputOverwritesInputError, match=message):
        check_embed_paths(corpus, target, {}, {})
    assert not target.exists() and not partials(tmp_path)


def test_an_existing_record_is_refused_too(corpus, shards, fake_model, tmp_path, capsys):
    """`: > W.sha256` then `embed in.txt W.sha256`: an empty file would otherwise count as replaceable."""
    record = tmp_path / "W.hdf5.sha256"
    record.write_bytes(b"")
    one_line_error(["embed", str(corpus), str(record), *fake_model, "--quiet"], capsys, "SHA-256 record")
    one_line_error(["merge-shards", str(record), *map(str, shards)], capsys, "SHA-256 record")
    assert record.read_bytes() == b""


def test_outputs_inside_the_download_cache_are_refused(corpus, shards, fake_model, tmp_path, monkeypatch, capsys):
    cache = tmp_path / "cache"
    (cache / "https" / "host").mkdir(parents=True)
    monkeypatch.setenv("ELMO_KERAS_PRETRAINED_DIR", str(cache))
    target = cache / "https" / "host" / "new.hdf5"
    one_line_error(["embed", str(corpus), str(target), *fake_model, "--quiet"], capsys, "inside the download cache")
    one_line_error(["merge-shards", str(target), *map(str, shards)], capsys, "inside the download cache")
    assert not target.exists()


@pytest.mark.parametrize("which", ["options", "weights"])
def test_export_refuses_cache_records_and_locks(bilm, tmp_path, which):
    """`export_pretrained(bilm, W + ".sha256", …)` was accepted."""
    weights = tmp_path / "W.hdf5"
    weights.write_bytes(b"released weights")
    for suffix, message in ((".sha256", "is the SHA-256 record of W.hdf5"),
                            (".lock", "is the download lock of W.hdf5")):
        bad = str(weights) + suffix
        targets = (bad, tmp_path / "new.hdf5") if which == "options" else (tmp_path / "o.json", bad)
        with pytest.raises(OutputOverwritesInputError, match=f"^the {which[:6]}.* file {bad} {message}"):
            export_pretrained(bilm, *targets)
    assert sorted(os.listdir(tmp_path)) == ["W.hdf5"]


# -- item 4: an existing file that is not an output of ours is never replaced -----------------------------------


def test_merge_refuses_the_corpus_when_the_output_is_forgotten(corpus, shards, capsys):
    """`merge-shards in40.txt s1.h5 s2.h5 s3.h5` printed "merged 3 shards (40 sentences) into in40.txt": the text
    was gone."""
    before = corpus.read_bytes()
    one_line_error(["merge-shards", str(corpus), *map(str, shards)], capsys,
                   f"output {corpus} is the input the shards were embedded from (its SHA-256 is the one they "
                   "record), and writing it would destroy it; give the output file first: merge-shards OUTPUT")
    assert corpus.read_bytes() == before and not partials(corpus.parent)


def test_merge_refuses_a_copy_of_the_corpus_and_any_other_foreign_file(corpus, shards, tmp_path, capsys):
    copy = tmp_path / "copy.txt"
    copy.write_bytes(corpus.read_bytes())
    with pytest.raises(OutputOverwritesInputError, match="is the input the shards were embedded from"):
        merge_shards(copy, shards)
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n", encoding="utf-8")
    weights = tmp_path / "weights.hdf5"
    with h5py.File(weights, "w") as handle:
        handle.create_dataset("CNN/W_cnn_0", data=np.ones(3, np.float32))
    foreign = "exists and is not an HDF5 file written by embed or merge-shards, so writing it would destroy it"
    for path in (notes, weights):
        before = path.read_bytes()
        one_line_error(["merge-shards", str(path), *map(str, shards)], capsys, foreign)
        assert path.read_bytes() == before
    assert copy.read_bytes() == corpus.read_bytes() and not partials(tmp_path)


def test_embed_refuses_a_text_file_as_its_output(embedder, corpus, tmp_path, fake_model, capsys):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n", encoding="utf-8")
    one_line_error(["embed", str(corpus), str(notes), *fake_model, "--quiet"], capsys, "is not an HDF5 file written")
    with pytest.raises(OutputOverwritesInputError, match="is not an HDF5 file written by embed"):
        embedder.embed_file(corpus, notes, batch_size=BATCH_SIZE)
    copy = tmp_path / "copy.txt"
    copy.write_bytes(corpus.read_bytes())
    with pytest.raises(OutputOverwritesInputError, match="is not an HDF5 file written by embed"):
        embedder.embed_file(corpus, copy, batch_size=BATCH_SIZE)
    assert notes.read_text(encoding="utf-8") == "my notes\n" and copy.read_bytes() == corpus.read_bytes()


def test_our_outputs_old_and_new_and_empty_files_are_replaced(embedder, corpus, shards, tmp_path):
    output = tmp_path / "out.h5"
    embedder.embed_file(corpus, output, batch_size=BATCH_SIZE)
    with h5py.File(output, "r") as handle:
        assert handle.attrs[OUTPUT_ATTRIBUTE] == OUTPUT_MARK
    assert is_embed_output(output) and merge_shards(output, shards) == 40  # ours: replaced
    legacy = tmp_path / "legacy.h5"  # written before the attribute (or by AllenNLP): the layout is recognised
    with h5py.File(legacy, "w") as handle:
        handle.create_dataset("0", data=np.zeros((3, 1, 16), np.float32))
        write_sentence_to_index(handle, {"a": "0"})
    empty = tmp_path / "empty.h5"
    empty.write_bytes(b"")  # holds nothing to lose
    for path in (legacy, empty):
        assert is_embed_output(path)
        embedder.embed_file(corpus, path, batch_size=BATCH_SIZE)
        with h5py.File(path, "r") as handle:
            assert len(handle) == 41 and SENTENCE_TO_INDEX in handle
    grouped = tmp_path / "grouped.h5"
    with h5py.File(grouped, "w") as handle:
        write_sentence_to_index(handle, {})
        handle.create_group("0")
    assert not is_embed_output(grouped)


# -- item 5: two writers of one output --------------------------------------------------------------------------


def write_marked(output, who, hold=None, fail=False):
    """Write ``output`` with a dataset ``who``; wait for ``hold`` (an Event) in the middle; raise if ``fail``."""
    with writing_hdf5(str(output)) as handle:
        handle.create_dataset("who", data=np.array([who]))
        if hold is not None:
            hold.wait(30)
        if fail:
            raise RuntimeError(f"writer {who} fails")
        handle.create_dataset("done", data=np.ones(1000, np.float32))


def written_by(output):
    with h5py.File(output, "r") as handle:
        assert handle["done"].shape == (1000,)  # complete
        return int(handle["who"][0])


def test_a_failing_second_writer_leaves_the_first_ones_file(tmp_path):
    """The second writer truncated (or failed to open) the fixed OUTPUT.partial, then deleted it in its finally."""
    output = tmp_path / "race.h5"
    release, errors = threading.Event(), []

    def first():
        try:
            write_marked(output, 1, hold=release)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    thread = threading.Thread(target=first)
    thread.start()
    deadline = time.monotonic() + 30
    while not partials(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.01)
    held = partials(tmp_path)
    assert len(held) == 1 and held[0].startswith(".race.h5.")
    with pytest.raises(RuntimeError, match="writer 2 fails"):
        write_marked(output, 2, fail=True)
    assert partials(tmp_path) == held  # the second writer deleted only its own
    release.set()
    thread.join(30)
    assert errors == [] and written_by(output) == 1 and partials(tmp_path) == []


def test_two_writers_both_finish_and_the_last_wins(tmp_path):
    output = tmp_path / "race.h5"
    write_marked(output, 0)  # a finished output, never lost
    release, errors = threading.Event(), []
    thread = threading.Thread(target=lambda: errors.append(write_marked(output, 1, hold=release)))
    thread.start()
    while not partials(tmp_path):
        time.sleep(0.01)
    assert written_by(output) == 0
    write_marked(output, 2)  # meanwhile a second writer finishes
    assert written_by(output) == 2
    release.set()
    thread.join(30)
    assert errors == [None] and written_by(output) == 1 and partials(tmp_path) == []
    assert os.stat(output).st_mode & 0o777 == new_file_mode()  # a new file's permissions, not mkstemp's 0600


WRITER = """
import pathlib, sys, time
import numpy as np
from elmo_keras.embedding.embedder_files import writing_hdf5
output, ready, go = sys.argv[1:4]
with writing_hdf5(output) as handle:
    handle.create_dataset("who", data=np.array([1]))
    pathlib.Path(ready).touch()
    while not pathlib.Path(go).exists():
        time.sleep(0.01)
    handle.create_dataset("done", data=np.ones(1000, np.float32))
"""


def start_writer(output, directory, tag):
    ready, go = directory / f"{tag}.ready", directory / f"{tag}.go"
    process = subprocess.Popen([sys.executable, "-c", WRITER, str(output), str(ready), str(go)], cwd=REPO_ROOT,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not ready.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert ready.exists(), process.stderr.read() if process.poll() is not None else "the writer did not start"
    return process, go


def test_concurrent_processes_and_a_killed_one(tmp_path):
    """Two `embed … race.h5` runs 4 s apart both failed and no race.h5 was left; a killed run's partial stays
    until the next write of the same output, which deletes it (no process holds it) but not a live one's."""
    signals = tmp_path / "signals"
    signals.mkdir()
    directory = tmp_path / "out"
    directory.mkdir()
    output = directory / "race.h5"
    process, go = start_writer(output, signals, "first")
    live = partials(directory)
    assert len(live) == 1
    write_marked(output, 2)  # the second writer wins cleanly, and leaves the first one's partial alone
    assert written_by(output) == 2 and partials(directory) == live
    with pytest.raises(RuntimeError):
        write_marked(output, 3, fail=True)
    assert partials(directory) == live and written_by(output) == 2
    go.touch()
    assert process.wait(60) == 0, process.stderr.read()
    assert written_by(output) == 1 and partials(directory) == []

    killed, _ = start_writer(output, signals, "killed")
    killed.send_signal(signal.SIGKILL)
    killed.wait(60)
    stale = partials(directory)
    assert len(stale) == 1 and written_by(output) == 1  # a kill -9 leaves its partial; the output is intact
    write_marked(output, 4)
    assert written_by(output) == 4 and partials(directory) == []


def test_an_input_named_like_a_temporary_file_of_the_output_is_refused(tmp_path):
    """Such a file would be deleted as a stale partial; checked as OUTPUT.partial used to be."""
    source = tmp_path / ".out.h5.abcd1234.partial"
    source.write_text("a sentence\n", encoding="utf-8")
    with pytest.raises(OutputOverwritesInputError, match="is named like a temporary file of the output"):
        check_embed_paths(source, tmp_path / "out.h5", {}, {})
    check_embed_paths(source, tmp_path / "other.h5", {}, {})  # another output's name pattern: fine
    assert source.exists()
