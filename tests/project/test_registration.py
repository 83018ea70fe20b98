"""``.keras`` files of the package's classes load through ``elmo_keras.load_model`` after a bare ``import elmo_keras``,
whether Keras was imported before or after it; no Keras internals are patched and no import hooks installed."""

import ast
import pathlib
import subprocess
import sys

import pytest

from elmo_keras._registration import serializable_modules
from tests.support.paths import REPO_ROOT

LOAD = """
import sys
import numpy as np
{imports}
model = elmo_keras.load_model({path!r})
logits = model(np.array([[2, 5, 3]]))['forward_logits']
print(type(model).__name__, keras.ops.convert_to_numpy(logits).shape)
assert not any('elmo_keras' in type(finder).__module__ for finder in sys.meta_path)
"""


def test_every_registering_module_is_found():
    """Every module with a ``@register_keras_serializable`` class (by its syntax tree) is found by reading sources."""
    registering = set()
    for path in sorted((REPO_ROOT / "elmo_keras").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        nodes = ast.walk(tree)
        if any(isinstance(node, ast.Attribute) and node.attr == "register_keras_serializable" for node in nodes):
            parts = path.relative_to(REPO_ROOT).with_suffix("").parts
            registering.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    assert registering and set(serializable_modules()) == registering


@pytest.mark.parametrize("imports", ["import elmo_keras\nimport keras", "import keras\nimport elmo_keras"])
def test_a_saved_model_loads_after_a_bare_package_import(imports, tmp_path):
    from elmo_keras.models import build_bilm_lm, get_size

    model = build_bilm_lm(get_size("tiny"), 20)
    model.build((None, None))
    path = pathlib.Path(tmp_path) / "model.keras"
    model.save(path)
    done = subprocess.run([sys.executable, "-c", LOAD.format(imports=imports, path=str(path))], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["BiLanguageModel", "(1,", "3,", "20)"]


def test_no_module_patches_keras_internals_or_the_import_system():
    for path in sorted((REPO_ROOT / "elmo_keras").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert "meta_path" not in text and "GLOBAL_CUSTOM_OBJECTS" not in text and "keras.src" not in text, path
