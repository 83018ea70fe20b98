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


def test_train_never_replaces_a_directory_holding_the_corpus_or_other_files(tmp_path, capsys, no_training):
    corpus = tmp_path / "data" / "corpus.txt"
    corpus.parent.mkdir()
    corpus.write_text("the bank\n", encoding="utf-8")
    cases = [
        (tmp_path / "data", f"error: output directory {tmp_path / 'data'} holds the corpus ({corpus}), and saving "
                            "replaces the whole directory; choose another output directory or move the file out"),
        (tmp_path, "holds the corpus"),  # a parent of the corpus too
    ]
    for output, message in cases:
        assert main(["train", str(output), "--corpus", str(corpus), "--preset", "tiny", "--quiet"]) == 1
        err = capsys.readouterr().err
        assert err.startswith("error: output directory") and message in err and err.count("\n") == 1
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("mine", encoding="utf-8")
    assert main(["train", str(project), "--preset", "tiny", "--quiet"]) == 1
    assert "holds notes.txt, which is not part of a model directory" in capsys.readouterr().err
    assert corpus.read_text(encoding="utf-8") == "the bank\n" and (project / "notes.txt").exists()


@pytest.mark.parametrize("argv, message", [
    (["--learning-rate", "inf"], "--learning-rate must be a finite number > 0, received inf"),
    (["--learning-rate", "nan"], "--learning-rate must be a finite number > 0, received nan"),
    (["--batch-size", str(10**6)], "--batch-size must be <= 65,536 (a batch is capped at the corpus size anyway), "
                                   "received 1,000,000"),
])
def test_train_refuses_non_finite_and_absurd_settings(tmp_path, capsys, argv, message):
    """`--learning-rate inf` used to save a NaN model with exit 0."""
    with pytest.raises(SystemExit) as info:
        main(["train", str(tmp_path / "m"), "--preset", "tiny", *argv])
    assert info.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "m").exists()


def test_a_batch_larger_than_the_corpus_is_capped_with_a_note(tmp_path, capsys):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the bank\nthe river bank\n", encoding="utf-8")
    assert main(["train", str(tmp_path / "m"), "--corpus", str(corpus), "--preset", "tiny", "--epochs", "1",
                 "--batch-size", "1000", "--quiet"]) == 0
    assert "note: --batch-size 1,000 was capped at the corpus size, 2 sentences" in capsys.readouterr().err
    assert load_bilm(tmp_path / "m").config.batch_size == 2


def test_a_diverging_training_is_an_error_and_keeps_the_previous_model(tmp_path, capsys):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the bank was closed\nwe sat by the river bank\n", encoding="utf-8")
    argv = ["train", str(tmp_path / "m"), "--corpus", str(corpus), "--preset", "tiny", "--epochs", "2", "--quiet"]
    assert main(argv) == 0
    before = (tmp_path / "m" / "model.keras").read_bytes()
    capsys.readouterr()
    assert main([*argv, "--learning-rate", "1e38"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: training diverged: the loss became nan") and err.count("\n") == 1
    assert (tmp_path / "m" / "model.keras").read_bytes() == before
