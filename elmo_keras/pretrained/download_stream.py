"""One HTTP response, bounded: its head must arrive within one rate window (``HEAD_DEADLINE_HANDLERS``), and its
body is copied into a file no larger than the file's known size, its ``Content-Length``, a ceiling and the free disk
space, and no slower than a minimum rate (``copy_response``). Every way it stops is a ``DownloadError`` naming the
URL (``ResponseHeadTooSlow`` becomes one where the URL is known, ``too_slow_head``)."""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import urllib.request
from collections.abc import Callable
from typing import BinaryIO


class DownloadError(OSError):
    """A file could not be downloaded: an HTTP error, a dropped connection, a length that is not the expected, a
    body past its cap, or a server slower than the minimum rate."""


class ResponseHeadTooSlow(Exception):  # noqa: N818 (not an error of its own: ``too_slow_head`` makes the error)
    """Connecting, sending the request and reading the status line and headers took longer than one rate window
    (a server dripping its headers: each read's timeout alone never fires). Not an ``OSError``, so that urllib
    passes it on as it is.

    Attributes:
        window_seconds: float, the window (the connection's timeout).
    """

    def __init__(self, window_seconds: float):
        super().__init__(f"the response head did not arrive within {window_seconds:g} s")
        self.window_seconds = window_seconds


def too_slow_head(url: str, window_seconds: float) -> DownloadError:
    """The one-line ``DownloadError`` for a ``ResponseHeadTooSlow`` of ``url`` (as messages show it)."""
    return DownloadError(f"the download of {url} is too slow: its response headers did not arrive within "
                         f"{window_seconds:g} s; nothing was kept, check the network and run again")


class _HeadDeadline:
    """For ``http.client`` connections: from the start of ``connect`` (proxy tunnel and TLS handshake included),
    through sending the request, to the last header line, one deadline of ``timeout`` seconds; when it passes, the
    socket is shut down (the blocked read ends) and ``head_expired`` is set. ``end_head_deadline`` ends it."""

    head_expired = False
    _head_timer: threading.Timer | None = None

    def connect(self):
        if self._head_timer is None and isinstance(self.timeout, (int, float)):
            self._head_lock = threading.Lock()
            self._head_done = False
            self._head_timer = threading.Timer(self.timeout, self._head_deadline_passed)
            self._head_timer.daemon = True
            self._head_timer.start()
        super().connect()
        if self.head_expired:
            raise TimeoutError("the response head's deadline passed while connecting")

    def _head_deadline_passed(self) -> None:
        with self._head_lock:
            if self._head_done:
                return
            self.head_expired = True
            if self.sock is not None:
                with contextlib.suppress(OSError):
                    self.sock.shutdown(socket.SHUT_RDWR)

    def end_head_deadline(self) -> bool:
        """Stop the deadline (the body is ``copy_response``'s to bound); whether it had passed."""
        if self._head_timer is None:
            return False
        with self._head_lock:
            self._head_done = True
            self._head_timer.cancel()
            return self.head_expired


class _DeadlineHTTPConnection(_HeadDeadline, http.client.HTTPConnection):
    pass


class _DeadlineHTTPSConnection(_HeadDeadline, http.client.HTTPSConnection):
    pass


def _open_before_deadline(handler, connection_class, request, **connection_arguments):
    """``handler.do_open`` with a connection that has a head deadline; ``ResponseHeadTooSlow`` if it passed."""
    made = []

    def connection(*arguments, **keywords):
        made.append(connection_class(*arguments, **keywords))
        return made[-1]

    try:
        response = handler.do_open(connection, request, **connection_arguments)
    except BaseException:
        if made and made[-1].end_head_deadline():  # what failed was a read the deadline cut short
            raise ResponseHeadTooSlow(made[-1].timeout) from None
        raise
    if made and made[-1].end_head_deadline():  # the headers "ended" where the deadline shut the socket
        response.close()
        raise ResponseHeadTooSlow(made[-1].timeout)
    return response


class _DeadlineHTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, req):  # noqa: D102 (urllib's hook)
        return _open_before_deadline(self, _DeadlineHTTPConnection, req)


class _DeadlineHTTPSHandler(urllib.request.HTTPSHandler):
    def https_open(self, req):  # noqa: D102 (urllib's hook)
        arguments = {"context": self._context}
        if hasattr(self, "_check_hostname"):  # Python 3.11 passes it on; 3.12 folded it into the context
            arguments["check_hostname"] = self._check_hostname
        return _open_before_deadline(self, _DeadlineHTTPSConnection, req, **arguments)


