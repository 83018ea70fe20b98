"""Import TensorFlow/Keras without the native start-up log lines.

TensorFlow's C++ runtime prints oneDNN and CUDA notices from static initialisers, before any Python
logging setting can apply (``TF_CPP_MIN_LOG_LEVEL``, which ``import elmo_keras`` raises, alone does not silence
them). We route file descriptor 2 to ``/dev/null`` only while TensorFlow's first import runs, then restore it,
so warnings and errors raised later by user code are printed as usual.

Importing this module is cheap. Every module of the package imports Keras through it (``from elmo_keras._quiet
import keras, ops``; ``tests/project/backend_independent/test_import_structure.py`` keeps it so), which imports Keras
(and its backend) quietly on
that first access. A program that imports TensorFlow itself first sees TensorFlow's lines, as it would without us.
"""

from __future__ import annotations

import contextlib
import os
import sys


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


def import_keras():
    """Return the ``keras`` module, importing it (and TensorFlow) quietly the first time."""
    if "keras" not in sys.modules and "tensorflow" not in sys.modules:
        with _stderr_to_devnull():
            import keras  # noqa: F401 (here: on first use only; importing this module stays cheap)
        tensorflow = sys.modules.get("tensorflow")
        if tensorflow is not None:
            tensorflow.get_logger().setLevel("ERROR")
    import keras  # imported above, or before us: cheap

    return keras


def __getattr__(name):
    if name == "keras":
        return import_keras()
    if name == "ops":
        return import_keras().ops
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
