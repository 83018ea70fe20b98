"""Import TensorFlow/Keras without the native start-up log lines.

TensorFlow's C++ runtime prints oneDNN and CUDA notices from static initialisers, before any Python
logging setting can apply (``TF_CPP_MIN_LOG_LEVEL`` alone does not silence them). We raise the log level
and route file descriptor 2 to ``/dev/null`` only while the first ``import keras`` runs, then restore it,
so warnings and errors raised later by user code are printed as usual.
"""

from __future__ import annotations

import contextlib
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")


@contextlib.contextmanager
def _stderr_to_devnull():
    try:
        stderr_fd = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # no real stderr (some notebooks): nothing to hide
        yield
        return
    sys.stderr.flush()
    saved = os.dup(stderr_fd)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, stderr_fd)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, stderr_fd)
        os.close(saved)
        os.close(devnull)


def import_keras():
    """Return the ``keras`` module, importing its backend quietly the first time."""
    if "keras" not in sys.modules:
        with _stderr_to_devnull():
            import keras  # noqa: F401
            if os.environ.get("KERAS_BACKEND", "tensorflow") == "tensorflow":
                import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

                tf.get_logger().setLevel("ERROR")
    return sys.modules["keras"]


keras = import_keras()
