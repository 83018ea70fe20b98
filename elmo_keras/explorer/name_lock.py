"""The lock that reserves a model name in a models directory (``model_store.reserve_model_name``).

An exclusive ``flock`` on the hidden ``.NAME.lock`` beside the models: the kernel releases it when its process dies,
so no reservation outlives its session, and the file is deleted as the lock is let go (a waiter on the old file then
sees it gone and locks the new one). Where there is no ``fcntl`` (Windows), a reservation holds among the sessions of
this process only.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import threading

try:
    import fcntl
except ImportError:  # Windows: a reservation holds among the sessions of this process only
    fcntl = None

_held_here: set[str] = set()  # the names held in this process where there is no flock
_held_here_changed = threading.Condition()


def _busy(name: str) -> ValueError:
    return ValueError(f"A model called {name!r} is being trained or saved by another session right now; choose "
                      "another name, or wait until it is saved and tick 'overwrite' to replace it.")


def hold_name_lock(lock: pathlib.Path, wait: bool, name: str):
    """Take the exclusive lock ``lock`` for the model ``name``; returns the function that releases it (deleting the
    file).

    Raises:
        ValueError: another session holds it and not ``wait`` (the message names the model).
    """
    if fcntl is None:
        with _held_here_changed:
            while str(lock) in _held_here:
                if not wait:
                    raise _busy(name)
                _held_here_changed.wait()
            _held_here.add(str(lock))

        def release_here():
            with _held_here_changed:
                _held_here.discard(str(lock))
                _held_here_changed.notify_all()
        return release_here
    while True:
        descriptor = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            held, current = os.fstat(descriptor), os.stat(lock)
        except BlockingIOError:
            os.close(descriptor)
            raise _busy(name) from None
        except BaseException as error:
            os.close(descriptor)
            if isinstance(error, FileNotFoundError):
                continue  # its holder deleted it as it let go: lock the new file
            raise
        if (held.st_dev, held.st_ino) == (current.st_dev, current.st_ino):
            break
        os.close(descriptor)  # replaced after it was opened here: lock the one in place

    def release():
        with contextlib.suppress(OSError):
            os.unlink(lock)  # while still held: a waiter on this file then sees it gone and locks a new one
        os.close(descriptor)
    return release
