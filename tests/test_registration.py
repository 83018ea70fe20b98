"""``import elmo_keras`` (lazy) is enough for ``keras.saving.load_model`` to find every class of the package,
whether Keras was imported before or after it."""

import ast
import pathlib
import subprocess
import sys

import pytest

from elmo_keras._registration import SERIALIZABLE_MODULES
from tests.conftest import REPO_ROOT

LOAD = """
import numpy as np
{imports}
model = keras.saving.load_model({path!r})
logits = model(np.array([[2, 5, 3]]))['forward_logits']
print(type(model).__name__, keras.ops.convert_to_numpy(logits).shape)
"""


def test_every_registering_module_is_listed():
    """A module with a ``@register_keras_serializable`` class is imported by one of ``SERIALIZABLE_MODULES``."""
    registering = set()
    for path in sorted((REPO_ROOT / "elmo_keras").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        nodes = ast.walk(tree)
        if any(isinstance(node, ast.Attribute) and node.attr == "register_keras_serializable" for node in nodes):
            parts = path.relative_to(REPO_ROOT).with_suffix("").parts
            registering.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    registering.discard("elmo_keras._registration")
    import importlib

    for name in SERIALIZABLE_MODULES:
        importlib.import_module(name)
    loaded = {name for name in registering if name in sys.modules}
    assert loaded == registering, f"not imported by SERIALIZABLE_MODULES: {sorted(registering - loaded)}"


@pytest.mark.parametrize("imports", ["import elmo_keras\nimport keras", "import keras\nimport elmo_keras"])
def test_a_saved_model_loads_after_a_bare_package_import(imports, tmp_path):
    from elmo_keras.models import build_bilm_lm, get_preset

    model = build_bilm_lm(get_preset("tiny"), 20)
    model.build((None, None))
    path = pathlib.Path(tmp_path) / "model.keras"
    model.save(path)
    done = subprocess.run([sys.executable, "-c", LOAD.format(imports=imports, path=str(path))], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["BiLanguageModel", "(1,", "3,", "20)"]
