"""``python -m elmo_keras embed``: arguments, the three output formats, model directories, one-line errors."""

import io
import os
import runpy
import signal
import subprocess
import sys

import h5py
import numpy as np
import pytest

from elmo_keras.cli import TextProgressBar, build_parser, main
from elmo_keras.embedding.embedder import ElmoEmbedder
from tests.support.backend_support import tensorflow_only
from tests.support.paths import REPO_ROOT

LINES = ["The cat sat on the mat .", "Hello world"]


@pytest.fixture(scope="module")
def model_files(model_dir):
    return str(model_dir / "options.json"), str(model_dir / "lm_weights.hdf5")


@pytest.fixture
def input_file(tmp_path):
    path = tmp_path / "input.txt"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def reference(model_files):
    embedder = ElmoEmbedder(*model_files)
    return [embedder.embed_sentence(line.split()) for line in LINES]


@pytest.mark.fixtures
@pytest.mark.parametrize("flag, select",
                         [(None, lambda v: v), ("--average", lambda v: v.mean(0))])  # --top: test_model_dir
def test_embed_formats(model_files, input_file, tmp_path, reference, capsys, flag, select):
    output = tmp_path / "out.hdf5"
    argv = ["embed", str(input_file), str(output), "--options", model_files[0], "--weights", model_files[1],
            "--batch-size", "1"]
    assert main(argv + ([flag] if flag else [])) == 0
    with h5py.File(output, "r") as handle:
        for key, vectors in enumerate(reference):
            np.testing.assert_allclose(handle[str(key)][...], select(vectors), atol=1e-5)
    err = capsys.readouterr().err
    assert "[" + "#" * 30 + "] 2/2 sentences" in err and "wrote 2 sentences" in err


@pytest.mark.fixtures
def test_errors_are_one_line(model_files, tmp_path, capsys):
    blank = tmp_path / "blank.txt"
    blank.write_text("one\n\nthree\n", encoding="utf-8")
    model = ["--options", model_files[0], "--weights", model_files[1]]
    status = main(["embed", str(blank), str(tmp_path / "o.hdf5"), *model, "--quiet"])
    assert status == 1
    assert capsys.readouterr().err == f"error: {blank}, line 2 is blank; every line must hold one sentence\n"
    status = main(["embed", str(blank), str(tmp_path / "o.hdf5"), "--options", model_files[0], "--weights", str(blank)])
    assert status == 1 and "is not an HDF5 file" in capsys.readouterr().err


@pytest.mark.parametrize(
    "extra, message",
    [
        ([], "needs --options FILE and --weights FILE"),
        (["--options", "o.json"], "needs --options FILE and --weights FILE"),
        (["--model-dir", "d", "--options", "o.json"], "either --model-dir or --options/--weights"),
        (["--options", "o", "--weights", "w", "--top", "--average"], "not allowed with argument"),
        (["--options", "o", "--weights", "w", "--batch-size", "0"], "--batch-size must be >= 1"),
        (["--options", "o", "--weights", "w", "--strategy", "mirrored", "--stateful"], "--strategy needs stateless"),
        (["--options", "o", "--weights", "w", "--strategy", "mirrored", "--execution", "xla"],
         "use --execution auto or graph, not xla"),
        (["--options", "o", "--weights", "w", "--devices", "2"], "--devices splits the CPU for --strategy"),
        (["--options", "o", "--weights", "w", "--strategy", "mirrored", "--devices", "0"], "--devices must be >= 1"),
        (["--options", "o", "--weights", "w", "--strategy", "mirrored", "--devices", "100000"],
         "more logical CPU devices than useful"),
        (["--options", "o", "--weights", "w", "--strategy", "data-parallel"], "invalid choice: 'data-parallel'"),
    ],
)
def test_argument_errors(extra, message, capsys):
    with pytest.raises(SystemExit) as info:
        main(["embed", "in.txt", "out.hdf5", *extra])
    assert info.value.code == 2 and message in capsys.readouterr().err


def test_parser_lists_embed_and_defaults():
    args = build_parser().parse_args(["embed", "a", "b", "--options", "o", "--weights", "w"])
    assert (args.command, args.output_format, args.batch_size, args.stateful) == ("embed", "all", 64, False)
    assert (args.execution, args.strategy, args.devices) == ("auto", None, None)


