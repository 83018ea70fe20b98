"""Import TensorFlow/Keras without the native start-up log lines.

TensorFlow's C++ runtime prints oneDNN and CUDA notices from static initialisers, before any Python
logging setting can apply (``TF_CPP_MIN_LOG_LEVEL`` alone does not silence them). We raise the log level
and route file descriptor 2 to ``/dev/null`` only while TensorFlow's first import runs, then restore it,
so warnings and errors raised later by user code are printed as usual.

Importing this module is cheap: it only installs an import hook that runs TensorFlow's first import that way,
whoever triggers it (``from keras import ops`` in any module, or the user's own ``import tensorflow``).
``from elmo_keras._quiet import keras`` imports Keras (and its backend) on that first access.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.util
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")


@contextlib.contextmanager
def _stderr_to_devnull():
    """File descriptor 2 (where TensorFlow's C++ runtime writes, whatever ``sys.stderr`` is) to ``/dev/null``."""
    stderr_fd = 2
    try:
        saved = os.dup(stderr_fd)
    except OSError:  # no file descriptor 2 (some embedded interpreters): nothing to hide
        yield
        return
    with contextlib.suppress(AttributeError, OSError, ValueError):
        sys.stderr.flush()
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, stderr_fd)
        yield
    finally:
        with contextlib.suppress(AttributeError, OSError, ValueError):
            sys.stderr.flush()
        os.dup2(saved, stderr_fd)
        os.close(saved)
        os.close(devnull)


class _QuietTensorFlowLoader(importlib.abc.Loader):
    """Runs another loader's ``exec_module`` with file descriptor 2 sent to ``/dev/null``."""

    def __init__(self, loader):
        self.loader = loader

    def __getattr__(self, name):  # everything else (resources, source, file name) is the real loader's
        return getattr(self.loader, name)

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        with _stderr_to_devnull():
            self.loader.exec_module(module)
        module.get_logger().setLevel("ERROR")


class _QuietTensorFlowFinder(importlib.abc.MetaPathFinder):
    """Finds ``tensorflow`` the usual way (once) and hands back its spec with a quiet loader."""

    def find_spec(self, name, path=None, target=None):
        if name != "tensorflow":
            return None
        sys.meta_path.remove(self)  # one use: the real finders answer from now on
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            spec.loader = _QuietTensorFlowLoader(spec.loader)
        return spec


if "tensorflow" not in sys.modules and not any(isinstance(f, _QuietTensorFlowFinder) for f in sys.meta_path):
    sys.meta_path.insert(0, _QuietTensorFlowFinder())


def import_keras():
    """Return the ``keras`` module, importing its backend quietly the first time."""
    import keras  # here: on first use only (importing this module stays cheap)

    return keras


def __getattr__(name):
    if name == "keras":
        return import_keras()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
