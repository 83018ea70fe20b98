"""`python -m elmo_keras train`: trains, saves a loadable model directory, and reports bad corpora clearly."""

import pytest

from elmo_keras.cli import main
from elmo_keras.models import load_bilm
from tests.support.backend_support import BACKEND


def test_train_writes_a_loadable_model_directory(tmp_path, capsys):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("The bank was closed .\n\nWe sat on the river bank .\n", encoding="utf-8")
    status = main(["train", str(tmp_path / "model"), "--corpus", str(corpus), "--size", "tiny", "--epochs", "2"])
    assert status == 0
    err = capsys.readouterr().err
    assert "epoch 2:" in err and "saved" in err and "2 sentences" in err
    model = load_bilm(tmp_path / "model")
    assert model.training_summary["num_sentences"] == 2 and "bank" in model.vocabulary


@pytest.mark.parametrize(
    "content, message",
    [(b"the bank\n\xff\xfe\x00bad", "corpus.txt, line 2: not UTF-8 (invalid start byte at byte 0 of the line"),
     (b"\n  \n", "has no sentences")],
)
def test_train_bad_corpus_prints_one_error_line(tmp_path, capsys, content, message):
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(content)
    assert main(["train", str(tmp_path / "model"), "--corpus", str(corpus), "--size", "tiny"]) == 1
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
    assert read_corpus_file(str(corpus)) == [["Bank", "closed", "."], ["We", "sat", "by", "the", "bank", "."]]
    assert main(["train", str(tmp_path / "model"), "--corpus", str(corpus), "--size", "tiny", "--epochs", "1",
                 "--quiet"]) == 0
    tokens = load_bilm(tmp_path / "model").vocabulary.tokens
    assert "bank" in tokens and not any("\ufeff" in token for token in tokens)


