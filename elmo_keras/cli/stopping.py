"""How the commands stop: SIGINT and SIGTERM stop a command after its cleanup, and the exit statuses."""

from __future__ import annotations

import contextlib
import gc
import signal
import threading
from collections.abc import Callable

EXIT_OK, EXIT_ERROR = 0, 1
EXIT_INTERRUPTED, EXIT_TERMINATED = 128 + signal.SIGINT, 128 + signal.SIGTERM  # 130, 143


class Terminated(BaseException):
    """Raised in the main thread on SIGTERM, so that cleanup (``finally``) runs as it does for Ctrl-C."""


_stop_requests: dict[int, threading.Event] = {signal.SIGINT: threading.Event(), signal.SIGTERM: threading.Event()}


@contextlib.contextmanager
def stop_signals_stop_the_command():
    """While inside, SIGTERM raises ``Terminated`` and SIGINT ``KeyboardInterrupt`` (main thread only; the previous
    handlers are restored), and each request is also remembered.

    An exception raised by a signal handler can be lost: when the signal arrives while Python runs a garbage
    collection callback or a ``__del__`` (JAX, when installed beside TensorFlow, registers one), Python prints
    "Exception ignored in ..." and carries on; when it arrives while TensorFlow traces a graph, TensorFlow turns
    it into a ``ValueError`` ("Tried to convert ... to a tensor and failed"). ``raise_if_stopped`` raises the
    remembered request again: the commands call it after every batch and epoch, and ``main`` before reporting an
    error. Inside a garbage collection callback or a ``__del__`` the handler only remembers (raising there would
    print Python's "Exception ignored" report).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        _stop_requests[signum].set()
        if not _inside_a_finaliser(frame):
            raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()

    for event in _stop_requests.values():
        event.clear()
    previous = {signum: signal.signal(signum, handler) for signum in _stop_requests}
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)
        for event in _stop_requests.values():
            event.clear()


def _inside_a_finaliser(frame) -> bool:
    """Whether ``frame`` or a caller runs a garbage collection callback or a ``__del__`` method."""
    callbacks = {getattr(callback, "__code__", None) for callback in gc.callbacks}
    while frame is not None:
        if frame.f_code in callbacks or frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


def raise_if_stopped() -> None:
    """Raise ``Terminated`` or ``KeyboardInterrupt`` again if SIGTERM or SIGINT arrived (inside
    ``stop_signals_stop_the_command``), whatever became of the exception its handler raised."""
    if _stop_requests[signal.SIGTERM].is_set():
        raise Terminated()
    if _stop_requests[signal.SIGINT].is_set():
        raise KeyboardInterrupt()


def checked_progress(progress: Callable[[int, int], None] | None) -> Callable[[int, int], None]:
    """``progress(done, total)`` that first stops an interrupted or terminated command (``raise_if_stopped``)."""

    def call(done: int, total: int) -> None:
        raise_if_stopped()
        if progress is not None:
            progress(done, total)

    return call
