"""Resumable training (``models.bilm.checkpoints``, ``train_bilm(checkpoint_dir=…, resume=True)``): a run stopped at any
moment — an exception, SIGKILL after a step, SIGKILL in the middle of writing a checkpoint — and restarted ends
with exactly the weights and history of an uninterrupted run of the same seed (tolerance 0: every variable is
compared with ``==``), and a damaged or foreign checkpoint is an error that says so.

The run (``tests/support/resume_worker.py``): 18 sentences, batches of 4 (5 steps per epoch), 3 epochs, dropout 0.3, a
checkpoint every 2 steps and at every epoch end (steps 2, 4, 5, 6, 8, 10, 12, 14, 15).
"""

import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.models.bilm import checkpoint_files
from elmo_keras.models.bilm.checkpoint_files import (
    CheckpointError,
    TrainingState,
    check_same_run,
    latest_checkpoint,
    read_checkpoint,
    write_checkpoint,
)
from elmo_keras.models.callbacks import TrainingDivergedError
from elmo_keras.text.vocabulary import Vocabulary
from tests.support.backend_support import tensorflow_only
from tests.support.paths import REPO_ROOT
from tests.support.resume_worker import CORPUS, StopAfterStep, train

ROOT = REPO_ROOT


class Interrupted(Exception):
    """Stands for anything that stops a run (the SIGKILL test kills a real process)."""


def variables_of(model) -> list[np.ndarray]:
    return [np.asarray(keras.ops.convert_to_numpy(v)) for v in model.variables]


