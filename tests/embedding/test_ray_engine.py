"""``embed --engine ray`` (``embedding.ray_engine``) on a local 2-worker Ray cluster: a corpus of two files (one
gzipped) embedded by the shipped toy biLM is the one-process ``embed`` output of the files joined, bit for bit, also
when a worker is killed in the middle of a window; a bad line fails before Ray starts, naming the file and the line;
an embedder's error names its window's files and lines; and without Ray the command says in one line what to install.
"""

import gzip
import os
import signal
import sys

import h5py
import pytest

from tests.support.backend_support import BACKEND

if BACKEND != "tensorflow":
    pytest.skip("the Ray engine's plumbing (windows, workers, restarts, the writer) is the same on every backend and "
                "its workers run the embedder tested on each; one backend's run of this module (TensorFlow) is enough",
                allow_module_level=True)
ray = pytest.importorskip("ray", reason='Ray Data is not installed (the ray extra: pip install "elmo_keras[ray]")')

from elmo_keras.cli import main  # noqa: E402
from elmo_keras.embedding import ray_engine  # noqa: E402
from elmo_keras.embedding.ray_engine import EmbedWindows, RayNotInstalledError, embed_corpus  # noqa: E402
from elmo_keras.text.sentence_files import SentenceFileError  # noqa: E402
from tests.embedding.test_embed_shards import assert_same_output, corpus_lines  # noqa: E402
from tests.support.paths import REPO_ROOT  # noqa: E402

BATCH_SIZE = 2  # windows of 2 × 16 = 32 lines: the 70 lines are 3 windows, the second across both files
FIRST_FILE_LINES = 40
SHIPPED_MODELS = REPO_ROOT / "elmo_keras" / "data" / "shipped_models"
KILL_MARKER = "ELMO_KERAS_TEST_KILL_MARKER"  # the file whose taker kills its own worker (KilledOnce)


class KilledOnce(EmbedWindows):
    """``EmbedWindows`` whose worker kills its own process (SIGKILL) at the start of a window if it takes (deletes)
    the marker file named by ``$ELMO_KERAS_TEST_KILL_MARKER``: one worker, once, in the middle of the run."""

    def __call__(self, batch):
        try:
            os.unlink(os.environ[KILL_MARKER])
        except FileNotFoundError:
            pass
        else:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().__call__(batch)


@pytest.fixture(scope="module")
def kill_marker(tmp_path_factory):
    return tmp_path_factory.mktemp("kill") / "kill-one-worker"


