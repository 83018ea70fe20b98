"""Training a biLM for the explorer: settings, a live per-epoch history, and the first-launch default model.

The page passes a ``progress(epoch, logs)`` function; ``LiveHistory`` collects the logs and turns them into
the long table the loss and perplexity curves are drawn from, so a chart can be redrawn after every epoch.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd

from elmo_keras.argument_checks import check_finite_positive, check_int
from elmo_keras.explorer.background import BackgroundJob
from elmo_keras.explorer.corpus import builtin_corpus, split_sentences
from elmo_keras.explorer.first_use import FirstUseModels
from elmo_keras.explorer.model_store import (
    DEFAULT_MODEL_NAME,
    DEFAULT_PRESET,
    ModelRef,
    reserve_model_name,
    save_model,
    validate_model_name,
)
from elmo_keras.explorer.state import BUILT_IN
from elmo_keras.models.bilm.presets import SIZES, get_size

Progress = Callable[[int, dict], None]
DIRECTIONS = ("forward", "backward")


def preset_names() -> list[str]:
    """The biLM presets a user can train from the explorer, in ``PRESETS`` order."""
    return list(SIZES)


@dataclass(frozen=True)
class TrainingSettings:
    """What the training form asks for.

    Attributes:
        preset: a key of ``PRESETS``.
        epochs: int ≥ 1.
        learning_rate: float, finite and > 0.
        seed: int.

    Raises:
        ValueError: an unknown preset, or a bad ``epochs`` or ``learning_rate`` (named).
    """

    preset: str = DEFAULT_PRESET
    epochs: int = 30
    learning_rate: float = 3e-3
    seed: int = 0

    def __post_init__(self):
        get_size(self.preset)  # raises ValueError naming the unknown size
        check_int(self.epochs, "epochs")
        check_finite_positive(self.learning_rate, "learning_rate")

    @classmethod
    def for_preset(cls, preset: str, seed: int = 0) -> "TrainingSettings":
        """The preset's own epochs and learning rate."""
        config = get_size(preset)
        return cls(preset, int(config.epochs), float(config.learning_rate), int(seed))


@dataclass
class LiveHistory:
    """Per-epoch logs as they arrive; call it as the training callback (``fn(epoch, logs)``)."""

    total_epochs: int
    logs: list[dict] = field(default_factory=list)
    on_epoch: Progress | None = None

    def __call__(self, epoch: int, logs: dict) -> None:
        self.logs.append({"epoch": int(epoch), **{k: float(v) for k, v in logs.items()}})
        if self.on_epoch is not None:
            self.on_epoch(epoch, logs)

    @property
    def fraction(self) -> float:
        """Share of ``total_epochs`` finished, for the progress bar."""
        return min(1.0, len(self.logs) / max(self.total_epochs, 1))

    def frame(self) -> pd.DataFrame:
        """The epochs so far as ``history_frame``'s long table."""
        return history_frame(self.logs)


def epoch_count(epochs: int | None) -> str:
    """``"1 epoch"``, ``"30 epochs"``, or ``"? epochs"`` when unknown."""
    if epochs is None:
        return "? epochs"
    return f"{epochs} epoch" + ("" if epochs == 1 else "s")


def epoch_status(epoch: int, total_epochs: int, logs: dict) -> str:
    """One progress-bar line: the epoch and each direction's perplexity, as the perplexity curve shows them.

    (The Keras ``loss`` is the sum of the two directions' mean cross-entropies; printed beside a curve of
    per-direction losses it would read as twice either of them.)
    """
    return (f"Epoch {epoch}/{total_epochs}: forward perplexity {logs.get('forward_perplexity', float('nan')):.1f}, "
            f"backward {logs.get('backward_perplexity', float('nan')):.1f}")


def history_frame(logs: list[dict] | dict) -> pd.DataFrame:
    """Long table ``epoch, direction, loss, perplexity`` from per-epoch logs or a Keras ``history`` dict.

    A direction's loss is its mean token cross-entropy, ``log(perplexity)``; the training loss is their sum.
    """
    if isinstance(logs, dict):  # {"loss": [...], "forward_perplexity": [...], ...}
        epochs = len(next(iter(logs.values()), []))
        logs = [{"epoch": i + 1, **{k: v[i] for k, v in logs.items()}} for i in range(epochs)]
    rows = []
    for entry in logs:
        for direction in DIRECTIONS:
            value = entry.get(f"{direction}_perplexity")
            if value is None:
                continue
            rows.append({"epoch": int(entry["epoch"]), "direction": direction,
                         "loss": math.log(max(float(value), 1e-12)), "perplexity": float(value)})
    return pd.DataFrame(rows, columns=["epoch", "direction", "loss", "perplexity"])


