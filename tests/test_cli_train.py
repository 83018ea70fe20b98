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
