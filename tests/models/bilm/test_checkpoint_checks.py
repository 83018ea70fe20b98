"""Checkpoints are not trusted on resume (issue #25, item 6): a checkpoint is checked like a weight file (a NaN, a
string step, a bad history entry name the file, the array and the problem, and resuming falls back to the previous
checkpoint), and a checkpoint directory that the corpus's files or glob could match is refused before any work
(``data.glob_patterns``), in the library and in ``train``."""

import json
import os

import numpy as np
import pytest

from elmo_keras.cli import main
from elmo_keras.data.glob_patterns import DIGITS, literal, pattern_could_match
from elmo_keras.models.bilm import training
from elmo_keras.models.bilm.checkpoint_files import CheckpointError, TrainingState, latest_checkpoint, write_checkpoint
from elmo_keras.models.bilm.checkpoints import refuse_checkpoints_in_corpus
from elmo_keras.models.bilm.presets import BiLMConfig
from elmo_keras.models.bilm.training import train_bilm
from elmo_keras.text.vocabulary import Vocabulary

IDENTITY = {"config": {"units": 8}, "seed": 3, "steps_per_epoch": 5, "vocabulary": "v", "corpus": "c"}
CORPUS = [f"the {noun} {verb} by the water ." for noun in ("bank", "river", "boat") for verb in ("sat", "stood")]


def state_at(step: int) -> TrainingState:
    values = {"model": [np.full((4, 16), 7.25, np.float32)], "optimizer": [np.array(step, np.int64)], "metric": []}
    paths = {"model": ["model/kernel"], "optimizer": ["adam/iterations"], "metric": []}
    return TrainingState(step, values, paths, {"loss": [1.5]}, IDENTITY, Vocabulary(["bank", "river"]))


def rewrite(path, meta_changes=None, arrays_changes=None) -> None:
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    meta = json.loads(bytes(arrays["meta"]).decode("utf-8"))
    meta.update(meta_changes or {})
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode("utf-8"), np.uint8)
    arrays.update(arrays_changes or {})
    with open(path, "wb") as handle:
        np.savez(handle, **arrays)


NAN_KERNEL = np.where(np.eye(4, 16) > 0, np.nan, 1.0).astype(np.float32)


@pytest.mark.parametrize("meta, arrays, problem", [
    ({}, {"model_0": NAN_KERNEL}, r"array model_0 \('model/kernel'\) has 4 non-finite value\(s\) \(NaN or inf\)"),
    ({}, {"model_0": np.full((4, 16), np.inf, np.float32)}, r"array model_0 .* has 64 non-finite value\(s\)"),
    ({}, {"optimizer_0": np.array(["4"])}, r"array optimizer_0 \('adam/iterations'\) holds <U1 values, not numbers"),
    ({"step": "4"}, {}, r"its step is '4', not a whole number >= 0"),
    ({"step": -3}, {}, r"its step is -3, not a whole number >= 0"),
    ({"step": 9}, {}, r"its step 9 is not the step 4 of its name"),
    ({"history": {"loss": ["1.5"]}}, {}, r"its history entry 'loss' is \['1.5'\], not a list of numbers"),
    ({"history": {"loss": 1.5}}, {}, r"its history entry 'loss' is 1.5, not a list of numbers"),
    ({"history": [1.5]}, {}, r"its history is list, not a mapping"),
    ({}, {"random_state": np.zeros(3, np.float32)}, r"array random_state holds float32 \(3,\), not a uint8 vector"),
])
def test_a_bad_checkpoint_names_file_array_and_problem_and_the_previous_one_is_used(tmp_path, meta, arrays, problem):
    write_checkpoint(tmp_path, state_at(2))
    newest = write_checkpoint(tmp_path, state_at(4))
    rewrite(newest, meta, arrays)
    message = rf"checkpoint .*checkpoint-000000004.npz is damaged \({problem}.*\); delete it to resume from"
    with pytest.warns(UserWarning, match=message):
        state, skipped = latest_checkpoint(tmp_path)
    assert state.step == 2 and len(skipped) == 1
    (tmp_path / "checkpoint-000000002.npz").unlink()
    with pytest.warns(UserWarning), pytest.raises(CheckpointError, match=r"no intact checkpoint in .*; with none "
                                                                         r"intact, delete them or choose another"):
        latest_checkpoint(tmp_path)


def test_resuming_from_a_checkpoint_holding_nan_says_it_is_damaged_not_that_training_diverged(tmp_path):
    """It used to resume, train from the NaN weights and report 'training diverged … lower the learning rate'."""
    config = BiLMConfig(embedding_dim=8, units=8, num_layers=1, dropout=0.0, epochs=1, batch_size=3,
                        learning_rate=1e-2, training_precision="float32")
    train_bilm(CORPUS, size=config, seed=3, checkpoint_dir=tmp_path)
    (checkpoint,) = tmp_path.glob("checkpoint-*.npz")
    with np.load(checkpoint) as archive:
        kernel = archive["model_0"].copy()
    kernel.flat[0] = np.nan
    rewrite(checkpoint, arrays_changes={"model_0": kernel})
    with pytest.warns(UserWarning), pytest.raises(CheckpointError) as error:
        train_bilm(CORPUS, size=config, seed=3, epochs=2, checkpoint_dir=tmp_path, resume=True)
    assert f"{checkpoint} is damaged (array model_0 (" in str(error.value)
    assert "has 1 non-finite value(s) (NaN or inf))" in str(error.value)
    assert "diverged" not in str(error.value) and "learning rate" not in str(error.value)


# -- a checkpoint directory the corpus can reach --------------------------------------------------------------------


