"""``python -m elmo_keras embed``: arguments, the three output formats, model directories, one-line errors."""

import io
import runpy
import sys

import h5py
import numpy as np
import pytest

from elmo_keras.cli import TextProgressBar, build_parser, main
from elmo_keras.pretrained.embedder import ElmoEmbedder

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
@pytest.mark.parametrize("flag, select", [(None, lambda v: v), ("--average", lambda v: v.mean(0))])  # --top: test_model_dir
def test_embed_formats(model_files, input_file, tmp_path, reference, capsys, flag, select):
    output = tmp_path / "out.hdf5"
    argv = ["embed", str(input_file), str(output), "--options", model_files[0], "--weights", model_files[1], "--batch-size", "1"]
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
    assert capsys.readouterr().err == f"error: {blank}: line 2 is blank; every line must hold one sentence\n"
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
    ],
)
def test_argument_errors(extra, message, capsys):
    with pytest.raises(SystemExit) as info:
        main(["embed", "in.txt", "out.hdf5", *extra])
    assert info.value.code == 2 and message in capsys.readouterr().err


def test_parser_lists_embed_and_defaults():
    args = build_parser().parse_args(["embed", "a", "b", "--options", "o", "--weights", "w"])
    assert (args.command, args.output_format, args.batch_size, args.stateful) == ("embed", "all", 64, False)
    assert args.execution == "graph"


def test_model_dir(tmp_path, input_file, capsys):
    from elmo_keras.models import build_bilm_lm, get_preset, save_model_dir
    from elmo_keras.text.vocabulary import Vocabulary

    vocabulary = Vocabulary(["the", "cat", "sat", "hello"], lowercase=True)
    model = build_bilm_lm(get_preset("tiny"), len(vocabulary))
    model.build((None, None))
    model.vocabulary = vocabulary
    save_model_dir(model, tmp_path / "model")
    output = tmp_path / "out.hdf5"
    assert main(["embed", str(input_file), str(output), "--model-dir", str(tmp_path / "model"), "--top", "--quiet"]) == 0
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