def train_on_corpus(corpus: pd.DataFrame, settings: TrainingSettings, progress: Progress | None = None):
    """Train a biLM on the corpus's ``train`` rows (held-out perplexity on its ``heldout`` rows, if any).

    Args:
        corpus: the working corpus.
        settings: preset, epochs, learning rate and seed.
        progress: called as ``progress(epoch, logs)`` after every epoch. Defaults to None.

    Raises:
        ValueError: no ``train`` rows; training errors as ``train_bilm``.
    """
    train, heldout = split_sentences(corpus)
    # here: Keras loads with the first training, not with the app
    from elmo_keras.models.bilm.training import train_bilm

    return train_bilm(
        corpus=train, heldout=heldout or None, size=settings.preset, epochs=settings.epochs,
        learning_rate=settings.learning_rate, seed=settings.seed, callbacks=[progress] if progress else None,
    )


def train_and_save(corpus: pd.DataFrame, settings: TrainingSettings, directory: str | os.PathLike, name: str,
                   corpus_label: str, progress: Progress | None = None, overwrite: bool = False) -> ModelRef:
    """Check the name first (no training is wasted on a bad or taken name), train, then save as ``directory/name``.

    A new name is reserved from the check to the end of the save (``model_store.reserve_model_name``): another
    session training or saving the same name meanwhile is refused before it trains. An overwriting training
    holds nothing while it trains; its save waits for a session holding the name, then replaces that model.

    Args:
        corpus, settings, progress: as ``train_on_corpus``.
        directory: the models directory.
        name: the model's name (``model_store.validate_model_name``).
        corpus_label: str, the corpus's description saved in ``training.json`` (shown in the sidebar).
        overwrite: bool, replace a model of the same name. Defaults to False.

    Raises:
        ValueError: a bad or taken name, or one another session is training (before training); or as
            ``train_on_corpus``.
    """
    if overwrite:
        name = validate_model_name(name)
        model = train_on_corpus(corpus, settings, progress)
        return save_model(model, directory, name, preset=settings.preset, corpus=corpus_label, overwrite=True)
    with reserve_model_name(directory, name) as reservation:
        model = train_on_corpus(corpus, settings, progress)
        return reservation.save(model, preset=settings.preset, corpus=corpus_label)


def train_default_model(directory: str | os.PathLike, progress: Progress | None = None) -> ModelRef:
    """The first-launch model: the ``toy`` preset on the built-in corpus, saved as ``toy``."""
    settings = TrainingSettings.for_preset(DEFAULT_PRESET)
    return train_and_save(builtin_corpus(), settings, directory, DEFAULT_MODEL_NAME, BUILT_IN, progress, overwrite=True)


class BackgroundTraining(BackgroundJob):
    """The first-launch training (``train_default_model``) in a background thread, shared by every session of the
    app process (see ``BackgroundJob``); ``ref`` is the saved model once done, ``history`` the epochs so far."""

    def __init__(self, directory: str | os.PathLike):
        self.directory = directory
        self.settings = TrainingSettings.for_preset(DEFAULT_PRESET)
        self.history = LiveHistory(self.settings.epochs)
        super().__init__(lambda: train_default_model(directory, progress=self.history), "elmo-keras-first-launch")

    @property
    def ref(self) -> ModelRef | None:
        """The saved model's ``ModelRef`` once the job has succeeded, else None."""
        return self.result

    @property
    def fraction(self) -> float:
        """Share of the epochs finished, for the progress bar."""
        return self.history.fraction

    def status(self) -> str:
        """One line for the progress bar."""
        if not self.history.logs:
            return "Building the model (the first epoch also compiles the training step)…"
        last = self.history.logs[-1]
        return epoch_status(last["epoch"], self.settings.epochs, last)


# the frame's first launch: it looks for any saved biLM itself and loads the active one with a fallback
FIRST_LAUNCH = FirstUseModels("first_launch", "first model", start=BackgroundTraining)
