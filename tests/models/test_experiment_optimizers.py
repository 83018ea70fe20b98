"""A shipped experiment file's recorded optimizer is the one its experiment trains with today: when a trainer's
optimizer changes, the files made with the old one fail here until their tools are rerun (``models.provenance``)."""

import json

import pytest

from elmo_keras._backend import engine_version
from elmo_keras.analysis.gradient_study.models import RecurrentClassifier
from elmo_keras.analysis.gradient_study.task import NUM_SYMBOLS, train_remember_first
from elmo_keras.models.classifiers import train_text_classifier
from elmo_keras.models.provenance import FIELDS, experiment_provenance, trainer_optimizer
from tests.support.paths import REPO_ROOT

ROOT = REPO_ROOT
SHIPPED = sorted((ROOT / "elmo_keras" / "data").glob("*_experiments.json"))


def gradient_study_optimizer() -> str:
    """What ``train_remember_first`` (the gradient study's own loop, not the trainer skeleton) compiles with."""
    model = RecurrentClassifier("rnn", units=4, num_classes=NUM_SYMBOLS, seed=0)
    train_remember_first(model, length=3, count=8, epochs=1, batch_size=8)
    return type(model.optimizer).__name__


# the experiments whose models do not train through models.fitting; the others train with trainer_optimizer()
OWN_TRAINING_LOOP = {"gradient_experiments.json": gradient_study_optimizer}


def test_the_trainer_skeleton_trains_with_trainer_optimizer():
    model = train_text_classifier(["good film", "bad film"] * 4, ["positive", "negative"] * 4, kind="cnn", epochs=1)
    assert type(model.optimizer).__name__ == trainer_optimizer() == "DenseGradientAdam"


def test_experiment_provenance_describes_this_process():
    provenance = experiment_provenance()
    assert tuple(provenance) == FIELDS
    assert provenance["optimizer"] == trainer_optimizer() and provenance["backend"] == engine_version()
    assert experiment_provenance("Adam")["optimizer"] == "Adam"


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: path.name)
def test_a_recorded_optimizer_is_todays(path):
    provenance = json.loads(path.read_text(encoding="utf-8")).get("provenance")
    if provenance is None:
        pytest.skip(f"{path.name} was made before provenance was recorded (test_experiment_provenance.py)")
    today = OWN_TRAINING_LOOP.get(path.name, trainer_optimizer)()
    assert provenance["optimizer"] == today, (
        f"{path.name} was made with {provenance['optimizer']}; its experiment trains with {today} now: rerun "
        "its tools/run_*_experiments.py")
