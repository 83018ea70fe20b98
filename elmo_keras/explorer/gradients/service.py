"""The Gradients page's service: the trained vanilla RNN and LSTM on disk, their gradient measurements, the quiz.

On first use ``train_gradient_models`` trains both models on the remember-the-first-symbol task (small sizes, see
the constants) and saves them under ``GRADIENTS_DIR_NAME`` in the models directory in one step (a staging
directory renamed into place): ``rnn.keras``, ``lstm.keras`` and ``training.json`` (settings, per-epoch loss and
accuracy, seconds); then it keeps the gradients at the page's default settings in the explorer's result cache
(``store``), so that the first visit shows the page at once. The shipped models come without them, and
``measurements_for`` measures and keeps them on the first visit.
``load_gradient_models`` reads them back; a damaged directory is a ``ValueError`` that says
to retrain. ``page_measurements`` measures the untrained and trained models for the page's settings and
``analysis.gradient_study.results.gradient_study`` turns that into tables for any clipping threshold.
"""

from __future__ import annotations

import os
import pathlib
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass

import pandas as pd

from elmo_keras._registration import load_model
from elmo_keras.analysis.gradient_study.models import RecurrentClassifier
from elmo_keras.analysis.gradient_study.results import EXPLODING_SCALE as EXPLODING_SCALE  # re-exported for the page
from elmo_keras.analysis.gradient_study.results import INITIAL as INITIAL  # re-exported for the page
from elmo_keras.analysis.gradient_study.results import (
    TRAINED,
    GradientStudy,
    Measurements,
    gradient_study,
    measure_gradients,
    untrained_models,
)
from elmo_keras.analysis.gradient_study.task import NUM_SYMBOLS, train_remember_first
from elmo_keras.explorer.first_use import page_models
from elmo_keras.explorer.gradients.store import (
    LEGACY_MEASUREMENTS_FILE,
    cached_measurements,
    keep_measurements,
    measurements_path,
)
from elmo_keras.explorer.model_store import GRADIENTS_DIR_NAME, check_page_directory
from elmo_keras.safe_files import read_json_object, replace_directory, staging_directory, write_json_object

MODEL_FILES = {"vanilla RNN": "rnn.keras", "LSTM": "lstm.keras"}
TRAINING_FILE = "training.json"
# what the page writes into its directory; with the measurements.npz of earlier versions (the measurements now live
# in the result cache), so that an old directory holding one is neither refused nor left half deleted
OWN_ENTRIES = (*MODEL_FILES.values(), TRAINING_FILE, LEGACY_MEASUREMENTS_FILE)
TRAINING_STEPS = (*MODEL_FILES, "gradients")  # what the first use runs, in order
DEFAULT_THETA = 1.0  # clips the exploding RNN's ‖∂L/∂h‖ (~1e5), leaves the untrained models' (~0.1–0.3) alone
INITIAL_FORGET_BIAS = 3.0  # the page's untrained LSTM starts where the trained one did
THETA_CHOICES = (0.0001, 0.001, 0.01, 0.1, 1.0, 10.0, 100.0)
Progress = Callable[[int, str], None]  # (finished steps, what runs now)


@dataclass(frozen=True)
class GradientSettings:
    """The first-use training: both models use these (the page's sliders only change the untrained models)."""

    length: int = 50  # T: the first symbol, then T − 1 distractors
    units: int = 32
    rnn_scale: float = 1.0  # vanilla RNN: orthogonal U of gain 1 (Keras' SimpleRNN default)
    forget_bias: float = 3.0  # LSTM: σ(3) ≈ 0.95; with Keras' 1.0 only 1 of 3 seeds learned T = 50 in 10 epochs
    count: int = 512
    epochs: int = 10
    batch_size: int = 32
    learning_rate: float = 0.01
    seed: int = 0


FIRST_USE_SETTINGS = GradientSettings()


@dataclass(frozen=True)
class TrainedModels:
    """The saved models (``{"vanilla RNN": model, "LSTM": model}``), their settings and training histories
    (``{"vanilla RNN": {"loss": [...], "accuracy": [...], "seconds": s}, ...}``)."""

    models: dict
    settings: GradientSettings
    histories: dict


