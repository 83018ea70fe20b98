"""The backend seam (issue #26, item 5): everything that differs between TensorFlow, JAX and PyTorch lives in
``elmo_keras._backend``. No other module of the package asks which backend runs (``keras.backend.backend()``)
or imports an engine (``tensorflow``, ``jax``, ``torch``), at module level or inside a function; they call the
seam's functions instead. ``ALLOWED`` names the modules excepted, each with its reason."""

import ast
import pathlib

from tests.support.paths import REPO_ROOT

ROOT = REPO_ROOT
PACKAGE = ROOT / "elmo_keras"
SEAM = PACKAGE / "_backend"
ENGINES = frozenset({"tensorflow", "jax", "jaxlib", "torch"})

# module (dotted name) → why it may branch on the backend or import an engine outside the seam. Empty since the
# seam absorbed the last ones (models.bilm.distribution, models.bilm.checkpoint_files, models.bilm.batches,
# models.bilm.precision's TensorFlow probe, tagging.sequence_tagger, _jax_steps); an entry must keep a finding (the
# last test).
ALLOWED: dict[str, str] = {}


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _ends_in_backend(node: ast.AST) -> bool:
    return (isinstance(node, ast.Name) and node.id == "backend") or (
        isinstance(node, ast.Attribute) and node.attr == "backend")


def _is_engine(module: str | None) -> bool:
    return bool(module) and module.partition(".")[0] in ENGINES


def findings(source: str) -> list[str]:
    """``["3: keras.backend.backend()", "7: import tensorflow", …]``: every backend question and engine import."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            function = node.func
            if isinstance(function, ast.Attribute) and function.attr == "backend" and _ends_in_backend(function.value):
                found.append(f"{node.lineno}: {ast.unparse(function)}()")
            elif (isinstance(function, (ast.Name, ast.Attribute))
                  and (function.id if isinstance(function, ast.Name) else function.attr)
                  in ("import_module", "__import__")
                  and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
                  and _is_engine(node.args[0].value)):
                found.append(f"{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Import):
            found.extend(f"{node.lineno}: import {alias.name}" for alias in node.names if _is_engine(alias.name))
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            if _is_engine(node.module):
                found.append(f"{node.lineno}: from {node.module} import ...")
            elif (node.module or "").endswith("backend") and any(alias.name == "backend" for alias in node.names):
                found.append(f"{node.lineno}: from {node.module} import backend")  # then backend() unseen
    return sorted(found, key=lambda entry: int(entry.partition(":")[0]))


def _modules_outside_the_seam() -> dict[str, pathlib.Path]:
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py")) if SEAM not in path.parents}


def _findings_of(path: pathlib.Path) -> list[str]:
    return findings(path.read_text(encoding="utf-8"))


def test_the_seam_is_a_package_split_by_concern():
    assert not (PACKAGE / "_backend.py").exists() and not (PACKAGE / "_jax_steps.py").exists()
    modules = {path.stem for path in SEAM.glob("*.py")}
    assert {"__init__", "execution", "training_steps", "data_pipeline", "distribution", "rng"} <= modules


def test_the_detector_sees_every_form():
    source = "\n".join([
        "import keras",
        "keras.backend.backend()",
        "import tensorflow as tf",
        "from jax import numpy as jnp",
        "import torch.nn",
        "import importlib",
        "importlib.import_module('jaxlib.xla_client')",
        "def f():",
        "    from keras.src import backend",  # a module: its backend() call is the finding
        "    import jax",
        "    return backend.backend()",
        "keras.backend.epsilon()",  # not a question of which backend runs
        "from elmo_keras import _backend",
        "_backend.backend_name()",
        "from keras.backend import backend",
    ])
    assert [entry.partition(":")[0] for entry in findings(source)] == ["2", "3", "4", "5", "7", "10", "11", "15"]


def test_only_the_seam_asks_which_backend_runs_or_imports_an_engine():
    offending = {name: found for name, path in _modules_outside_the_seam().items()
                 if name not in ALLOWED and (found := _findings_of(path))}
    assert not offending, (
        "backend-specific code outside elmo_keras/_backend (add a function to the seam and call it, or, if it "
        f"must stay, an ALLOWED entry with its reason): {offending}")


def test_every_exception_is_still_needed():
    modules = _modules_outside_the_seam()
    for name, reason in ALLOWED.items():
        assert name in modules, f"ALLOWED names {name!r}, which is no module outside the seam: remove the entry"
        assert reason.strip(), f"ALLOWED[{name!r}] must say why"
        assert _findings_of(modules[name]), f"{name} no longer branches on the backend: remove it from ALLOWED"