def steps_saved(directory) -> list[int]:
    return sorted(int(path.name[11:20]) for path in pathlib.Path(directory).glob("checkpoint-*.npz"))


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The uninterrupted run (with checkpoints: writing them must not change it), started with ``resume=True`` on
    an empty directory."""
    directory = tmp_path_factory.mktemp("fresh")
    model = train(directory, resume=True)
    assert model.training_summary["checkpoints"]["note"] == f"no checkpoint in {directory}: trained from scratch"
    assert steps_saved(directory) == [14, 15]  # the latest two
    return variables_of(model), model.training_summary["history"]


def assert_same_run(model, reference):
    weights, history = reference
    resumed = variables_of(model)
    assert len(resumed) == len(weights)
    for mine, theirs in zip(resumed, weights):  # weights, Adam's are in the optimizer; seed generator states too
        np.testing.assert_array_equal(mine, theirs)
    assert model.training_summary["history"] == history


def interrupt():
    raise Interrupted()


def test_a_run_resumed_mid_epoch_ends_exactly_as_the_uninterrupted_run(tmp_path, reference):
    with pytest.raises(Interrupted):
        train(tmp_path, callbacks=[StopAfterStep(7, interrupt)])  # step 7: batch 2 of epoch 2
    assert steps_saved(tmp_path) == [5, 6]
    with pytest.raises(CheckpointError, match=r"belongs to a different run \(seed: 3 in the checkpoint, 4 now\)"):
        checkpoints_of_other_run(tmp_path, seed=4)
    model = train(tmp_path, resume=True)
    assert model.training_summary["checkpoints"]["note"] == "resumed from checkpoint-000000006.npz (step 6)"
    assert_same_run(model, reference)


def checkpoints_of_other_run(directory, **changes):
    from elmo_keras.models.bilm.training import train_bilm
    from tests.support.resume_worker import CONFIG

    settings = {"corpus": CORPUS, "preset": CONFIG, "seed": 3, "resume": True, **changes}
    return train_bilm(**settings, checkpoint_dir=directory, checkpoint_every=2)


def run_worker(directory, *options) -> subprocess.CompletedProcess:
    environment = {**os.environ, "KERAS_BACKEND": "tensorflow", "TF_CPP_MIN_LOG_LEVEL": "3"}
    return subprocess.run([sys.executable, "-m", "tests.support.resume_worker", str(directory), *options], cwd=ROOT,
                          env=environment, capture_output=True, text=True, timeout=300)


def resume_without_seed_states(model, state, groups=checkpoint_files.GROUPS):
    """``restore_state`` that leaves the ``SeedGenerator`` states as a new model has them (the control below)."""
    seeds = [i for i, v in enumerate(model.variables) if "seed_generator" in v.path]
    assert seeds, "the model has dropout seed generators"
    fresh = variables_of(model)
    checkpoint_files.restore_state(model, state, groups)
    for i in seeds:
        model.variables[i].assign(fresh[i])


@tensorflow_only("the SIGKILL test starts 2 processes: it runs once, in the TensorFlow run of the three backends")
def test_a_run_killed_with_sigkill_and_restarted_ends_exactly_as_the_uninterrupted_run(tmp_path, reference,
                                                                                         monkeypatch):
    saved = tmp_path / "checkpoints"
    killed = run_worker(tmp_path, "--kill-after-step", "7")
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    assert steps_saved(saved) == [5, 6]

    killed = run_worker(tmp_path, "--resume", "--kill-writing-step", "12")  # resumes at step 6, dies writing 12
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    assert steps_saved(saved) == [8, 10]
    half_written = list(saved.glob(".checkpoint-*.tmp"))
    complete_size = (saved / "checkpoint-000000010.npz").stat().st_size
    assert len(half_written) == 1 and 0 < half_written[0].stat().st_size < complete_size

    # the control that shows the equality below can fail: without its SeedGenerator states, a resumed run replays
    # the dropout masks of the first steps and ends elsewhere
    shutil.copytree(saved, tmp_path / "control")
    with monkeypatch.context() as patched:
        patched.setattr("elmo_keras.models.bilm.training.restore_state", resume_without_seed_states)
        control = variables_of(train(tmp_path / "control", resume=True))
    assert any(not np.array_equal(mine, theirs) for mine, theirs in zip(control, reference[0]))

    model = train(saved, resume=True)  # the restart (in this process: only the files carry the killed run's state)
    assert model.training_summary["checkpoints"]["note"] == "resumed from checkpoint-000000010.npz (step 10)"
    assert not list(saved.glob(".checkpoint-*.tmp")) and steps_saved(saved) == [14, 15]
    assert_same_run(model, reference)


# -- checkpoint files, without training ---------------------------------------------------------------------------


IDENTITY = {"config": {"units": 8}, "seed": 3, "steps_per_epoch": 5, "vocabulary": "v", "corpus": "c"}


def state_at(step: int, value: float = 7.25) -> TrainingState:
    values = {"model": [np.full((4, 16), value, np.float32)], "optimizer": [np.array(step, np.int64)], "metric": []}
    paths = {"model": ["model/kernel"], "optimizer": ["adam/iterations"], "metric": []}
    return TrainingState(step, values, paths, {"loss": [1.5]}, IDENTITY, Vocabulary(["bank", "river"]))


def test_the_latest_two_checkpoints_are_kept_and_read_back(tmp_path):
    for step in (1, 2, 3):
        write_checkpoint(tmp_path, state_at(step, value=step))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint-000000002.npz", "checkpoint-000000003.npz"]
    state = read_checkpoint(tmp_path / "checkpoint-000000003.npz")
    assert state.step == 3 and state.history == {"loss": [1.5]} and state.identity == IDENTITY
    assert state.vocabulary == Vocabulary(["bank", "river"])
    np.testing.assert_array_equal(state.values["model"][0], np.full((4, 16), 3.0, np.float32))


def assert_damaged_and_skipped(newest: pathlib.Path, problem: str) -> None:
    """Reading ``newest`` (step 4, beside an intact step 2) says it is damaged, with ``problem`` (a regex), and
    resuming skips it for step 2."""
    with pytest.raises(CheckpointError, match=rf"checkpoint .*{newest.name} is damaged \({problem}\); delete it to "
                                              r"resume from the previous checkpoint"):
        read_checkpoint(newest)
    with pytest.warns(UserWarning, match="resuming from an older checkpoint"):
        state, skipped = latest_checkpoint(newest.parent)
    assert state.step == 2 and len(skipped) == 1


def test_a_checkpoint_has_the_permissions_of_any_new_file(tmp_path):
    umask = os.umask(0o022)
    os.umask(umask)
    path = write_checkpoint(tmp_path, state_at(1))
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's 0600


def test_a_diverged_model_is_never_captured():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="dense")])
    model.compile(optimizer="adam", loss="mse")
    model.optimizer.build(model.trainable_variables)
    model.layers[0].kernel.assign(np.array([[np.nan, 1.0], [np.inf, 1.0], [1.0, 1.0]], np.float32))
    with pytest.raises(TrainingDivergedError, match=r"the model has 2 non-finite value\(s\) \(NaN or inf\) in "
                                                    r"'.*dense/kernel' after step 3: training diverged"):
        checkpoint_files.capture_state(model, 3, {}, IDENTITY, Vocabulary(["bank"]))


@pytest.mark.parametrize("field", ["paths", "step", "history", "identity", "paths.model"])
def test_a_checkpoint_missing_a_field_is_damaged_and_skipped(tmp_path, field):
    write_checkpoint(tmp_path, state_at(2))
    newest = write_checkpoint(tmp_path, state_at(4))
    with np.load(newest) as archive:
        arrays = {name: archive[name] for name in archive.files}
    meta = json.loads(bytes(arrays["meta"]).decode("utf-8"))
    if field == "paths.model":
        del meta["paths"]["model"]
    else:
        del meta[field]
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode("utf-8"), np.uint8)
    np.savez(newest, **arrays)
    assert_damaged_and_skipped(newest, r"its description is incomplete: KeyError .*")


def test_a_damaged_newest_checkpoint_falls_back_to_the_previous_one(tmp_path):
    write_checkpoint(tmp_path, state_at(2))
    newest = write_checkpoint(tmp_path, state_at(4))
    whole = newest.read_bytes()
    newest.write_bytes(whole[: len(whole) // 2])  # cut short
    assert_damaged_and_skipped(newest, r"truncated or corrupted: .*")

    flipped = bytearray(whole)  # one bit flipped inside an array: the zip's CRC-32 catches it
    at = whole.index(np.full(16, 7.25, np.float32).tobytes())
    flipped[at + 5] ^= 0x01
    newest.write_bytes(bytes(flipped))
    with pytest.raises(CheckpointError, match="is damaged"):
        read_checkpoint(newest)
    (tmp_path / "checkpoint-000000002.npz").write_bytes(b"not a zip")
    with pytest.warns(UserWarning), pytest.raises(CheckpointError, match="no intact checkpoint in"):
        latest_checkpoint(tmp_path)


def test_a_checkpoint_of_another_run_names_every_difference(tmp_path):
    write_checkpoint(tmp_path, state_at(2))
    state, _ = latest_checkpoint(tmp_path)
    other = {**IDENTITY, "config": {"units": 16}, "seed": 4, "corpus": "d"}
    with pytest.raises(CheckpointError) as error:
        check_same_run(state, other)
    assert ("belongs to a different run (config.units: 8 in the checkpoint, 16 now; the corpus differs; seed: 3 in "
            "the checkpoint, 4 now); resume with the same corpus and settings") in str(error.value)


def test_checkpoint_arguments_are_checked_before_training(tmp_path):
    write_checkpoint(tmp_path, state_at(2))
    with pytest.raises(CheckpointError, match=r"already holds checkpoint-000000002.npz: resume from it"):
        checkpoints_of_other_run(tmp_path, resume=False)
    from elmo_keras.models.bilm.training import train_bilm

    with pytest.raises(ValueError, match="checkpoint_every must be a positive int"):
        train_bilm(CORPUS, checkpoint_dir=tmp_path, checkpoint_every=0)
    with pytest.raises(ValueError, match="checkpoint_every and resume need a checkpoint_dir"):
        train_bilm(CORPUS, resume=True)


def test_an_unusable_checkpoint_directory_is_refused_before_training(tmp_path):
    from elmo_keras.models.bilm.checkpoints import prepare_checkpoint_directory

    (tmp_path / "file").write_text("a file")
    with pytest.raises(ValueError, match="cannot create checkpoint_dir"):
        prepare_checkpoint_directory(tmp_path / "file" / "runs")
    prepare_checkpoint_directory(tmp_path / "new" / "runs")  # parents made
    assert (tmp_path / "new" / "runs").is_dir()


def test_damaged_newer_checkpoints_are_set_aside_when_resuming_from_an_older_one(tmp_path):
    from elmo_keras.models.bilm.checkpoints import start_checkpointing

    write_checkpoint(tmp_path, state_at(2))
    newest = write_checkpoint(tmp_path, state_at(4))
    newest.write_bytes(newest.read_bytes()[:100])
    with pytest.warns(UserWarning, match="resuming from an older checkpoint"):
        state, report = start_checkpointing(tmp_path, True, IDENTITY, total_steps=10)
    assert state.step == 2 and "kept as *.npz.damaged" in report["note"]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["checkpoint-000000002.npz",
                                                                 "checkpoint-000000004.npz.damaged"]


def test_a_reader_of_the_checkpoints_leaves_their_directory_as_it_is(tmp_path):
    """A non-chief worker (``writer=False``) reads the chief's checkpoints and changes nothing where the chief writes:
    no directory made, no temporary file removed, no damaged checkpoint set aside (``tests/models/bilm/
    test_multi_worker_training.py`` runs the two workers)."""
    from elmo_keras.models.bilm.checkpoints import start_checkpointing

    state, report = start_checkpointing(tmp_path / "missing", False, IDENTITY, total_steps=10, writer=False)
    assert state is None and report["note"] == "new run" and not (tmp_path / "missing").exists()
    write_checkpoint(tmp_path, state_at(2))
    newest = write_checkpoint(tmp_path, state_at(4))
    newest.write_bytes(newest.read_bytes()[:100])
    (tmp_path / ".checkpoint-abcdefgh.tmp").write_bytes(b"the writer's checkpoint, half written")
    before = sorted(path.name for path in tmp_path.iterdir())
    with pytest.warns(UserWarning, match="resuming from an older checkpoint"):
        state, report = start_checkpointing(tmp_path, True, IDENTITY, total_steps=10, writer=False)
    assert state.step == 2 and "skipping 1 damaged newer checkpoint(s)" in report["note"]
    assert sorted(path.name for path in tmp_path.iterdir()) == before


def test_planned_batches_from_a_step_are_the_tail_of_the_whole_plan():
    """The ``PyDataset`` path (JAX, PyTorch; large corpora on TensorFlow) skips exactly ``start_step`` batches,
    whatever Keras's ``on_epoch_end`` calls (it makes one more than there are epochs)."""
    from elmo_keras.models.bilm.batches import PlannedBatches, ShuffledBatches
    from elmo_keras.text.sentences import as_token_lists

    sentences = as_token_lists(CORPUS)
    plan = ShuffledBatches(sentences, Vocabulary.from_corpus(sentences), "word", batch_size=4, seed=3)
    whole = PlannedBatches(plan, epochs=3)
    plan.on_epoch_end()  # as Keras's iterator reset does: no effect on what is planned
    tail = PlannedBatches(plan, epochs=3, start_step=7)
    assert len(whole) == 15 and len(tail) == 8
    for index in range(8):
        for mine, theirs in zip(tail[index], whole[7 + index]):
            np.testing.assert_array_equal(mine, theirs)
    first_of_epoch_2 = plan.encoded(plan.epoch_batches(2)[0])
    np.testing.assert_array_equal(tail[3][0], first_of_epoch_2[0])
