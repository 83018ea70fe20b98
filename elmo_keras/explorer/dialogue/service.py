"""The Dialogue page's service: the toy HRED and VHRED on disk, and their replies to one dialogue context.

``train_default_dialogue_models`` trains both on the shipped toy dialogues (``elmo_keras.data.dialogue``) at the
small sizes below and saves them under ``DIALOGUE_DIR_NAME/hred`` and ``DIALOGUE_DIR_NAME/vhred`` in the models
directory; ``DialogueTraining`` runs that in a background thread on a first visit. ``respond`` is the page's
one call: HRED's greedy and beam replies beside VHRED's replies for several seeded ``z ~ p(z | c)``, with their
log-probabilities and each column's distinct-1/2. ``kl_history`` and the ``experiment_*`` functions give the KL
curves and the shipped experiment's table.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from elmo_keras.data.dialogue import TURN_SEPARATOR, dialogue_references, split_turns
from elmo_keras.data.packaged_results import packaged_results
from elmo_keras.explorer.background import StepwiseTraining
from elmo_keras.explorer.first_use import FirstUseModels
from elmo_keras.explorer.model_store import DIALOGUE_DIR_NAME, check_page_directory, discard_page_directories
from elmo_keras.explorer.shipped_models import install_shipped_model
from elmo_keras.models.dialogue import (
    beam_responses,
    diversity,
    encode_history,
    greedy_response,
    latent_responses,
    load_dialogue_model,
    save_dialogue_model,
    train_dialogue_model,
)
from elmo_keras.models.directory_files import MODEL_FILE, VOCABULARY_FILE

KINDS = ("hred", "vhred")
# first-visit training, kept short: most of its time is TensorFlow building the two training graphs, not the epochs
PAGE_TRAINING = {"epochs": 12, "batch_size": 64, "learning_rate": 2e-2}
PAGE_VHRED = {"kl_annealing_steps": 60, "word_dropout": 0.3}
# the shipped models (tools/build_shipped_models.py): the experiment's training, VHRED as its best z-sampling run
SHIPPED_DIALOGUE_TRAINING = {"epochs": 40, "batch_size": 32, "learning_rate": 1e-2, "kl_annealing_steps": 0,
                             "word_dropout": 0.0}
EXPERIMENTS_FILE = "dialogue_experiments.json"
MAX_TURNS, MAX_TURN_WORDS = 6, 20
Progress = Callable[[int, str], None]  # (finished models, what runs now)


@dataclass(frozen=True)
class DialogueView:
    """What the page shows for one context.

    Attributes:
        turns: the history turns as strings.
        unknown_words: words not in the vocabulary (read as ``<unk>``).
        references: the corpus's replies to this context ([] for a typed one).
        hred: reply, log_prob, strategy (greedy, then the beam's hypotheses best first).
        vhred: sample (z number), reply, log_prob (the reply's log-probability given that z).
        diversity: one row per column (HRED beam, VHRED z samples): distinct_1, distinct_2, unique replies, and
            valid / coverage against ``references`` when the context is from the corpus.
    """

    turns: list
    unknown_words: list
    references: list
    hred: pd.DataFrame
    vhred: pd.DataFrame
    diversity: pd.DataFrame


def dialogue_dir(models_dir: str | os.PathLike) -> pathlib.Path:
    """Where the page's two models live: ``models_dir / DIALOGUE_DIR_NAME``."""
    return pathlib.Path(models_dir) / DIALOGUE_DIR_NAME


def dialogue_model_paths(models_dir: str | os.PathLike) -> tuple[pathlib.Path, pathlib.Path] | None:
    """``(hred, vhred)`` model directories when both are saved, else None."""
    paths = tuple(dialogue_dir(models_dir) / kind for kind in KINDS)
    if all((p / MODEL_FILE).is_file() and (p / VOCABULARY_FILE).is_file() for p in paths):
        return paths
    return None


def saved_version(models_dir: str | os.PathLike) -> tuple[int, ...]:
    """The saved models' modification times (ns): a key for caches that must see a retrained or reinstalled pair."""
    paths = dialogue_model_paths(models_dir) or ()
    return tuple((path / MODEL_FILE).stat().st_mtime_ns for path in paths)


def ready_dialogue_paths(models_dir: str | os.PathLike) -> tuple[pathlib.Path, pathlib.Path] | None:
    """``dialogue_model_paths`` after installing the shipped models (``tools/build_shipped_models.py``: trained
    with the experiment's settings) where the models directory has none; None only where the package ships none
    either (then ``train_default_dialogue_models``)."""
    install_shipped_model(models_dir, DIALOGUE_DIR_NAME)
    return dialogue_model_paths(models_dir)


def ready_dialogue_version(models_dir: str | os.PathLike) -> tuple[str, tuple[int, ...]] | None:
    """``(models_dir, saved_version)`` once ``ready_dialogue_paths`` finds the pair, else None: the handle the page
    loads and caches by (``DIALOGUE_MODELS``)."""
    return None if ready_dialogue_paths(models_dir) is None else (str(models_dir), saved_version(models_dir))


def train_default_dialogue_models(models_dir: str | os.PathLike, progress: Progress | None = None, seed: int = 0,
                                  **overrides) -> tuple[pathlib.Path, pathlib.Path]:
    """Train the page's HRED, then its VHRED (``PAGE_TRAINING``, VHRED with ``PAGE_VHRED``), and save both.

    Args:
        models_dir: the models directory.
        progress: called as ``progress(finished models, what runs now)`` before each and at the end.
        seed: int, the training seed. Defaults to 0.
        **overrides: ``DialogueConfig`` fields for both (``epochs=1`` in tests).

    Returns:
        ``(hred, vhred)`` model directories.
    """
    check_page_directory(dialogue_dir(models_dir), KINDS)
    for step, kind in enumerate(KINDS):
        if progress is not None:
            progress(step, kind.upper())
        settings = {**PAGE_TRAINING, **(PAGE_VHRED if kind == "vhred" else {}), **overrides}
        save_dialogue_model(train_dialogue_model(kind, seed=seed, **settings), dialogue_dir(models_dir) / kind)
    if progress is not None:
        progress(len(KINDS), "done")
    return dialogue_model_paths(models_dir)


class DialogueTraining(StepwiseTraining):
    """``train_default_dialogue_models`` in a background thread (see ``StepwiseTraining``); ``result`` holds the two
    model directories."""

    def __init__(self, models_dir: str | os.PathLike, **settings):
        super().__init__(lambda progress: train_default_dialogue_models(models_dir, progress=progress, **settings),
                         [f"training the toy {kind.upper()}" for kind in KINDS], "elmo-keras-dialogue",
                         "Saving the dialogue models…")


def load_dialogue_models(models_dir: str | os.PathLike):
    """``(hred, vhred)`` loaded from the models directory.

    Raises:
        FileNotFoundError, ValueError: a model is missing or corrupted (as ``load_dialogue_model``, naming the file).
    """
    return tuple(load_dialogue_model(dialogue_dir(models_dir) / kind, kind=kind) for kind in KINDS)


def discard_dialogue_models(models_dir: str | os.PathLike) -> None:
    """Remove the page's saved models (a broken save), so the next visit trains them again."""
    discard_page_directories({dialogue_dir(models_dir): KINDS})


DIALOGUE_MODELS = FirstUseModels("dialogue", "dialogue models", start=DialogueTraining, ready=ready_dialogue_version,
                                 load=lambda handle: load_dialogue_models(handle[0]), discard=discard_dialogue_models)


def example_contexts() -> list[str]:
    """The held-out contexts (neither model saw them), turns joined by ``" | "``, longest histories first (those
    are where the topic sits two turns back)."""
    contexts = list(dialogue_references("heldout"))
    return sorted(contexts, key=lambda c: -c.count(TURN_SEPARATOR))


def context_turns(text: str) -> list[list[str]]:
    """A typed context (turns separated by ``|`` or one per line) as word lists.

    Raises:
        ValueError: no turn, or a turn / a dialogue over the page's limits.
    """
    turns = split_turns(text or "")
    if not turns:
        raise ValueError("Type a dialogue history: one or more turns, separated by “|” or one per line.")
    if len(turns) > MAX_TURNS:
        raise ValueError(f"The history has {len(turns)} turns; the limit is {MAX_TURNS}.")
    for index, words in enumerate(turns, start=1):
        if len(words) > MAX_TURN_WORDS:
            raise ValueError(f"Turn {index} has {len(words)} words; the limit is {MAX_TURN_WORDS}.")
    return [[word.lower() for word in words] for words in turns]


def respond(hred, vhred, text: str, num_samples: int = 5, beam_size: int = 3, seed: int = 0) -> DialogueView:
    """HRED's and VHRED's replies to the context ``text`` (see ``DialogueView``).

    Args:
        hred, vhred: the page's models (same vocabulary).
        text: the history, turns separated by ``|`` or newlines.
        num_samples: int, VHRED's ``z`` draws. Defaults to 5.
        beam_size: int, HRED's beam. Defaults to 3.
        seed: int, seeds the ``z`` draws. Defaults to 0.

    Raises:
        ValueError: as ``context_turns``.
    """
    turns = context_turns(text)
    history, unknown = encode_history(turns, hred.vocabulary)
    key = f" {TURN_SEPARATOR} ".join(" ".join(t) for t in turns)
    references = dialogue_references("all").get(key, [])
    greedy = greedy_response(hred, history)
    beam = beam_responses(hred, history, beam_size)
    hred_rows = [("greedy", greedy.text, greedy.log_prob)] + [(f"beam #{i}", r.text, r.log_prob)
                                                               for i, r in enumerate(beam, start=1)]
    samples = latent_responses(vhred, history, num_samples, seed)
    vhred_rows = [(i, r.text, r.log_prob) for i, r in enumerate(samples, start=1)]
    refs = references or None
    scores = pd.DataFrame([
        {"column": f"HRED beam (k={beam_size})", **diversity([r.text for r in beam], refs)},
        {"column": f"VHRED, {num_samples} z samples", **diversity([r.text for r in samples], refs)},
    ])
    return DialogueView(
        turns=[" ".join(t) for t in turns], unknown_words=unknown, references=references,
        hred=pd.DataFrame(hred_rows, columns=["strategy", "reply", "log_prob"]),
        vhred=pd.DataFrame(vhred_rows, columns=["z sample", "reply", "log_prob"]),
        diversity=scores,
    )


def kl_history(vhred) -> pd.DataFrame:
    """The VHRED's training curves per epoch: epoch, kl_per_token, kl_weight, reconstruction_per_token."""
    history = (vhred.training_summary or {}).get("history", {})
    columns = ["kl_per_token", "kl_weight", "reconstruction_per_token"]
    frame = pd.DataFrame({c: history.get(c, []) for c in columns})
    return frame.assign(epoch=range(1, len(frame) + 1))[["epoch", *columns]]


def shipped_experiments() -> dict | None:
    """``dialogue_experiments.json`` (written by ``tools/run_dialogue_experiments.py``), or None if absent."""
    return packaged_results(EXPERIMENTS_FILE)


def experiment_table(results: dict) -> pd.DataFrame:
    """One row per method: ``metric`` columns as ``mean ± std`` strings (held-out NLL / ELBO, diversity); "–" where
    a metric does not apply to the method (an NLL for VHRED's bound, an ELBO for HRED)."""
    rows = []
    for method, metrics in results["summary"].items():
        row = {"method": method}
        for name, stats in metrics.items():
            row[name] = f"{stats['mean']:.3f} ± {stats['std']:.3f}"
        rows.append(row)
    return pd.DataFrame(rows).fillna("–")


def experiment_kl_curves(results: dict) -> pd.DataFrame:
    """The experiment's KL-per-token curves: epoch, run (with / without annealing), mean and std over seeds."""
    rows = []
    for run, curve in results["kl_curves"].items():
        for epoch, (mean, std) in enumerate(zip(curve["mean"], curve["std"]), start=1):
            rows.append({"epoch": epoch, "run": run, "kl_per_token": mean, "std": std})
    return pd.DataFrame(rows)
