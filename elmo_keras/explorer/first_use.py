"""The models a page trains on first use: one description per page, one background job per page and models directory,
and loading that reports a damaged file in words the page can show.

A page that needs trained models declares them once with ``page_models``: its name, how to train them
(``train(models_dir, progress, **settings)`` and the steps it reports), how to find (``saved``) and load them, the
directories it owns and the shipped copies to install; the mechanism makes the ``FirstUseModels`` of it. ``ready``
installs the shipped models
where the models directory lacks them and returns a handle of the saved ones (hashable, changing whenever they are
saved again: the pages cache by it), or None while they still have to be trained; ``start`` starts that training as
a ``BackgroundJob`` with ``fraction`` and ``status()`` (``background.StepwiseTraining``); ``load`` loads the handle;
``discard`` deletes the page's own files (never a user's: ``model_store.discard_page_directories``).

``training_job`` keeps one job per page and models directory in this process, so every session watches the same
training and a click or a second tab never starts another. A job that finished without error and is asked for again
is stale (its models were deleted or discarded since): a new one starts. A failed job stays until the page that
reports its error forgets it (``forget_job``); the next visit then trains again. Nothing here imports Streamlit or
Keras (``page_common`` draws the progress bar and the error box).
"""

from __future__ import annotations

import os
import pathlib
import threading
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass

from elmo_keras.explorer.background import BackgroundJob, StepwiseTraining
from elmo_keras.explorer.model_store import LOAD_ERRORS, discard_page_directories
from elmo_keras.explorer.shipped_models import install_shipped_model


@dataclass(frozen=True, eq=False)
class FirstUseModels:
    """What a page needs to get its trained models (see the module docstring).

    Attributes:
        name: str, the page's name: the job's key and the prefix of the page's widget keys (``{name}_retrain``).
        what: str, the models in a sentence (``"classifiers"``: "Training the classifiers failed").
        start: ``start(models_dir)``, a started ``BackgroundJob`` that trains and saves them.
        ready: ``ready(models_dir)``, the handle of the saved models or None (installs the shipped ones first).
            None for the frame's first launch, which looks for any biLM itself.
        load: ``load(handle)``, the loaded models; raises ``LOAD_ERRORS`` naming the bad file.
        discard: ``discard(models_dir)``, delete the page's saved models; raises ``ValueError`` (saying why and
            what to do) when their directory holds files the page did not write.
    """

    name: str
    what: str
    start: Callable[[str], BackgroundJob]
    ready: Callable[[str], Hashable | None] | None = None
    load: Callable[[Hashable], object] | None = None
    discard: Callable[[str], None] | None = None


def page_models(name: str, what: str, *, train: Callable[..., object] | None = None, steps: Sequence[str] = (),
                job_name: str = "", done_message: str = "Saving the models…",
                start: Callable[..., BackgroundJob] | None = None, saved: Callable[[str], Hashable | None],
                load: Callable[[Hashable], object], directories: Mapping[str, Collection[str]],
                shipped: Sequence[str] = ()) -> FirstUseModels:
    """A page's first-use models, declared once: the mechanism makes ``start``, ``ready`` and ``discard`` of it.

    Args:
        name, what: as ``FirstUseModels``.
        train: ``train(models_dir, progress=progress, **settings)``, training and saving the models, calling
            ``progress(finished steps, what runs now)`` before each step and once at the end; ``start(models_dir,
            **settings)`` runs it as a ``StepwiseTraining`` named ``job_name``, whose bar shows ``steps`` and then
            ``done_message``. Defaults to None (``start`` given instead).
        steps, job_name, done_message: the ``StepwiseTraining``'s.
        start: ``start(models_dir, **settings)``, a started ``BackgroundJob`` of the page's own (the seq2seq's bar
            counts epochs), instead of ``train``. Defaults to None.
        saved: ``saved(models_dir)``, the handle of the saved models, or None while any is missing.
        load: as ``FirstUseModels`` (``load(handle)``).
        directories: ``{directory in models_dir: the entries the page writes there}``: what ``discard`` deletes
            (``model_store.discard_page_directories``, refused where a directory holds anything else).
        shipped: the names ``ready`` installs from the package where the models directory lacks them
            (``shipped_models.install_shipped_model``), before asking ``saved``. Defaults to none.

    Returns:
        The page's ``FirstUseModels``.
    """
    if start is None:
        def start(models_dir: str | os.PathLike, **settings) -> BackgroundJob:
            return StepwiseTraining(lambda progress: train(models_dir, progress=progress, **settings), steps,
                                    job_name, done_message)

    def ready(models_dir: str | os.PathLike) -> Hashable | None:
        for shipped_name in shipped:
            install_shipped_model(models_dir, shipped_name)
        return saved(models_dir)

    def discard(models_dir: str | os.PathLike) -> None:
        discard_page_directories({pathlib.Path(models_dir) / directory: entries
                                  for directory, entries in directories.items()})

    return FirstUseModels(name, what, start=start, ready=ready, load=load, discard=discard)


class DamagedModelsError(ValueError):
    """The saved models of a page cannot be loaded; the message names the bad file and the way out."""


_jobs: dict[tuple[str, str], BackgroundJob] = {}
_jobs_lock = threading.Lock()


def _key(spec: FirstUseModels, models_dir: str | os.PathLike) -> tuple[str, str]:
    return spec.name, os.path.abspath(models_dir)


def training_job(spec: FirstUseModels, models_dir: str | os.PathLike) -> BackgroundJob:
    """The job training ``spec``'s models into ``models_dir``: the one running (or failed and not yet forgotten),
    else a new one. A job that succeeded is stale when asked for again (the page asks only while its models are
    missing), so it is replaced."""
    key = _key(spec, models_dir)
    with _jobs_lock:
        job = _jobs.get(key)
        if job is None or (job.done and job.error is None):
            job = _jobs[key] = spec.start(str(models_dir))
        return job


def forget_job(spec: FirstUseModels, models_dir: str | os.PathLike, job: BackgroundJob) -> None:
    """Drop ``job`` (a failed one, once reported) so that the next ``training_job`` starts again; a newer job that
    another session started meanwhile is kept."""
    key = _key(spec, models_dir)
    with _jobs_lock:
        if _jobs.get(key) is job:
            del _jobs[key]


def load_models(spec: FirstUseModels, handle: Hashable):
    """``spec.load(handle)``; a missing or damaged file raises ``DamagedModelsError`` with the loader's message
    (which names the file)."""
    try:
        return spec.load(handle)
    except LOAD_ERRORS as error:
        raise DamagedModelsError(f"The saved {spec.what} cannot be loaded: {error}") from error


def discard_advice(models_dir: str | os.PathLike) -> str:
    """How to get working models again, below the error (the button's effect, and the manual way)."""
    return (f"**Delete them and start again** removes only the files this page wrote in `{models_dir}` (it refuses "
            "where a directory holds anything else), then installs the shipped copies again or, where the package "
            "ships none, trains new ones. Or restore the files you changed.")
