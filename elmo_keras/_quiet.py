"""Import TensorFlow/Keras without the native start-up log lines.

TensorFlow's C++ runtime prints oneDNN and CUDA notices from static initialisers, before any Python
logging setting can apply (``TF_CPP_MIN_LOG_LEVEL``, which ``import elmo_keras`` raises, alone does not silence
them). We route file descriptor 2 to ``/dev/null`` only while TensorFlow's first import runs, then restore it,
so warnings and errors raised later by user code are printed as usual.

Importing this module is cheap. ``import elmo_keras`` installs the hook that runs TensorFlow's first import
through ``run_quietly``, whoever triggers it (``from keras import ops`` in any module, or the user's own
``import tensorflow``); ``from elmo_keras._quiet import keras`` imports Keras (and its backend) on that first
access.
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


def run_quietly(exec_module, module):
    """TensorFlow's first import with file descriptor 2 sent to ``/dev/null``; its logger set to errors only."""
    with _stderr_to_devnull():
        exec_module(module)
    module.get_logger().setLevel("ERROR")


def import_keras():
    """Return the ``keras`` module, importing its backend quietly the first time."""
    import keras  # here: on first use only (importing this module stays cheap)

    return keras


def __getattr__(name):
    if name == "keras":
        return import_keras()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