def test_model_dir(tmp_path, input_file, capsys):
    from elmo_keras.models import build_bilm_lm, get_size, save_model_dir
    from elmo_keras.text.vocabulary import Vocabulary

    vocabulary = Vocabulary(["the", "cat", "sat", "hello"], lowercase=True)
    model = build_bilm_lm(get_size("tiny"), len(vocabulary))
    model.build((None, None))
    model.vocabulary = vocabulary
    save_model_dir(model, tmp_path / "model")
    output = tmp_path / "out.hdf5"
    assert main(["embed", str(input_file), str(output), "--model-dir", str(tmp_path / "model"), "--top",
                 "--quiet"]) == 0
    expected = ElmoEmbedder.from_model_dir(tmp_path / "model").embed_sentence(LINES[0].split())[-1]
    with h5py.File(output, "r") as handle:
        np.testing.assert_allclose(handle["0"][...], expected, atol=1e-5)


def test_text_progress_bar():
    stream = io.StringIO()
    bar = TextProgressBar(stream, width=10)
    bar(5, 20)
    bar(20, 20)
    assert stream.getvalue() == "\r[##........]  5/20 sentences\r[##########] 20/20 sentences\n"


def test_python_dash_m_entry_point(monkeypatch, capsys):
    """``python -m elmo_keras`` runs ``elmo_keras/__main__.py`` (in-process here: no second TensorFlow start-up)."""
    monkeypatch.setattr(sys, "argv", ["elmo_keras", "embed", "--help"])
    with pytest.raises(SystemExit) as info:
        runpy.run_module("elmo_keras", run_name="__main__")
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "usage: python -m elmo_keras embed" in out and "--average" in out and "--model-dir" in out


def test_bad_paths_fail_before_loading_the_model(tmp_path, input_file, capsys):
    """Checked before the model loads (the model files here do not even exist) and before anything is embedded."""
    (tmp_path / "out_dir").mkdir()
    model = ["--options", str(tmp_path / "no_options.json"), "--weights", str(tmp_path / "no_weights.hdf5"), "--quiet"]
    missing = tmp_path / "nonexistent"
    cases = [
        ([str(input_file), str(missing / "o.hdf5")], f"error: output directory {missing} does not exist"),
        ([str(tmp_path), str(tmp_path / "o.hdf5")], f"error: input {tmp_path} is a directory; pass a text file"),
        ([str(input_file), str(tmp_path / "out_dir")],
         f"error: output {tmp_path / 'out_dir'} is a directory; give the HDF5 file to write, e.g. "
         f"{tmp_path / 'out_dir' / 'elmo.hdf5'}"),
        ([str(input_file), str(input_file / "o.hdf5")],
         f"error: cannot write {input_file / 'o.hdf5'}: {input_file} is a file"),
    ]
    for paths, message in cases:
        assert main(["embed", *paths, *model]) == 1
        err = capsys.readouterr().err
        assert err.startswith(message) and err.count("\n") == 1 and ".partial" not in err
    assert list((tmp_path / "out_dir").iterdir()) == []


# -- nothing read is ever overwritten ---------------------------------------------------------------------------


@pytest.fixture
def fake_model_files(tmp_path):
    """Options and weights files that are never loaded: the refusals come before the model is read."""
    directory = tmp_path / "w"
    directory.mkdir()
    options, weights = directory / "options.json", directory / "lm_weights.hdf5"
    options.write_text("{}", encoding="utf-8")
    weights.write_bytes(b"\x89HDF weights")
    return options, weights


