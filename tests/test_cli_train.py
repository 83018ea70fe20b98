"""`python -m elmo_keras train`: trains, saves a loadable model directory, and reports bad corpora clearly."""

import pytest

from elmo_keras.cli import main
from elmo_keras.models import load_bilm


def test_train_writes_a_loadable_model_directory(tmp_path, capsys):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("The bank was closed .\n\nWe sat on the river bank .\n", encoding="utf-8")
    status = main(["train", str(tmp_path / "model"), "--corpus", str(corpus), "--preset", "tiny", "--epochs", "2"])
    assert status == 0
    err = capsys.readouterr().err
    assert "epoch 2:" in err and "saved" in err and "2 sentences" in err
    model = load_bilm(tmp_path / "model")
    assert model.training_summary["num_sentences"] == 2 and "bank" in model.vocabulary


@pytest.mark.parametrize(
    "content, message",
    [(b"\xff\xfe\x00bad", "is not UTF-8 text (invalid byte at offset 0)"), (b"\n  \n", "has no sentences")],
)
def test_train_bad_corpus_prints_one_error_line(tmp_path, capsys, content, message):
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(content)
    assert main(["train", str(tmp_path / "model"), "--corpus", str(corpus), "--preset", "tiny"]) == 1
    assert message in capsys.readouterr().err
    assert not (tmp_path / "model").exists()


def test_train_missing_corpus_and_bad_numbers(tmp_path, capsys):
    assert main(["train", str(tmp_path / "m"), "--corpus", str(tmp_path / "missing.txt")]) == 1
    assert "corpus file not found" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["train", str(tmp_path / "m"), "--epochs", "0"])


def test_train_corpus_with_a_byte_order_mark(tmp_path, capsys):
    from elmo_keras.cli import read_corpus_file

    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes("\ufeffBank closed .\r\nWe sat by the bank .\n".encode("utf-8"))
    assert read_corpus_file(str(corpus)) == ["Bank closed .", "We sat by the bank ."]
    assert main(["train", str(tmp_path / "model"), "--corpus", str(corpus), "--preset", "tiny", "--epochs", "1",
                 "--quiet"]) == 0
    tokens = load_bilm(tmp_path / "model").vocabulary.tokens
    assert "bank" in tokens and not any("\ufeff" in token for token in tokens)


@pytest.fixture
def no_training(monkeypatch):
    """Path errors must come before training: training here fails the test."""
    from elmo_keras.models import training

    def train_bilm(*args, **kwargs):
        raise AssertionError("train_bilm ran although the paths were bad")

    monkeypatch.setattr(training, "train_bilm", train_bilm)


def test_train_bad_paths_fail_before_training(tmp_path, capsys, no_training):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the bank\n", encoding="utf-8")
    a_file = tmp_path / "a_file"
    a_file.write_text("keep me\n", encoding="utf-8")
    cases = [
        ([str(tmp_path / "m"), "--corpus", str(tmp_path)], f"error: corpus {tmp_path} is a directory; pass a text"),
        ([str(a_file), "--corpus", str(corpus)], f"error: output {a_file} is an existing file, but train writes a "
                                                 "model directory there; choose another name or remove the file"),
        ([str(a_file / "m"), "--corpus", str(corpus)], f"error: cannot create model directory {a_file / 'm'}: "
                                                       f"{a_file} is a file, not a directory"),
    ]
    for argv, message in cases:
        assert main(["train", *argv, "--preset", "tiny", "--quiet"]) == 1
        err = capsys.readouterr().err
        assert err.startswith(message) and err.count("\n") == 1 and "Traceback" not in err
    assert a_file.read_text(encoding="utf-8") == "keep me\n" and not (tmp_path / "m").exists()


def test_any_os_error_is_one_line(monkeypatch, capsys):
    from elmo_keras import cli

    def run(args):
        raise OSError(28, "No space left on device", "/full/model.keras")

    monkeypatch.setitem(cli.COMMANDS, "train", cli.Command("train", cli.add_train_arguments, run))
    assert main(["train", "out"]) == 1
    assert capsys.readouterr().err == "error: /full/model.keras: No space left on device\n"
