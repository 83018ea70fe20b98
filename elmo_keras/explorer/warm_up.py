"""Import what the explorer's pages need in a background thread, once per process, after the first page is drawn.

The first page opens from stored results without Keras or TensorFlow (seconds to import); importing them, and
the modules behind the other pages, while the user reads it means the next page does not wait for them. The
imports start ``DELAY_SECONDS`` after the first page's script ends: importing TensorFlow holds the interpreter
lock for seconds at a time (loading its libraries), which would hold up the server sending that page to the
browser (a warm-up started at once makes the first page slower; measured in docs/explorer.md, "Start-up
times"). A module that fails to import here is left alone: the page that needs it imports it
again and shows the error.
"""

from __future__ import annotations

import importlib
import threading
import time

PAGE_MODULES = (
    "elmo_keras.models.bilm.directory",  # Keras and TensorFlow, and loading a model
    "elmo_keras.explorer.similarity.service",
    "elmo_keras.explorer.projection.service",  # scikit-learn
    "elmo_keras.explorer.layer_weights.store",
    "elmo_keras.explorer.decoding.service",
    "elmo_keras.explorer.tagging.service",
    "elmo_keras.explorer.classification.service",
    "elmo_keras.explorer.dialogue.service",
    "elmo_keras.explorer.gradients.service",
    "elmo_keras.explorer.probing.service",
)
DELAY_SECONDS = 2.5
_lock = threading.Lock()
_thread: threading.Thread | None = None


def _import_all(delay: float) -> None:
    time.sleep(delay)
    for name in PAGE_MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001  (the page importing it reports the error)
            pass


def import_in_background(delay: float = DELAY_SECONDS) -> threading.Thread:
    """Start importing ``PAGE_MODULES`` in a daemon thread after ``delay`` seconds (the first call per process
    only); returns that thread."""
    global _thread
    with _lock:
        if _thread is None:
            _thread = threading.Thread(target=_import_all, args=(delay,), name="elmo-keras-warm-up", daemon=True)
            _thread.start()
        return _thread
