"""elmo_keras: contextual embeddings (ELMo) for Keras 3.

Everything a notebook needs is importable from here. Each name is imported on first use (``_lazy``; the names are
listed once, in ``__init__.pyi``), so ``import elmo_keras`` itself takes milliseconds and the first layer or model
brings in Keras, quietly: TensorFlow's start-up log lines are not printed (``_quiet``). Streamlit is never imported.
A ``.keras`` file of this package's classes loads with ``elmo_keras.load_model(path)``.

    >>> import elmo_keras
    >>> model = elmo_keras.train_bilm(size="toy")                 # the built-in polysemy corpus
    >>> vectors = elmo_keras.layer_embeddings(model, [["the", "river", "bank"]], positions=[2])
"""

import ast
import importlib
import os
import pathlib

# typing whole before any thread makes one of our dataclasses: dataclasses reads typing.ClassVar from sys.modules,
# which another thread may be half-way through importing (seen once in the eight-thread import test on JAX)
import typing  # noqa: F401

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")


def _stub_exports() -> dict[str, tuple[str, str]]:
    """``{name: (module, attribute)}`` from ``__init__.pyi``, read here: this package imports none of its own modules
    when it is imported (``_lazy`` says why), so it cannot use ``_lazy.attach_stub`` as the subpackages do."""
    exports = {}
    for node in ast.parse(pathlib.Path(__file__).with_suffix(".pyi").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                module = f"{node.module}.{alias.name}" if node.module == __name__ else node.module
                exports[alias.asname or alias.name] = (module, alias.name)
    return exports


_EXPORTS = _stub_exports()
__version__ = "0.1.0"
__all__ = [*sorted(_EXPORTS), "__version__"]


def __getattr__(name: str):
    return importlib.import_module("elmo_keras._lazy").resolve(__name__, _EXPORTS, name)


def __dir__() -> list:
    return sorted(set(globals()) | set(_EXPORTS))
