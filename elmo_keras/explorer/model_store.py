"""Trained biLMs on disk: where they live, which ones exist, loading and saving them under a name.

A models directory holds one sub-directory per model (``load_bilm``'s layout: ``model.keras``,
``vocabulary.json``, ``training.json``). It is ``$ELMO_KERAS_MODELS_DIR`` if set, else
``$XDG_CACHE_HOME/elmo_keras/models``, else ``~/.cache/elmo_keras/models``.

A model is named by its directory. ``ModelRef`` (directory, name, modification time of ``model.keras``) is
hashable and changes when a model is saved again, so the app caches loaded models and derived data by it.

A name is **reserved** while a model is trained and saved under it (``reserve_model_name``): an exclusive ``flock``
on the hidden ``.NAME.lock`` beside the models (``explorer.name_lock``), held from the name check to the end of the
save, so a second session asking for the same new name is refused at once, before it trains; an overwriting save
waits for it (see ``save_model``). The kernel releases the lock when its process dies, so no reservation outlives
its session; the file is deleted when the lock is released. Hidden entries (the lock, a save's staging directory)
are never listed.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import pathlib
import re
import shutil
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from elmo_keras.explorer.name_lock import hold_name_lock
from elmo_keras.models.bilm.presets import PRESETS, BiLMConfig
from elmo_keras.models.directory_files import MODEL_FILE, SUMMARY_FILE, VOCABULARY_FILE
from elmo_keras.safe_files import user_cache_directory
from elmo_keras.text.vocabulary import Vocabulary

MODELS_DIR_ENV = "ELMO_KERAS_MODELS_DIR"
DEFAULT_MODEL_NAME = "toy"
DEFAULT_PRESET = "toy"
TRANSFORMER_MODEL_NAME = "transformer-toy"  # the default transformer biLM (explorer.contextualizers)
SEQ2SEQ_DIR_NAME = "seq2seq-toy"  # the decoding page's model lives beside the biLMs under this reserved name
TAGGER_DIR_NAME, TAGLM_DIR_NAME = "tagger-toy", "taglm-toy"  # the tagging page's models, reserved too
CLASSIFIERS_DIR_NAME = "classifiers-toy"  # the classification page's CNN and RNN classifiers
DIALOGUE_DIR_NAME = "dialogue-toy"  # the dialogue page's HRED and VHRED
GRADIENTS_DIR_NAME = "gradients-toy"  # the gradients page's vanilla RNN and LSTM and their measurements
RESERVED_NAMES = frozenset({SEQ2SEQ_DIR_NAME, TAGGER_DIR_NAME, TAGLM_DIR_NAME, CLASSIFIERS_DIR_NAME, DIALOGUE_DIR_NAME,
                            GRADIENTS_DIR_NAME})
MAX_NAME_LENGTH = 64
_NAME_PATTERN = re.compile(r"[A-Za-z0-9_-]+")
_TRAINING_FIELDS = ("epochs", "batch_size", "learning_rate", "training_precision", "max_sentence_tokens", "optimizer")


def models_directory(environ: Mapping[str, str] | None = None) -> pathlib.Path:
    """The models directory (not created here); see the module docstring for the order of look-up."""
    environ = os.environ if environ is None else environ
    if environ.get(MODELS_DIR_ENV):
        return pathlib.Path(environ[MODELS_DIR_ENV]).expanduser()
    return user_cache_directory(environ) / "models"


@dataclass(frozen=True)
class ModelRef:
    """A saved model: its directory, name and the ``mtime_ns`` of its ``model.keras`` (the cache key)."""

    directory: str
    name: str
    stamp: int

    @property
    def path(self) -> pathlib.Path:
        """The model's directory, ``directory/name``."""
        return pathlib.Path(self.directory) / self.name

    @classmethod
    def of(cls, directory: str | os.PathLike, name: str) -> "ModelRef":
        """The ref of the model saved as ``directory/name`` now (its ``model.keras`` must exist)."""
        return cls(str(pathlib.Path(directory)), name, (pathlib.Path(directory) / name / MODEL_FILE).stat().st_mtime_ns)