# for ``urllib.request.build_opener``: they replace its plain HTTP(S) handlers
HEAD_DEADLINE_HANDLERS = (_DeadlineHTTPHandler, _DeadlineHTTPSHandler)


def _content_length(response) -> int | None:
    length = response.headers.get("Content-Length")
    return int(length) if length is not None and length.strip().isdigit() else None


def copy_response(response, handle: BinaryIO, digest, *, url: str, known_size: int | None, limit: int,
                  free_bytes: int, window_seconds: float, min_bytes_per_window: int, chunk_bytes: int,
                  clock: Callable[[], float], progress: Callable[[int, int | None], None] | None) -> int:
    """Copy ``response``'s body into ``handle`` (updating ``digest``), checking as it goes.

    Args:
        response: an ``http.client.HTTPResponse`` (``read1`` returns whatever has arrived, so a slow server is seen).
        url: the URL as messages show it (no credentials).
        known_size: the file's size where the caller or the registry knows it, else None.
        limit: the most bytes to accept (``known_size``, or the ceiling of the file's kind).
        free_bytes: the free space where the file goes.
        window_seconds, min_bytes_per_window: stop when fewer than ``min_bytes_per_window`` bytes arrive in a window.
        progress: ``progress(done, total or None)`` after each chunk.

    Returns:
        The number of bytes copied.

    Raises:
        DownloadError: the ``Content-Length`` disagrees with ``known_size``, or exceeds ``limit`` or the free space
            (before anything is read); the body passes the limit; the server is too slow; the connection drops or
            closes early.
    """
    length = _content_length(response)
    if known_size is not None and length is not None and length != known_size:
        raise DownloadError(f"cannot download {url}: the server sends {length:,} bytes but the file has "
                            f"{known_size:,}; it was replaced or the URL is wrong")
    if length is not None and length > limit:
        raise DownloadError(f"cannot download {url}: the server sends {length:,} bytes, more than the {limit:,} a file "
                            "of its kind may have; check the URL")
    expected = length if length is not None else known_size
    cap = min(limit, expected) if expected is not None else limit
    if expected is not None and expected > free_bytes:
        raise DownloadError(f"cannot download {url}: it has {expected:,} bytes but only {free_bytes:,} are free in the "
                            "cache; free some space or set ELMO_KERAS_PRETRAINED_DIR to a larger disk")
    done = 0
    window_start, done_at_window_start = clock(), 0
    try:
        while chunk := response.read1(chunk_bytes):
            done += len(chunk)
            if done > cap:
                raise DownloadError(f"the download of {url} passed {cap:,} bytes, "
                                    + ("the length it was announced with" if expected is not None else
                                       "the most a file of its kind may have")
                                    + "; nothing was kept, check the URL")
            if done > free_bytes:
                raise DownloadError(f"the download of {url} filled the free space of the cache after {done:,} bytes; "
                                    "nothing was kept, free some space and run again")
            handle.write(chunk)
            digest.update(chunk)
            if progress is not None:
                progress(done, expected)
            now = clock()
            if now - window_start >= window_seconds:
                if done - done_at_window_start < min_bytes_per_window:
                    raise _too_slow(url, done - done_at_window_start, now - window_start, min_bytes_per_window,
                                    window_seconds, done, expected)
                window_start, done_at_window_start = now, done
    except DownloadError:
        raise
    except TimeoutError:  # no byte at all for a whole window (the socket's timeout)
        raise _too_slow(url, 0, window_seconds, min_bytes_per_window, window_seconds, done, expected) from None
    except (http.client.HTTPException, OSError) as error:  # IncompleteRead, reset
        raise DownloadError(f"the download of {url} stopped after {done:,} of "
                            f"{'?' if expected is None else f'{expected:,}'} bytes ({type(error).__name__}); "
                            "nothing was kept, run again to download it again") from None
    if expected is not None and done < expected:  # the server closed the connection early
        raise DownloadError(f"the download of {url} stopped after {done:,} of {expected:,} bytes (the connection "
                            "closed); nothing was kept, run again to download it again")
    if progress is not None and expected is None:
        progress(done, done)
    return done


def _too_slow(url, got, seconds, minimum, window, done, expected) -> DownloadError:
    return DownloadError(f"the download of {url} is too slow: {got:,} bytes in {seconds:.0f} s, below the minimum of "
                         f"{minimum:,} bytes per {window:.0f} s ({done:,} of "
                         f"{'?' if expected is None else f'{expected:,}'} bytes so far); nothing was kept, check the "
                         "network and run again")