@pytest.fixture(scope="module")
def cluster(kill_marker):
    """A local cluster of 2 CPUs for the module (the engine uses the connection it finds, and leaves it open)."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {KILL_MARKER: str(kill_marker)}})
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # KilledOnce, wherever pytest was started
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def toy():
    return str(SHIPPED_MODELS / "toy")  # a word-level LSTM biLM, 2 layers


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """``corpus/part-1.txt`` (40 lines) and ``corpus/part-2.txt.gz`` (30), and ``joined.txt``, the two one after the
    other; returns ``(glob of the parts, joined file)``."""
    root = tmp_path_factory.mktemp("corpus")
    (root / "corpus").mkdir()
    lines = corpus_lines(70)
    (root / "corpus" / "part-1.txt").write_text("\n".join(lines[:FIRST_FILE_LINES]) + "\n", encoding="utf-8")
    with gzip.open(root / "corpus" / "part-2.txt.gz", "wt", encoding="utf-8") as part:
        part.write("\n".join(lines[FIRST_FILE_LINES:]) + "\n")
    (root / "joined.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(root / "corpus" / "part-*"), root / "joined.txt"


@pytest.fixture(scope="module")
def one_process(corpus, toy, tmp_path_factory):
    """``embed`` in this process (the default engine) of the joined file."""
    output = tmp_path_factory.mktemp("one_process") / "elmo.hdf5"
    assert main(["embed", str(corpus[1]), str(output), "--model-dir", toy, "--batch-size", str(BATCH_SIZE),
                 "--quiet"]) == 0
    return output


def test_embed_on_ray_is_the_one_process_output_bit_for_bit_though_a_worker_is_killed(
        cluster, corpus, toy, one_process, kill_marker, tmp_path, monkeypatch, capsys):
    """One run (a worker start costs seconds on 2 cores): the command on a glob of a text and a .gz file, 2 workers,
    3 windows, one worker killed at the start of its first window, restarted by Ray Data and the window run again."""
    kill_marker.touch()
    monkeypatch.setattr(ray_engine, "EmbedWindows", KilledOnce)  # what the engine's map builds on each worker
    output = tmp_path / "elmo.hdf5"
    status = main(["embed", corpus[0], str(output), "--model-dir", toy, "--batch-size", str(BATCH_SIZE),
                   "--engine", "ray", "--workers", "2"])
    assert status == 0
    assert "wrote 70 sentences (all)" in capsys.readouterr().err
    assert not kill_marker.exists()  # a worker took it and killed itself in a window
    assert_same_output(one_process, output)  # same datasets in the same order, dtypes, shapes, bits; sentence_to_index
    with h5py.File(output, "r") as handle:
        assert len(handle) == 70 + 1 and handle["39"].shape[0] == 3  # every line, the toy biLM's 3 layers


def ray_must_not_start(*args, **kwargs):
    raise AssertionError("Ray Data was started")


def test_a_bad_line_fails_before_ray_starts_naming_the_file_and_line(toy, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(ray_engine, "embedded_rows", ray_must_not_start)
    bad = tmp_path / "corpus"
    bad.mkdir()
    (bad / "part-1.txt").write_text("a good line\n", encoding="utf-8")
    with gzip.open(bad / "part-2.txt.gz", "wb") as part:
        part.write(b"one\ntwo\n\xff\xfe not UTF-8\nfour\n")
    output = tmp_path / "elmo.hdf5"
    with pytest.raises(SentenceFileError, match=r"part-2\.txt\.gz, line 3: not UTF-8"):
        embed_corpus(toy, str(bad / "part-*"), output)
    assert main(["embed", str(bad / "part-*"), str(output), "--model-dir", toy, "--engine", "ray", "--quiet"]) == 1
    message = capsys.readouterr().err.strip()
    assert "part-2.txt.gz, line 3: not UTF-8" in message and len(message.splitlines()) == 1
    assert not output.exists()


def test_an_embedders_error_names_its_windows_files_and_lines(corpus, toy):
    windows = ray_engine.read_windows([corpus[1]], 32)[1]
    assert [window["where"] for window in windows] == [f"{corpus[1]}, lines 1–32", f"{corpus[1]}, lines 33–64",
                                                       f"{corpus[1]}, lines 65–70"]
    parts = ray_engine.check_corpus_paths(corpus[0], corpus[1].parent / "out.hdf5", {}, {})[0]
    assert ray_engine.read_windows(parts, 32)[1][1]["where"] == f"{parts[0]}, line 33 – {parts[1]}, line 24"
    transformer = EmbedWindows(str(SHIPPED_MODELS / "transformer-toy"), BATCH_SIZE, "top")
    too_long = " ".join(["word"] * transformer.embedder.bilm.max_length)
    expected = r"^in corpus\.txt, lines 7–9: sentences\[1\] has 5,000 tokens.*\(sentences\[i\] is the i-th of these"
    with pytest.raises(ValueError, match=expected):
        transformer.embed_window(["a short one", too_long, "another"], "corpus.txt, lines 7–9")


def test_the_driver_raises_a_workers_error_as_itself_on_one_line():
    advice = "\nFailed to apply UDF transform after 1/1 attempts (total backoff 0.0s).\nTo change retry attempts, ..."
    error = ray_engine.worker_error(ray.exceptions.RayTaskError("submit", "traceback", ValueError("in a.txt, lines "
                                                                                                  "1–9: bad" + advice)))
    assert type(error) is ValueError and str(error) == "in a.txt, lines 1–9: bad"  # what Ray Data added is dropped
    crash = ray.exceptions.RayTaskError("submit", "traceback", RuntimeError("engine"))
    assert ray_engine.worker_error(crash) is crash  # not an error of ours: Ray's, as it is


def test_the_worker_returns_each_lines_vectors_by_its_index(toy):
    worker = EmbedWindows(toy, BATCH_SIZE, "average")
    rows = worker({"first": [32], "where": ["x.txt, lines 33–35"], "lines": [["a b c", "the cat", "sat"]]})
    assert rows["line"].tolist() == [32, 33, 34]
    assert [vectors.shape for vectors in rows["vectors"]] == [(3, worker.embedder.dim), (2, worker.embedder.dim),
                                                              (1, worker.embedder.dim)]


def test_an_output_the_engine_must_not_write_is_refused_before_ray_starts(corpus, toy, monkeypatch):
    monkeypatch.setattr(ray_engine, "embedded_rows", ray_must_not_start)
    part = ray_engine.check_corpus_paths(corpus[0], corpus[1].parent / "out.hdf5", {}, {})[0][0]
    with pytest.raises(ValueError, match="corpus file"):
        embed_corpus(toy, corpus[0], part)
    with pytest.raises(ValueError, match="the model directory"):
        embed_corpus(toy, corpus[0], os.path.join(toy, "elmo.hdf5"))


def test_without_ray_the_engine_says_what_to_install(corpus, toy, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as where it is not installed
    with pytest.raises(RayNotInstalledError, match=r'pip install "elmo_keras\[ray\]"'):
        embed_corpus(toy, corpus[0], tmp_path / "elmo.hdf5")
    with pytest.raises(SystemExit) as exit_status:
        main(["embed", str(corpus[1]), str(tmp_path / "elmo.hdf5"), "--model-dir", toy, "--engine", "ray"])
    assert exit_status.value.code == 2
    message = capsys.readouterr().err.strip().splitlines()[-1]
    assert message.endswith('error: embedding on Ray needs Ray Data, which is not installed: pip install '
                            '"elmo_keras[ray]"')


@pytest.mark.parametrize("argv, message", [
    (["--workers", "3"], "--workers go with --engine ray"),
    (["--engine", "ray", "--shard", "1/2"], "drop --shard"),
    (["--engine", "ray", "--stateful"], "drop --stateful"),
    (["--engine", "ray", "--workers", "0"], "--workers must be >= 1, received 0"),
])
def test_engine_argument_errors(argv, message, corpus, toy, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_status:
        main(["embed", str(corpus[1]), str(tmp_path / "elmo.hdf5"), "--model-dir", toy, *argv])
    assert exit_status.value.code == 2 and message in capsys.readouterr().err