CHECKPOINT = [*literal("checkpoint-"), *[DIGITS] * 9, *literal(".npz")]
TEMPORARY = [*literal(".checkpoint-"), *[frozenset("abc_0")] * 8, *literal(".tmp")]


@pytest.mark.parametrize("pattern, directory, could", [
    ("data/*", "data", True),
    ("data/*.txt", "data", False),
    ("data/*.npz", "data", True),
    ("data/*", "data/ckpt", False),
    ("data/*/*", "data/ckpt", True),  # the checkpoint directory inside the glob's folder
    ("data/**", "data/ckpt/deeper", True),
    ("data/**/*", "data/ckpt", True),
    ("data/**/*.txt", "data/ckpt", False),
    ("data/**", "data/.ckpt", False),  # glob skips hidden directories
    ("data/.*/*", "data/.ckpt", True),
    ("*", ".", True),
    ("data/checkpoint-00000000[0-3].npz", "data", True),
    ("data/checkpoint-00000000[!0-9].npz", "data", False),
    ("data/c?eckpoint*", "data", True),
    ("data/[!c]*", "data", False),
    ("data/checkpoint-000000005.npz", "data", True),  # a plain path naming a checkpoint
    ("data/checkpoint-5.npz", "data", False),
    ("other/*", "data", False),
])
def test_whether_a_corpus_pattern_could_match_a_checkpoint(tmp_path, monkeypatch, pattern, directory, could):
    monkeypatch.chdir(tmp_path)
    assert pattern_could_match(pattern, directory, [CHECKPOINT]) is could


def test_hidden_temporary_files_are_matched_only_by_a_pattern_naming_hidden_files(tmp_path):
    assert not pattern_could_match(tmp_path / "*", tmp_path, [TEMPORARY])
    assert not pattern_could_match(tmp_path / "*.tmp", tmp_path, [TEMPORARY])
    assert pattern_could_match(tmp_path / ".*", tmp_path, [TEMPORARY])
    assert pattern_could_match(tmp_path / ".c*.tmp", tmp_path, [TEMPORARY])


def test_a_symlinked_folder_is_the_same_folder(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert pattern_could_match(tmp_path / "link" / "*", tmp_path / "real", [CHECKPOINT])
    assert pattern_could_match(tmp_path / "real" / "*", tmp_path / "link", [CHECKPOINT])


@pytest.fixture
def no_data(monkeypatch):
    """The refusal must come before the corpus is read: reading it here fails the test."""

    def prepare_training_data(*args, **kwargs):
        raise AssertionError("the corpus was read although the checkpoint directory was refused")

    monkeypatch.setattr(training, "prepare_training_data", prepare_training_data)


def test_train_bilm_refuses_a_checkpoint_directory_its_corpus_glob_could_match(tmp_path, no_data):
    data = tmp_path / "data"
    data.mkdir()
    (data / "part-0.txt").write_text("the bank\n", encoding="utf-8")
    for corpus, checkpoint_dir, kind in [(f"{data}/*", data, "glob"), (data / "*", data, "glob"),
                                         (f"{tmp_path}/**", data / "ckpt", "glob"),
                                         ([data / "part-0.txt", data / "checkpoint-000000002.npz"], data, "file")]:
        with pytest.raises(ValueError) as error:
            train_bilm(corpus, size="tiny", checkpoint_dir=checkpoint_dir)
        assert str(error.value).startswith(f"checkpoint_dir {checkpoint_dir}: the corpus {kind} ")
        assert " could match the checkpoint-NNNNNNNNN.npz" in str(error.value)
        assert ("files written there, so a resumed run would read its own checkpoints as corpus; choose a checkpoint "
                "directory outside the corpus's folder") in str(error.value)
    with pytest.raises(AssertionError, match="the corpus was read"):  # a narrower glob is fine
        train_bilm(f"{data}/*.txt", size="tiny", checkpoint_dir=data)
    with pytest.raises(AssertionError, match="the corpus was read"):  # sentences name no file
        train_bilm([f"{data}/*", "the bank"], size="tiny", checkpoint_dir=data)


def test_train_refuses_a_checkpoint_directory_in_the_corpus_glob_folder(tmp_path, capsys, monkeypatch):
    from elmo_keras.models.bilm import training as training_module  # the command imports train_bilm when it runs

    def no_training(*args, **kwargs):
        raise AssertionError("train_bilm ran although the checkpoint directory was refused")

    monkeypatch.setattr(training_module, "train_bilm", no_training)
    data = tmp_path / "data"
    data.mkdir()
    (data / "part-0.txt").write_text("the bank\n", encoding="utf-8")
    for corpus, checkpoint_dir in [(f"{data}/*", data), (f"{data}/*/*", data / "ckpt"), (f"{tmp_path}/*/*", data)]:
        status = main(["train", str(tmp_path / "m"), "--corpus", corpus, "--checkpoint-dir", str(checkpoint_dir),
                       "--size", "tiny", "--quiet"])
        err = capsys.readouterr().err
        assert status == 1 and err.count("\n") == 1, err
        assert err.startswith(f"error: --checkpoint-dir {checkpoint_dir}: the corpus glob '{corpus}' could match the "
                              "checkpoint-NNNNNNNNN.npz")
    assert not (data / "ckpt").exists() and os.listdir(data) == ["part-0.txt"]


def test_refusal_skips_in_memory_corpora_and_runs_without_checkpoints(tmp_path):
    refuse_checkpoints_in_corpus(None, f"{tmp_path}/*")
    refuse_checkpoints_in_corpus(tmp_path, None)
    refuse_checkpoints_in_corpus(tmp_path, [["the", "bank"], ["a", "b"]])
