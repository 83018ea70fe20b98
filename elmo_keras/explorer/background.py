"""``BackgroundJob``: one long computation in a daemon thread, polled by the pages that show its progress.

A page caches the job with ``st.cache_resource`` (one per app process, whatever the number of sessions) and only
polls it (``wait``, ``done``, ``result``, ``error``), so a click or a second browser tab reruns the page without
restarting or duplicating the work.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class BackgroundJob:
    """Runs ``target()`` in a daemon thread named ``name``; ``result`` or ``error`` holds the outcome.

    Args:
        target: the computation, called once with no arguments; its return value becomes ``result``.
        name: str, the thread's name.
    """

    def __init__(self, target: Callable[[], object], name: str):
        self.result = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(target,), name=name, daemon=True)
        self._thread.start()

    def _run(self, target) -> None:
        try:
            self.result = target()
        except BaseException as error:  # reported to whoever polls; the thread must not die silently
            self.error = error

    @property
    def done(self) -> bool:
        """Whether the job has finished (successfully or not)."""
        return not self._thread.is_alive()

    def wait(self, seconds: float) -> bool:
        """Block for up to ``seconds``; True once the job has finished (successfully or not)."""
        self._thread.join(timeout=seconds)
        return self.done