def gradients_dir(models_dir: str | os.PathLike) -> pathlib.Path:
    return pathlib.Path(models_dir) / GRADIENTS_DIR_NAME


def has_gradient_models(models_dir: str | os.PathLike) -> bool:
    """Whether the first-use training has saved its files (they may still be damaged: ``load_gradient_models``)."""
    directory = gradients_dir(models_dir)
    return all((directory / name).is_file() for name in (*MODEL_FILES.values(), TRAINING_FILE))


def gradient_version(models_dir: str | os.PathLike) -> tuple[str, int] | None:
    """``(models_dir, saved_version)`` once ``has_gradient_models``, else None: the handle the page loads and caches
    by (``GRADIENT_MODELS``)."""
    return (str(models_dir), saved_version(models_dir)) if has_gradient_models(models_dir) else None


def saved_version(models_dir: str | os.PathLike) -> int:
    """Changes whenever the models are retrained (``training.json``'s modification time in ns; 0 when absent): a
    cache key for what is computed from them."""
    try:
        return (gradients_dir(models_dir) / TRAINING_FILE).stat().st_mtime_ns
    except OSError:
        return 0


def train_gradient_models(models_dir: str | os.PathLike, progress: Progress | None = None,
                          settings: GradientSettings | None = None) -> TrainedModels:
    """Train the vanilla RNN and the LSTM on the task and save them under ``GRADIENTS_DIR_NAME`` (replacing what
    was there, in one step), then keep their measurements at the page's defaults (``store.keep_measurements``).

    Args:
        models_dir: the models directory.
        progress: called as ``progress(finished steps, what runs now)`` before each model and at the end.
        settings: ``GradientSettings``. Defaults to ``FIRST_USE_SETTINGS`` (the page's).
    """
    settings = settings or FIRST_USE_SETTINGS
    target = gradients_dir(models_dir)
    check_page_directory(target, OWN_ENTRIES)  # before the training: a user's files there are never replaced

    def report(step):
        if progress is not None:
            progress(step, TRAINING_STEPS[step] if step < len(TRAINING_STEPS) else "done")

    models, histories = {}, {}
    for step, (label, cell_type) in enumerate(zip(MODEL_FILES, ("rnn", "lstm"))):
        report(step)
        model = RecurrentClassifier(cell_type, settings.units, NUM_SYMBOLS, recurrent_scale=settings.rnn_scale,
                                    forget_bias=settings.forget_bias, seed=settings.seed)
        run = train_remember_first(model, settings.length, settings.count, settings.epochs, settings.batch_size,
                                   settings.learning_rate, seed=settings.seed)
        models[label], histories[label] = model, asdict(run)
    trained = TrainedModels(models, settings, histories)
    report(len(MODEL_FILES))
    measurements = page_measurements(trained, *page_defaults(settings))
    staging = staging_directory(target)
    try:
        for label, model in models.items():
            model.save(staging / MODEL_FILES[label])
        if not write_json_object(staging / TRAINING_FILE, {"settings": asdict(settings), "histories": histories}):
            raise OSError(f"cannot write {staging / TRAINING_FILE}")
        replace_directory(staging, target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    keep_measurements(measurements_path(models_dir, target, *page_defaults(settings)), measurements)
    report(len(TRAINING_STEPS))
    return trained


def load_gradient_models(models_dir: str | os.PathLike) -> TrainedModels:
    """The models saved by ``train_gradient_models``.

    Raises:
        FileNotFoundError: nothing saved yet.
        ValueError: a file is damaged (the message names it and says to retrain).
    """
    directory = gradients_dir(models_dir)
    if not has_gradient_models(models_dir):
        raise FileNotFoundError(f"no trained gradient models in {directory}")
    record = read_json_object(directory / TRAINING_FILE)
    try:
        settings = GradientSettings(**record["settings"])
        histories = {label: record["histories"][label] for label in MODEL_FILES}
    except (TypeError, KeyError) as error:
        raise ValueError(f"{directory / TRAINING_FILE} is damaged ({error!r}); retrain the models") from error
    models = {}
    for label, name in MODEL_FILES.items():
        try:
            models[label] = load_model(directory / name, compile=False)
        except Exception as error:  # a truncated zip, a wrong class, missing weights: all mean "retrain"
            raise ValueError(f"{directory / name} cannot be loaded ({type(error).__name__}: {error}); "
                             f"retrain the models") from error
        if not isinstance(models[label], RecurrentClassifier):
            raise ValueError(f"{directory / name} holds a {type(models[label]).__name__}, not a RecurrentClassifier;"
                             f" retrain the models")
    return TrainedModels(models, settings, histories)


# the page's models, declared once; ready_gradient_version installs the shipped ones (tools/build_shipped_models.py;
# without measurements), GradientTraining(models_dir, settings=...) runs train_gradient_models, discard_gradient_models
# deletes them, with an earlier version's measurements.npz (refused where the directory holds files the page did not
# write; their kept measurements no longer match any models and go with the next ones')
GRADIENT_MODELS = page_models(
    "gradients", "vanilla RNN and LSTM", train=train_gradient_models,
    steps=["measuring the gradients" if step == "gradients"
           else f"training the {step} on the remember-the-first-symbol task" for step in TRAINING_STEPS],
    job_name="elmo-keras-gradients", saved=gradient_version, load=lambda handle: load_gradient_models(handle[0]),
    directories={GRADIENTS_DIR_NAME: OWN_ENTRIES}, shipped=(GRADIENTS_DIR_NAME,))
ready_gradient_version, GradientTraining = GRADIENT_MODELS.ready, GRADIENT_MODELS.start
discard_gradient_models = GRADIENT_MODELS.discard


def page_measurements(trained: TrainedModels, length: int, rnn_scale: float, forget_bias: float) -> Measurements:
    """Gradients of the trained models and of untrained ones (vanilla RNN of gain ``rnn_scale``, LSTM with
    ``forget_bias``, the exploding RNN) on held-out sequences of ``length``."""
    settings = trained.settings
    models = untrained_models(settings.units, rnn_scale, forget_bias, seed=settings.seed)
    models.update({(label, TRAINED): model for label, model in trained.models.items()})
    return measure_gradients(models, length, rnn_scale, seed=settings.seed)


def page_defaults(settings: GradientSettings) -> tuple[int, float, float]:
    """The page's first ``(length, rnn_scale, forget_bias)``: the training's length and gain and
    ``INITIAL_FORGET_BIAS``."""
    return settings.length, settings.rnn_scale, INITIAL_FORGET_BIAS


def measurements_for(models_dir: str | os.PathLike, trained: TrainedModels, length: int, rnn_scale: float,
                     forget_bias: float) -> Measurements:
    """``page_measurements``; for the page's defaults read from the result cache (``store.cached_measurements``),
    or measured and kept there (the shipped models come without them). Other settings are measured each time, so
    that the sliders do not fill the disk."""
    def measure():
        return page_measurements(trained, length, rnn_scale, forget_bias)

    if (length, rnn_scale, forget_bias) != page_defaults(trained.settings):
        return measure()
    return cached_measurements(measurements_path(models_dir, gradients_dir(models_dir), length, rnn_scale,
                                                 forget_bias), measure)


def page_study(measurements: Measurements, theta: float) -> GradientStudy:
    """The page's tables for the clipping threshold ``theta`` (``gradient_results.gradient_study``: NumPy only)."""
    return gradient_study(measurements, theta)


def training_table(trained: TrainedModels) -> pd.DataFrame:
    """model, epoch, loss, accuracy: one row per model and epoch."""
    return pd.DataFrame([{"model": label, "epoch": epoch + 1, "loss": loss, "accuracy": accuracy}
                         for label, history in trained.histories.items()
                         for epoch, (loss, accuracy) in enumerate(zip(history["loss"], history["accuracy"]))])


def final_accuracies(trained: TrainedModels) -> dict:
    """``{"vanilla RNN": accuracy, "LSTM": accuracy}`` after the last training epoch."""
    return {label: history["accuracy"][-1] for label, history in trained.histories.items()}