def _refused(argv, capsys, message):
    assert main(["embed", *argv, "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1, err


def test_embed_never_writes_over_its_inputs(tmp_path, input_file, fake_model_files, capsys):
    """`embed ok.txt w/lm_weights.hdf5 --weights w/lm_weights.hdf5` used to replace the weights with the output,
    `embed same.txt same.txt` the text, exit 0."""
    options, weights = fake_model_files
    model = ["--options", str(options), "--weights", str(weights)]
    link = tmp_path / "link.hdf5"
    link.symlink_to(weights)
    before = {path: path.read_bytes() for path in (options, weights, input_file)}
    _refused([str(input_file), str(weights), *model], capsys,
             f"output {weights} is the weights file ({weights}), and writing it would destroy it; choose another "
             "output path")
    _refused([str(input_file), str(options), *model], capsys, "is the options file")
    _refused([str(input_file), str(input_file), *model], capsys, "is the input file")
    _refused([str(input_file), str(link), *model], capsys, "is the weights file")  # symlinks are followed
    relative = str(weights.parent / ".." / "w" / weights.name)
    _refused([str(input_file), relative, *model], capsys, "is the weights file")
    # a file named like a temporary file of the output (.NAME.XXXXXXXX.partial) is deleted as stale when no process
    # writes it: it must not be an input either
    partial_input = tmp_path / ".out.hdf5.abcd1234.partial"
    partial_input.write_text("a sentence\n", encoding="utf-8")
    _refused([str(partial_input), str(tmp_path / "out.hdf5"), *model], capsys,
             f"the input file {partial_input} is named like a temporary file of the output")
    assert {path: path.read_bytes() for path in before} == before
    assert partial_input.read_text(encoding="utf-8") == "a sentence\n"


def test_embed_never_writes_into_the_model_directory(tmp_path, input_file, capsys):
    model_dir = tmp_path / "D"
    model_dir.mkdir()
    (model_dir / "model.keras").write_bytes(b"PK model")
    _refused([str(input_file), str(model_dir / "model.keras"), "--model-dir", str(model_dir)], capsys,
             f"output {model_dir / 'model.keras'} lies inside the model directory ({model_dir}), which must stay as "
             "it is; choose an output path outside it")
    _refused([str(input_file), str(model_dir / "new.hdf5"), "--model-dir", str(model_dir)], capsys, "lies inside")
    assert (model_dir / "model.keras").read_bytes() == b"PK model" and not (model_dir / "new.hdf5").exists()


@pytest.mark.fixtures
def test_the_library_refuses_too(model_files, tmp_path, input_file):
    embedder = ElmoEmbedder(*model_files)
    before = open(model_files[1], "rb").read()
    with pytest.raises(ValueError, match="is the weights file"):
        embedder.embed_file(input_file, model_files[1])
    with pytest.raises(ValueError, match="is the input file"):
        embedder.embed_file(input_file, input_file)
    assert open(model_files[1], "rb").read() == before


def test_an_empty_input_file_is_refused_like_a_blank_one(tmp_path, fake_model_files, capsys):
    """An empty file used to give a 0-sentence HDF5 file with exit 0, while blank lines were refused."""
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    options, weights = fake_model_files
    _refused([str(empty), str(tmp_path / "o.hdf5"), "--options", str(options), "--weights", str(weights)], capsys,
             f"{empty} is empty: there is nothing to embed")
    assert not (tmp_path / "o.hdf5").exists()


def test_absurd_batch_sizes_are_argument_errors(capsys):
    with pytest.raises(SystemExit) as info:
        main(["embed", "in.txt", "out.hdf5", "--options", "o", "--weights", "w", "--batch-size", str(10**9)])
    assert info.value.code == 2 and "--batch-size must be <= 65,536" in capsys.readouterr().err


# -- interrupts -------------------------------------------------------------------------------------------------


@pytest.fixture
def word_model_dir(tmp_path):
    from elmo_keras.models import build_bilm_lm, get_size, save_model_dir
    from elmo_keras.text.vocabulary import Vocabulary

    vocabulary = Vocabulary(["the", "cat", "sat", "hello"], lowercase=True)
    model = build_bilm_lm(get_size("tiny"), len(vocabulary))
    model.build((None, None))
    model.vocabulary = vocabulary
    return save_model_dir(model, tmp_path / "model")


def test_a_stale_partial_file_is_replaced_and_removed(tmp_path, input_file, word_model_dir):
    """After a SIGKILL, the run's .OUTPUT.XXXXXXXX.partial stays behind; the next run removes it (no process holds
    its lock)."""
    output = tmp_path / "out.hdf5"
    stale = tmp_path / ".out.hdf5.k1lled00.partial"
    stale.write_bytes(b"left by a killed run")
    assert main(["embed", str(input_file), str(output), "--model-dir", str(word_model_dir), "--quiet"]) == 0
    assert not stale.exists()
    with h5py.File(output, "r") as handle:
        assert handle["0"].shape[1] == len(LINES[0].split())


@pytest.mark.slow
@pytest.mark.parametrize("signal_name, status, word", [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "terminated")])
def test_ctrl_c_and_sigterm_print_one_line_and_leave_no_partial_output(tmp_path, word_model_dir, signal_name, status,
                                                                       word):
    """Ctrl-C printed a full traceback; SIGTERM left the partial output behind."""
    import os
    import signal
    import subprocess
    import time

    big_input = tmp_path / "big.txt"
    big_input.write_text("the cat sat on the mat hello the cat sat\n" * 400_000, encoding="utf-8")
    output = tmp_path / "out.hdf5"
    process = subprocess.Popen(
        [sys.executable, "-m", "elmo_keras", "embed", str(big_input), str(output), "--model-dir",
         str(word_model_dir), "--quiet"],
        stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob(".out.hdf5.*.partial")) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(tmp_path.glob(".out.hdf5.*.partial")), "the embedding finished or failed before it could be interrupted"
    time.sleep(0.5)
    process.send_signal(getattr(signal, signal_name))
    _, err = process.communicate(timeout=60)
    assert process.returncode == status, err
    assert err == f"{word}: embed stopped (no incomplete output is left behind)\n"
    assert not list(tmp_path.glob(".out.hdf5.*.partial")) and not output.exists()


@pytest.mark.parametrize("signal_name, stop", [("SIGTERM", "Terminated"), ("SIGINT", "KeyboardInterrupt")])
def test_a_stop_signal_whose_exception_was_lost_still_stops_the_command(signal_name, stop):
    """Python drops an exception raised by a signal handler while a gc callback runs ("Exception ignored in ..."),
    and TensorFlow turns one raised while it traces into a ValueError; the request is remembered and the next
    batch stops the command."""
    import time

    from elmo_keras.cli import stopping

    expected = stopping.Terminated if stop == "Terminated" else KeyboardInterrupt
    drawn = []
    with stopping.stop_signals_stop_the_command():
        try:
            os.kill(os.getpid(), getattr(signal, signal_name))
            time.sleep(5)  # the handler runs here, at the latest
        except expected:
            pass  # lost, as it is inside a gc callback
        with pytest.raises(expected):
            stopping.checked_progress(lambda done, total: drawn.append(done))(1, 2)
    assert drawn == []
    stopping.raise_if_stopped()  # outside the command: nothing pending


def test_a_stop_signal_turned_into_an_error_is_reported_as_the_stop(monkeypatch, capsys):
    """TensorFlow turns an exception raised while it traces into a ValueError; main reports the signal."""
    from elmo_keras import cli

    def run(args):
        os.kill(os.getpid(), signal.SIGINT)
        try:
            import time

            time.sleep(5)
        except KeyboardInterrupt as error:
            raise ValueError("Tried to convert 'shape' to a tensor and failed.") from error
        return cli.EXIT_OK

    import dataclasses

    monkeypatch.setitem(cli.COMMANDS, "embed", dataclasses.replace(cli.COMMANDS["embed"], run=run, check=None))
    status = cli.main(["embed", "in.txt", "out.hdf5", "--model-dir", "m"])
    assert status == cli.EXIT_INTERRUPTED
    assert capsys.readouterr().err.startswith("interrupted: embed stopped")


def test_a_signal_inside_a_gc_callback_or_finaliser_is_only_remembered():
    """Raising there would be swallowed with an "Exception ignored" report (JAX registers a gc callback)."""
    import gc
    import sys

    from elmo_keras.cli import stopping

    seen = []

    def callback(phase, info):
        seen.append(stopping._inside_a_finaliser(sys._getframe()))

    class Finalised:
        def __del__(self):
            seen.append(stopping._inside_a_finaliser(sys._getframe()))

    gc.callbacks.append(callback)
    try:
        gc.collect()
    finally:
        gc.callbacks.remove(callback)
    Finalised()
    assert len(seen) >= 3 and all(seen)
    assert not stopping._inside_a_finaliser(sys._getframe())


@pytest.mark.fixtures
@tensorflow_only("embed --strategy mirrored splits each batch across 2 logical CPU devices")
def test_strategy_splits_batches_across_devices(model_files, tmp_path, reference):
    """``embed --strategy mirrored --devices 2`` in a subprocess (logical devices must be made before TensorFlow
    starts its runtime): the vectors are one device's, to float32 rounding."""
    path = tmp_path / "input.txt"
    path.write_text("\n".join(LINES * 3) + "\n", encoding="utf-8")  # 6 lines, batches of 4 and 2 rows
    output = tmp_path / "out.hdf5"
    done = subprocess.run([sys.executable, "-m", "elmo_keras", "embed", str(path), str(output), "--options",
                           model_files[0], "--weights", model_files[1], "--strategy", "mirrored", "--devices", "2",
                           "--batch-size", "4", "--quiet"], cwd=REPO_ROOT, capture_output=True, text=True,
                          env=dict(os.environ, KERAS_BACKEND="tensorflow"), timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "each batch split across 2 devices" in done.stderr
    with h5py.File(output, "r") as handle:
        for index in range(len(LINES) * 3):
            assert np.abs(handle[str(index)][...] - reference[index % len(LINES)]).max() <= 1e-5