@dataclass(frozen=True)
class ModelInfo:
    """What the sidebar shows about a saved model (read from ``training.json``, without loading weights)."""

    ref: ModelRef
    preset: str
    token_input: str
    corpus: str
    num_sentences: int | None
    num_tokens: int | None
    vocab_size: int | None
    epochs: int | None
    train_perplexity: tuple[float, float] | None  # (forward, backward)
    heldout_perplexity: tuple[float, float] | None
    contextualizer: str = "lstm"  # BiLMConfig.contextualizer (an LSTM's config leaves it out)

    @property
    def name(self) -> str:
        return self.ref.name


def preset_of(config: Mapping | None) -> str:
    """The preset a saved config was built from (training fields ignored), or ``"custom"``."""
    if not config:
        return "unknown"
    try:
        saved = BiLMConfig.from_dict(dict(config))
    except (TypeError, ValueError):
        return "custom"
    defaults = {field: getattr(BiLMConfig(), field) for field in _TRAINING_FIELDS}
    for name, preset in PRESETS.items():
        if saved.replace(**defaults) == preset.replace(**defaults):
            return name
    return "custom"


def _perplexity_pair(entry) -> tuple[float, float] | None:
    if not isinstance(entry, Mapping) or "forward_perplexity" not in entry:
        return None
    return float(entry["forward_perplexity"]), float(entry["backward_perplexity"])


def _is_bilm_dir(path: pathlib.Path) -> bool:
    return all((path / name).is_file() for name in (MODEL_FILE, VOCABULARY_FILE, SUMMARY_FILE))


