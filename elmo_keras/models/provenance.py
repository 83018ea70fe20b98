"""``provenance``: which code made a shipped experiment file (``elmo_keras/data/*_experiments.json``).

Every ``tools/run_*_experiments.py`` stores ``experiment_provenance()`` under the file's ``"provenance"`` key::

    {"package_version": "0.1.0", "optimizer": "DenseGradientAdam", "backend": "tensorflow 2.21.0",
     "code_fingerprint": "5d0c2f1a9b3e", "made_on": "2026-12-02", "git_commit": "35033c1…" or None,
     "git_dirty": False or None, "machine": "AMD EPYC 7B13"}

``optimizer`` is the class of the optimizer the experiment's models trained with; ``code_fingerprint`` hashes the
shared trainer skeleton (``TRAINING_CODE``) without its docstrings, comments or layout, so only a change to what
the code does changes it. A file made before provenance was recorded has none (or ``"provenance": null``).

How a stale file shows: ``tests/project/backend_independent/test_experiment_provenance.py`` fails when a file lacks
the record or a field,
``tests/models/test_experiment_optimizers.py`` when a recorded optimizer is not the one the experiment trains with
today;
``provenance_caption`` (under the tables on the pages) names the version, optimizer, backend and date, and says so
when the trainer skeleton's code has changed since (``code_changed``): that is not a test failure, since any
refactor of the skeleton changes it.

Importing this module does not load Keras; ``experiment_provenance`` and ``trainer_optimizer`` do.
"""

from __future__ import annotations

import ast
import contextlib
import datetime
import hashlib
import inspect
import pathlib
import platform
import subprocess

from elmo_keras import __version__

PACKAGE = pathlib.Path(__file__).resolve().parents[1]
# the trainer skeleton every trainer compiles and fits through, and its optimizer
TRAINING_CODE = ("models/fitting.py", "models/optimizer.py")
FIELDS = ("package_version", "optimizer", "backend", "code_fingerprint", "made_on", "git_commit", "git_dirty",
          "machine")


def trainer_optimizer() -> str:
    """The class name of the optimizer ``models.fitting.compile_for_training`` builds by default
    (``"DenseGradientAdam"``): what every trainer on the shared skeleton trains with."""
    from elmo_keras.models.fitting import compile_for_training  # here: loads Keras, which importing this must not
    from elmo_keras.models.optimizer import make_optimizer  # here: loads Keras, which importing this must not

    default = inspect.signature(compile_for_training).parameters["optimizer"].default
    return type(make_optimizer(default, 1e-3)).__name__


def experiment_provenance(optimizer: str | None = None) -> dict:
    """The ``"provenance"`` entry of an experiment file made now, in this checkout (the fields of ``FIELDS``).

    Args:
        optimizer: the class name of the optimizer the experiment's models trained with
            (``type(model.optimizer).__name__``). Defaults to None (``trainer_optimizer()``).

    Raises:
        ValueError: ``optimizer`` is not a class name.
    """
    if optimizer is not None and not (isinstance(optimizer, str) and optimizer.isidentifier()):
        raise ValueError("optimizer must be the class name of the optimizer the models trained with "
                         f"(type(model.optimizer).__name__), received {optimizer!r}")
    from elmo_keras._backend import engine_version  # here: loads Keras and the backend in use

    commit, dirty = git_state()
    return {"package_version": __version__, "optimizer": optimizer or trainer_optimizer(),
            "backend": engine_version(), "code_fingerprint": code_fingerprint(),
            "made_on": datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
            "git_commit": commit, "git_dirty": dirty, "machine": cpu_name()}


def code_fingerprint(files=TRAINING_CODE) -> str:
    """12 hex digits of the SHA-256 of ``files``' syntax trees (relative to the package), docstrings left out: a
    comment, a reflowed line or a docstring edit leaves it as it is; a change to what the code does changes it."""
    digest = hashlib.sha256()
    for name in files:
        tree = ast.parse((PACKAGE / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                    and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)):
                node.body = body[1:] or [ast.Pass()]
        digest.update(str(name).encode() + b"\0" + ast.dump(tree).encode() + b"\0")
    return digest.hexdigest()[:12]


def git_state() -> tuple[str | None, bool | None]:
    """``(HEAD commit, whether tracked files differ from it)`` of the git checkout the package lives in; ``(None,
    None)`` for an installed package (or without git)."""
    root = PACKAGE.parent
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        def git(*args: str) -> str:
            return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True,
                                  timeout=30).stdout.strip()

        if pathlib.Path(git("rev-parse", "--show-toplevel")).resolve() == root:
            return git("rev-parse", "HEAD"), bool(git("status", "--porcelain", "--untracked-files=no"))
    return None, None


def cpu_name() -> str:
    """The CPU's model name (Linux's ``/proc/cpuinfo``), else what ``platform`` knows."""
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine() or "unknown CPU"


def code_changed(results: dict | None) -> bool | None:
    """Whether the trainer skeleton's code differs from the one that made ``results`` (None: not recorded)."""
    provenance = (results or {}).get("provenance")
    return None if not provenance else provenance["code_fingerprint"] != code_fingerprint()


def provenance_caption(results: dict | None) -> str:
    """One line for under an experiment's table: what made the numbers, and when.

    ``"Made with elmo_keras 0.1.0 (commit 35033c1), DenseGradientAdam, tensorflow 2.21.0, on 2026-12-02 (AMD EPYC
    7B13)."``, followed by a warning when ``code_changed(results)``; for a file without provenance, that it was made
    before provenance was recorded. Empty for ``results`` None (no file).
    """
    if results is None:
        return ""
    provenance = results.get("provenance")
    if not provenance:
        return ("Made before provenance was recorded: the package version, optimizer and date behind these numbers "
                "are unknown (they may predate the current trainer).")
    commit = f" (commit {provenance['git_commit'][:7]}{', modified' if provenance['git_dirty'] else ''})" \
        if provenance["git_commit"] else ""
    line = (f"Made with elmo_keras {provenance['package_version']}{commit}, {provenance['optimizer']}, "
            f"{provenance['backend']}, on {provenance['made_on']} ({provenance['machine']}).")
    if code_changed(results):
        line += (" The trainer skeleton (" + ", ".join(f"elmo_keras/{name}" for name in TRAINING_CODE)
                 + ") has changed since: rerun the experiment to refresh these numbers.")
    return line