def test_a_corpus_file_gives_the_same_tokens_in_memory_and_streamed(tmp_path, capsys):
    """One whitespace-tokenized sentence per line, read whole or streamed: punctuation stays on its word."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the bank, by the river.\nThe bank closed.\n", encoding="utf-8")
    argv = ["--corpus", str(corpus), "--size", "tiny", "--epochs", "1", "--quiet"]
    assert main(["train", str(tmp_path / "in_memory"), *argv]) == 0
    assert main(["train", str(tmp_path / "streamed"), *argv, "--stream"]) == 0
    in_memory = load_bilm(tmp_path / "in_memory").vocabulary
    assert in_memory == load_bilm(tmp_path / "streamed").vocabulary
    assert "bank," in in_memory and "river." in in_memory and "," not in in_memory


def test_a_vocabulary_file_with_capitals_under_a_lowercasing_size(tmp_path, capsys, no_training):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("<S>\n</S>\n<UNK>\nthe\nBank\n", encoding="utf-8")
    assert main(["train", str(tmp_path / "m"), "--vocab", str(vocab), "--size", "tiny", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {vocab}, line 5: 'Bank' has capitals") and err.count("\n") == 1
    assert "; --size tiny lowercases words: write the vocabulary from a lowercased corpus" in err
    vocab.write_text("<S>\n</S>\nBank\n", encoding="utf-8")  # another fault too: that one is reported
    assert main(["train", str(tmp_path / "m"), "--vocab", str(vocab), "--size", "tiny", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "lacks <UNK>" in err and "capitals" not in err


@pytest.fixture
def no_training(monkeypatch):
    """Path errors must come before training: training here fails the test."""
    from elmo_keras.models.bilm import training

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
        assert main(["train", *argv, "--size", "tiny", "--quiet"]) == 1
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
        assert main(["train", str(output), "--corpus", str(corpus), "--size", "tiny", "--quiet"]) == 1
        err = capsys.readouterr().err
        assert err.startswith("error: output directory") and message in err and err.count("\n") == 1
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("mine", encoding="utf-8")
    assert main(["train", str(project), "--size", "tiny", "--quiet"]) == 1
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
        main(["train", str(tmp_path / "m"), "--size", "tiny", *argv])
    assert info.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "m").exists()


def test_a_batch_larger_than_the_corpus_is_capped_with_a_note(tmp_path, capsys):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the bank\nthe river bank\n", encoding="utf-8")
    assert main(["train", str(tmp_path / "m"), "--corpus", str(corpus), "--size", "tiny", "--epochs", "1",
                 "--batch-size", "1000", "--quiet"]) == 0
    assert "note: --batch-size 1,000 was capped at the corpus size, 2 sentences" in capsys.readouterr().err
    assert load_bilm(tmp_path / "m").config.batch_size == 2


def test_a_diverging_training_is_an_error_and_keeps_the_previous_model(tmp_path, capsys):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the bank was closed\nwe sat by the river bank\n", encoding="utf-8")
    argv = ["train", str(tmp_path / "m"), "--corpus", str(corpus), "--size", "tiny", "--epochs", "2", "--quiet"]
    assert main(argv) == 0
    before = (tmp_path / "m" / "model.keras").read_bytes()
    capsys.readouterr()
    assert main([*argv, "--learning-rate", "1e38"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: training diverged: the loss became nan") and err.count("\n") == 1
    assert (tmp_path / "m" / "model.keras").read_bytes() == before


# -- streamed corpora, vocabulary files, distribution and checkpoints (issue #17) ----------------------------------


@pytest.mark.parametrize("argv, message", [
    (["--devices", "2"], "--devices splits the CPU for data-parallel training: add --strategy mirrored"),
    (["--resume"], "--checkpoint-every and --resume need --checkpoint-dir"),
    (["--checkpoint-every", "5"], "--checkpoint-every and --resume need --checkpoint-dir"),
    (["--checkpoint-dir", "c", "--checkpoint-every", "0"], "--checkpoint-every must be >= 1, received 0"),
    (["--min-count", "0"], "--min-count must be >= 1, received 0"),
    (["--negative-samples", "0"], "--negative-samples must be >= 1, received 0"),
    (["--vocab", "v.txt", "--max-vocab", "10"], "--min-count and --max-vocab choose the tokens of a vocabulary "
                                                 "built from the corpus; they do not apply with --vocab"),
    (["--stream"], "--stream needs --corpus"),
    (["--strategy", "ring"], "argument --strategy: invalid choice: 'ring'"),
])
def test_train_refuses_inconsistent_scale_flags(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit) as info:
        main(["train", str(tmp_path / "m"), "--size", "tiny", *argv])
    assert info.value.code == 2 and message in capsys.readouterr().err


def test_train_streams_gz_shards_with_a_bilm_vocabulary_file_and_resumes(tmp_path, capsys):
    import gzip

    shards = tmp_path / "shards"
    shards.mkdir()
    for index, lines in enumerate([["the bank was closed .", "we sat by the river ."],
                                   ["the river bank .", "the bank raised rates ."]]):
        with gzip.open(shards / f"part-{index}.txt.gz", "wt", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(["<S>", "</S>", "<UNK>", "the", "bank", "river", "."]) + "\n", encoding="utf-8")
    argv = ["train", str(tmp_path / "m"), "--corpus", str(shards / "*.txt.gz"), "--vocab", str(vocab),
            "--size", "tiny", "--epochs", "1", "--batch-size", "2", "--checkpoint-dir", str(tmp_path / "ckpt"),
            "--checkpoint-every", "1", "--quiet"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "saved" in err and "4 sentences" in err and "train perplexity (on its first 4 sentences)" in err
    model = load_bilm(tmp_path / "m")
    assert model.vocabulary.tokens[4:] == ["the", "bank", "river", "."]
    assert sorted(p.name for p in (tmp_path / "ckpt").iterdir()) == ["checkpoint-000000001.npz",
                                                                     "checkpoint-000000002.npz"]
    assert main([*argv, "--resume"]) == 0  # already at the last step: nothing left to train
    assert "checkpoints: resumed from checkpoint-000000002.npz (step 2)" in capsys.readouterr().err


def test_train_refuses_a_checkpoint_directory_inside_the_output(tmp_path, capsys, no_training):
    assert main(["train", str(tmp_path / "m"), "--size", "tiny", "--checkpoint-dir",
                 str(tmp_path / "m" / "ckpt"), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: --checkpoint-dir {tmp_path / 'm' / 'ckpt'} lies inside the output directory")


def test_an_interrupted_run_with_checkpoints_says_how_to_resume(tmp_path, capsys, monkeypatch):
    from elmo_keras.models.bilm import training as training_module  # the command imports train_bilm when it runs
    from elmo_keras.models.bilm.checkpoint_files import TrainingState, write_checkpoint
    from elmo_keras.text.vocabulary import Vocabulary

    def interrupted_training(*args, checkpoint_dir, **kwargs):
        state = TrainingState(3, {"model": [], "optimizer": [], "metric": []},
                              {"model": [], "optimizer": [], "metric": []}, {}, {}, Vocabulary(["bank"]))
        write_checkpoint(checkpoint_dir, state)
        raise KeyboardInterrupt

    monkeypatch.setattr(training_module, "train_bilm", interrupted_training)
    assert main(["train", str(tmp_path / "m"), "--size", "tiny", "--checkpoint-dir", str(tmp_path / "c")]) == 130
    err = capsys.readouterr().err
    assert (f"note: the latest checkpoint is {tmp_path / 'c' / 'checkpoint-000000003.npz'}; run the same command "
            "with --resume to continue from it") in err
    assert err.rstrip().endswith("no incomplete output is left behind)")


@pytest.mark.skipif(BACKEND == "jax", reason="on JAX the test process could still be split into 2 CPU devices, "
                                             "which would change every later test")
def test_devices_after_the_runtime_started_is_one_clear_error(tmp_path, capsys, no_training):
    from elmo_keras._quiet import keras

    keras.ops.zeros(1)  # the runtime has started (as it has in any test process)
    strategy = "mirrored" if BACKEND == "tensorflow" else "data-parallel"
    assert main(["train", str(tmp_path / "m"), "--size", "tiny", "--strategy", strategy, "--devices", "2"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: --devices 2: ") and err.count("\n") == 1