def read_info(path: pathlib.Path) -> ModelInfo | None:
    """``ModelInfo`` for a model directory, or None if it is not a biLM saved by elmo_keras."""
    path = pathlib.Path(path)
    if not _is_bilm_dir(path):
        return None
    try:
        summary = json.loads((path / SUMMARY_FILE).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    config = summary.get("config") or {}
    if not isinstance(summary, dict) or not {"token_input", "encoder"} & set(config):  # a seq2seq model, ...
        return None
    try:
        ref = ModelRef.of(path.parent, path.name)
    except OSError:  # replaced or deleted meanwhile (another session saving it)
        return None
    return ModelInfo(
        ref=ref,
        preset=str(summary.get("preset") or preset_of(config)),
        token_input=str(config.get("token_input", config.get("encoder", "?"))),  # "encoder": token_input's other name
        corpus=str(summary.get("corpus") or "unknown corpus"),
        num_sentences=summary.get("num_sentences"),
        num_tokens=summary.get("num_tokens"),
        vocab_size=summary.get("vocab_size"),
        epochs=config.get("epochs"),
        train_perplexity=_perplexity_pair(summary.get("train")),
        heldout_perplexity=_perplexity_pair(summary.get("heldout")),
        contextualizer=str(config.get("contextualizer", "lstm")),
    )


def list_models(directory: str | os.PathLike) -> list[ModelInfo]:
    """Every biLM saved in ``directory``, by name (an absent directory holds none). Hidden entries are skipped: a
    save's staging directory or the previous model it replaces (``.NAME.saving-…``), a reservation's lock."""
    directory = pathlib.Path(directory)
    if not directory.is_dir():
        return []
    infos = (read_info(child) for child in sorted(directory.iterdir())
             if not child.name.startswith(".") and child.is_dir())
    return [info for info in infos if info is not None]


def find_model(directory: str | os.PathLike, name: str | None) -> ModelInfo | None:
    """The saved model called ``name``, or None."""
    if not name:
        return None
    return read_info(pathlib.Path(directory) / name)


def validate_model_name(name: str, directory: str | os.PathLike | None = None, overwrite: bool = False) -> str:
    """``name`` stripped, if it can name a new model; else a ``ValueError`` saying why.

    A name is 1–64 letters, digits, ``-`` or ``_``, not a reserved name; it must not exist in ``directory``
    unless ``overwrite``.

    Args:
        name: the name typed.
        directory: the models directory to check for an existing model. Defaults to None (no check).
        overwrite: bool, allow an existing name. Defaults to False.
    """
    name = (name or "").strip()
    if not name:
        raise ValueError("Give the model a name (letters, digits, - and _).")
    if len(name) > MAX_NAME_LENGTH:
        raise ValueError(f"The name is {len(name)} characters long; use at most {MAX_NAME_LENGTH}.")
    if not _NAME_PATTERN.fullmatch(name):
        bad = sorted({c for c in name if not _NAME_PATTERN.fullmatch(c)})
        raise ValueError(f"The name {name!r} contains {' '.join(repr(c) for c in bad)}: "
                         "use only letters, digits, - and _.")
    if name in RESERVED_NAMES:
        raise ValueError(f"The name {name!r} is reserved for one of the explorer pages' models; "
                         "choose another one.")
    if directory is not None and (pathlib.Path(directory) / name).exists() and not overwrite:
        raise ValueError(f"A model called {name!r} already exists; choose another name or tick 'overwrite'.")
    return name


def check_page_directory(directory: str | os.PathLike, own_entries) -> None:
    """Refuse to replace or delete a page's reserved ``directory`` when it holds anything the page did not write.

    The names in ``RESERVED_NAMES`` were free before their pages existed, so a user's model may live under one.

    Args:
        directory: the page's directory (e.g. ``<models dir>/classifiers-toy``); nothing to check if absent.
        own_entries: the names the page writes there.

    Raises:
        ValueError: the directory holds other entries; the message names them and says how to fix it.
    """
    directory = pathlib.Path(directory)
    foreign = sorted(path.name for path in directory.iterdir()  # hidden entries: our own temporary files
                     if path.name not in own_entries and not path.name.startswith(".")) \
        if directory.is_dir() else []
    if foreign:
        raise ValueError(f"{directory} holds {', '.join(foreign)}, which the explorer did not write there, so it will "
                         f"neither replace nor delete it. The name {directory.name!r} is reserved for a page's "
                         "models: rename that directory (e.g. to keep a model you saved under that name) and "
                         "reload the page.")


def discard_page_directories(directories: Mapping[str | os.PathLike, Iterable[str]]) -> None:
    """Delete a page's reserved directories (``{directory: the names the page writes there}``), each checked first.

    Raises:
        ValueError: as ``check_page_directory``, before anything is deleted.
    """
    for directory, own_entries in directories.items():
        check_page_directory(directory, tuple(own_entries))
    for directory in directories:
        shutil.rmtree(directory, ignore_errors=True)


def load_model(ref: ModelRef):
    """Load the ``BiLanguageModel`` ``ref`` points at (errors from ``load_bilm`` name the bad file)."""
    # here: Keras loads with the first model (listing models and reading stored results need none)
    from elmo_keras.models.bilm.directory import load_bilm

    return load_bilm(ref.path)


def saved_vocabulary(ref: ModelRef) -> Vocabulary | None:
    """The vocabulary saved with ``ref``'s model, read without loading the model; None when it cannot be read
    (loading the model then says why)."""
    try:
        return Vocabulary.load(ref.path / VOCABULARY_FILE)
    except (ValueError, OSError):
        return None


LOAD_ERRORS = (ValueError, OSError)  # what load_bilm raises for a broken model directory (the message names the file)


@dataclass(frozen=True)
class LoadedModel:
    """The model a page shows: ``ref`` and ``model``, and the models that failed to load before it, as
    ``(name, message)`` pairs (empty when the requested model loaded)."""

    ref: ModelRef
    model: object
    failures: tuple[tuple[str, str], ...] = ()


def load_with_fallback(requested: ModelRef, candidates: Iterable[ModelRef], load=load_model) -> LoadedModel:
    """Load ``requested``; if it fails, the first of ``candidates`` that loads.

    Args:
        candidates: iterated only if ``requested`` fails (a generator defers listing the models directory).
        load: the loader (the app passes its cached ``load_model``).

    Raises:
        ModelsUnloadableError: neither ``requested`` nor any candidate loads (the message lists each error).
    """
    failures = []
    for ref in itertools.chain([requested], (c for c in candidates if c != requested)):
        try:
            return LoadedModel(ref, load(ref), tuple(failures))
        except LOAD_ERRORS as error:
            failures.append((ref.name, " ".join(str(error).split())))
    raise ModelsUnloadableError(failures)


class ModelsUnloadableError(ValueError):
    """No saved biLM could be loaded; ``failures`` holds ``(name, message)`` for each."""

    def __init__(self, failures):
        self.failures = tuple(failures)
        super().__init__("no saved model can be loaded: "
                         + "; ".join(f"{name}: {message}" for name, message in failures))


def save_model(model, directory: str | os.PathLike, name: str, preset: str | None = None,
               corpus: str | None = None, overwrite: bool = True) -> ModelRef:
    """Save ``model`` as ``directory/name`` (the preset and corpus description go into ``training.json``).

    The name is reserved for the save (``reserve_model_name``): an overwriting save waits while another session
    trains or saves that name, then replaces its model; a save that must not overwrite is refused then.

    Args:
        model: a trained ``BiLanguageModel``.
        directory: the models directory.
        name: the model's name (``validate_model_name``).
        preset, corpus: str, recorded for the sidebar. Default to None (not recorded).
        overwrite: bool, replace a model of the same name. Defaults to True.

    Returns:
        The saved model's ``ModelRef``.

    Raises:
        ValueError: a bad or taken name (``validate_model_name``, ``reserve_model_name``); saving errors as
            ``save_model_dir``.
    """
    with reserve_model_name(directory, name, overwrite=overwrite, wait=overwrite) as reservation:
        return reservation.save(model, preset=preset, corpus=corpus)


@dataclass(frozen=True)
class NameReservation:
    """A model name held by this session (``reserve_model_name``); ``save`` writes the model under it."""

    directory: pathlib.Path
    name: str

    def save(self, model, preset: str | None = None, corpus: str | None = None) -> ModelRef:
        """Save ``model`` as ``directory/name`` in one step, while the name is held (as ``save_model``)."""
        summary = dict(model.training_summary or {})
        if preset is not None:
            summary["preset"] = preset
        if corpus is not None:
            summary["corpus"] = corpus
        model.training_summary = summary
        # here: Keras loads with the first model (listing models and reading stored results need none)
        from elmo_keras.models.persistence import save_model_dir

        save_model_dir(model, self.directory / self.name)
        return ModelRef.of(self.directory, self.name)


@contextlib.contextmanager
def reserve_model_name(directory: str | os.PathLike, name: str, overwrite: bool = False,
                       wait: bool = False) -> Iterator[NameReservation]:
    """Hold ``name`` in ``directory`` (created if absent) for one training and save, until the block is left
    (see the module docstring). A model of that name may exist only if ``overwrite`` (checked once held); while
    another session holds the name, ``wait`` waits for it, else the name is refused.

    Raises:
        ValueError: a bad name, a model of that name exists, or another session holds it (the message names it).
    """
    name = validate_model_name(name)
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    release = hold_name_lock(directory / f".{name}.lock", wait, name)
    try:
        validate_model_name(name, directory, overwrite=overwrite)
        yield NameReservation(directory, name)
    finally:
        release()


def training_history(ref: ModelRef) -> dict:
    """The per-epoch Keras history saved in the model's ``training.json`` (``{}`` if there is none)."""
    try:
        summary = json.loads((ref.path / SUMMARY_FILE).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    history = summary.get("history") if isinstance(summary, dict) else None
    return history if isinstance(history, dict) else {}
