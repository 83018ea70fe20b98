"""``BackgroundJob``: one long computation in a daemon thread, polled by the pages that show its progress.

A page caches the job with ``st.cache_resource`` (one per app process, whatever the number of sessions) and only
polls it (``wait``, ``done``, ``result``, ``error``), so a click or a second browser tab reruns the page without
restarting or duplicating the work.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence


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


class StepwiseTraining(BackgroundJob):
    """A page's first-use training in the background, reported step by step for its progress bar.

    Args:
        train: ``train(progress)``, calling ``progress(finished steps, what runs now)`` before each step and once
            at the end; its return value becomes ``result``.
        steps: the steps' names, in order (``status`` shows them).
        name: str, the thread's name.
        done_message: what ``status`` says once every step has finished (the saving).
    """

    def __init__(self, train: Callable[[Callable[[int, str], None]], object], steps: Sequence[str], name: str,
                 done_message: str = "Saving the models…"):
        self.step, self.steps, self.done_message = 0, tuple(steps), done_message
        super().__init__(lambda: train(self._progress), name)

    def _progress(self, step: int, what: str) -> None:
        self.step = step

    @property
    def fraction(self) -> float:
        """Share of the steps finished, for the progress bar."""
        return min(1.0, self.step / len(self.steps))

    def status(self) -> str:
        """One line for the progress bar."""
        if self.step >= len(self.steps):
            return self.done_message
        return f"First use: {self.steps[self.step]} ({self.step + 1}/{len(self.steps)})…"
