"""One released file by URL: downloaded once into a cache, verified at every load (``cached_file``).

- **Where.** ``cache_layout``: one entry per URL (scheme, host, port, path and query all count), always inside
  the cache, ``<cache>/<scheme>/<host>/<path of the URL>`` for a plain URL, so a file can be put there by hand.
- **Whole or not at all.** The download goes to a partial file of its own (``.NAME.download-XXXXXXXX.tmp`` beside
  the target) and is renamed into place only when its length is the server's ``Content-Length`` and the known size
  (where known) and its SHA-256 the publisher's (where published). A dropped connection leaves nothing behind; a
  partial left by a killed process is deleted by the next download of that entry.
- **Bounded.** A download never grows past its known size, its ``Content-Length``, or the ceiling of its kind
  (``download_ceiling``: an ``options.json`` is kilobytes), nor past the free disk space; one slower than
  ``MIN_BYTES_PER_WINDOW`` bytes in any ``RATE_WINDOW_SECONDS`` (a stalled or dripping server) is stopped, and so
  is one whose response head (connecting, the status line and every header) takes longer than one window; a
  malformed head (a garbage status line, over 100 headers, a header line over 64 KiB) is refused. Each is a
  ``DownloadError`` naming the URL, and nothing is kept.
- **Checked later.** The SHA-256 is recorded beside the file (``NAME.sha256``, ``sha256sum`` format) and checked at
  every load, and so is every known size: a changed file is a ``CachedFileChangedError`` naming it (delete it to
  download it again). A record that is not a digest for this file (empty, damaged, another file's) is the same
  error naming the record: a damaged record never switches the check off. A file put there by hand (no record) is
  checked against the known size and checksum, then recorded the same way.
- **Redirects** go to ``http(s)`` URLs only, never from ``https`` down to ``http``.
- **Concurrent downloads.** A process holds ``NAME.lock`` (``flock``, where the system has it) while it downloads;
  the next one waits, then finds the file. Partial files have unique names and the rename is atomic, so even
  without the lock two downloads cannot mix.
- **Offline.** With ``ELMO_KERAS_OFFLINE=1``, or when the network cannot be reached, a missing file is an
  ``OfflineError``: one line naming the URL, the cache path and how to put the file there by hand.
- **No secrets printed.** URLs with credentials are refused (``urls.checked_url``) and never shown with them.

Only the standard library's ``urllib`` is used. A model's two files (by name, path or URL) are ``model_files``.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import os
import pathlib
import re
import shutil
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Mapping

from elmo_keras.pretrained.cache_layout import (
    LOCK_SUFFIX,
    PRETRAINED_DIR_ENV,
    SIDECAR_SUFFIX,
    cache_path,
    lock_file,
    partial_prefix,
    pretrained_directory,
    refuse_cache_output,
    sidecar,
    stale_partials,
)
from elmo_keras.pretrained.download_stream import (
    HEAD_DEADLINE_HANDLERS,
    DownloadError,
    ResponseHeadTooSlow,
    copy_response,
    too_slow_head,
)
from elmo_keras.pretrained.options import PretrainedFileError
from elmo_keras.pretrained.registry import RELEASED_MODELS, published_file
from elmo_keras.pretrained.urls import SCHEMES, URLError, is_url, normal_url, shown_url
from elmo_keras.safe_files import file_sha256, replace_file, write_beside

try:
    import fcntl
except ImportError:  # not POSIX: unique partial names and the atomic rename keep downloads apart without the lock
    fcntl = None

__all__ = [  # what other modules import from here, cache_layout's and download_stream's names included
    "LOCK_SUFFIX", "PRETRAINED_DIR_ENV", "SIDECAR_SUFFIX", "CachedFileChangedError", "DownloadError", "OfflineError",
    "URLError", "cache_path", "cached_file", "download_ceiling", "is_offline", "is_url",
    "offline_error", "pretrained_directory", "refuse_cache_output", "stderr_progress",
]

OFFLINE_ENV = "ELMO_KERAS_OFFLINE"
CHUNK_BYTES = 1 << 20
RATE_WINDOW_SECONDS = 60.0  # also the timeout of each blocking network operation and the deadline of the whole head
MIN_BYTES_PER_WINDOW = 600_000  # 10 kB/s: below this over a whole window, a download is stopped
USER_AGENT = "elmo_keras (urllib)"
MAX_RECORD_BYTES = 4096  # a record is one line: a 64-digit digest, two spaces and the file name
# the most a file of each kind may be when nothing says its size (the released files: 336 B options, 374 MB weights,
# 1.73 GB for the transformer ELMo's archive); by the URL path's ending, the first match wins
DOWNLOAD_CEILINGS = ((".json", 1 << 20), (".txt", 64 << 20), ("", 4 << 30))
_RECORD_LINE = re.compile(r"([0-9a-fA-F]{64}) [ *](.+)\n?")

DownloadProgress = Callable[[str, int, "int | None"], None]  # (file name, bytes so far, total bytes or None)


class OfflineError(DownloadError):
    """A file is not in the cache and cannot be downloaded: ``ELMO_KERAS_OFFLINE`` is set or the network is down.

    Attributes:
        reason: str, which of the two (``"ELMO_KERAS_OFFLINE=1 is set"``, ``"<url> cannot be reached: ..."``).
    """

    reason = ""


class CachedFileChangedError(PretrainedFileError):
    """A cached file is not what was downloaded (its SHA-256 changed), or not what the registry says it is; or its
    record is damaged."""


def stderr_progress(name: str, done: int, total: int | None) -> None:
    """Draw ``downloading NAME: 12.0/374.4 MB (3%)`` on one line of stderr; the line ends at the last call."""
    if total is None:
        sys.stderr.write(f"\rdownloading {name}: {done / 1e6:.1f} MB")
    else:
        percent = done * 100 // max(total, 1)
        sys.stderr.write(f"\rdownloading {name}: {done / 1e6:.1f}/{total / 1e6:.1f} MB ({percent}%)")
        if done >= total:
            sys.stderr.write("\n")
    sys.stderr.flush()


def is_offline(environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``ELMO_KERAS_OFFLINE`` asks for no downloads (``1``, ``true``, ``yes``, ``on``)."""
    environ = os.environ if environ is None else environ
    return environ.get(OFFLINE_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def download_ceiling(url: str) -> int:
    """The most bytes a download of ``url`` may bring when neither the caller nor the registry knows its size."""
    path = normal_url(url).split("?")[0].lower()
    return next(ceiling for ending, ceiling in DOWNLOAD_CEILINGS if path.endswith(ending))


def offline_error(urls: list[str], reason: str, name: str | None = None,
                  directory: str | os.PathLike | None = None) -> OfflineError:
    """The one-line ``OfflineError`` for files that cannot be downloaded: why, and where to put each by hand."""
    what = f"ELMo model {name!r} is not in the cache" if name else "cannot download the ELMo files"
    places = " and ".join(f"{shown_url(url)} to {cache_path(url, directory)}" for url in urls)
    unset = f", or unset {OFFLINE_ENV}" if reason.startswith(OFFLINE_ENV) else ""
    error = OfflineError(f"{what} ({reason}): download {places} on a machine with network access (e.g. curl -L -o "
                         f"PATH URL) and copy {'them' if len(urls) > 1 else 'it'} there, then run again{unset}")
    error.reason = reason
    return error


# -- one file ---------------------------------------------------------------------------------------------------


def cached_file(url: str, size: int | None = None, sha256: str | None = None,
                progress: DownloadProgress | None = stderr_progress,
                directory: str | os.PathLike | None = None) -> pathlib.Path:
    """The local copy of ``url``: downloaded into the cache the first time, verified every time.

    Args:
        url: an ``http(s)://`` URL.
        size: int, the expected length in bytes. Defaults to None (the registry's for its URLs, else unchecked
            beyond ``Content-Length`` and ``download_ceiling``).
        sha256: str, the publisher's SHA-256 (hex). Defaults to None (the registry's for its URLs).
        progress: see ``local_model_files``. Defaults to ``stderr_progress``.
        directory: the cache. Defaults to None (``pretrained_directory()``).

    Returns:
        The cached file's path.

    Raises:
        ValueError: ``url`` is not an ``http(s)://`` URL; ``URLError`` (a ValueError): one ``urls.checked_url``
            refuses (credentials, a bad port, no host, control characters).
        OfflineError, DownloadError, CachedFileChangedError: see ``local_model_files``.
    """
    if not is_url(url):
        raise ValueError(f"expected an http:// or https:// URL, received {shown_url(str(url))!r:.200}")
    url = normal_url(url)
    published = published_file(url)
    size = size if size is not None or published is None else published.size
    sha256 = sha256 if sha256 is not None or published is None else published.sha256
    path = cache_path(url, directory)
    if os.path.lexists(path):
        return _verified(path, url, size, sha256)
    if is_offline():
        raise offline_error([url], f"{OFFLINE_ENV}={os.environ.get(OFFLINE_ENV)} is set", directory=directory)
    with _download_lock(path):
        if os.path.lexists(path):  # another process downloaded it while this one waited for the lock
            return _verified(path, url, size, sha256)
        for stale in stale_partials(path) if fcntl is not None else ():  # the lock is ours: their writers died
            with contextlib.suppress(FileNotFoundError):
                os.unlink(stale)
        try:
            _download(url, path, size, sha256, progress)
        except OfflineError as error:
            raise offline_error([url], error.reason, directory=directory) from None
    return path


def _recorded_sha256(path: pathlib.Path, url: str) -> str | None:
    """The digest ``NAME.sha256`` records for ``path``, or None when there is no record at all.

    Raises:
        CachedFileChangedError: the record exists but is not one line ``<64 hex digits>  NAME`` for this file.
    """
    record = sidecar(path)
    if not os.path.lexists(record):
        return None
    fix = f"delete {path.name} and {record.name} to download {shown_url(url)} again"
    try:
        if not record.is_file() or record.stat().st_size > MAX_RECORD_BYTES:
            raise ValueError("not a one-line file")
        match = _RECORD_LINE.fullmatch(record.read_bytes().decode("ascii"))
    except (OSError, UnicodeDecodeError, ValueError):
        match = None
    if match is None or match[2] != path.name:
        raise CachedFileChangedError(record, None, f"is damaged (not '<SHA-256>  {path.name}' as sha256sum writes it), "
                                                   f"so {path.name} cannot be checked; {fix}")
    return match[1].lower()


def _record_sha256(path: pathlib.Path, digest: str) -> None:
    line = f"{digest}  {path.name}\n".encode("utf-8")
    replace_file(sidecar(path), lambda handle: handle.write(line))


def _verified(path: pathlib.Path, url: str, size: int | None, sha256: str | None) -> pathlib.Path:
    """``path`` after checking it against its recorded SHA-256 (recording it, for a file put there by hand) and the
    known size and checksum, every time."""
    fix = f"delete it to download {shown_url(url)} again"
    if not path.is_file():
        raise CachedFileChangedError(path, None, f"is in the cache's place for {shown_url(url)} but is not a file; "
                                                 "remove it to download the file again")
    recorded = _recorded_sha256(path, url)
    if size is not None and path.stat().st_size != size:
        also = f" (and {sidecar(path).name})" if recorded else ""
        raise CachedFileChangedError(path, None, f"has {path.stat().st_size:,} bytes but {shown_url(url)} has "
                                                 f"{size:,}; {fix}{also}")
    digest = file_sha256(path)
    if recorded is not None and digest != recorded:
        raise CachedFileChangedError(
            path, None, f"changed since it was downloaded from {shown_url(url)}: its SHA-256 is {digest}, "
                        f"{sidecar(path).name} recorded {recorded}; {fix} (and {sidecar(path).name})")
    if sha256 is not None and digest != sha256.lower():
        raise CachedFileChangedError(path, None, f"has SHA-256 {digest}, but {shown_url(url)} is published with "
                                                 f"{sha256}; {fix}")
    if recorded is None:  # put there by hand: from now on it is checked like a download
        _record_sha256(path, digest)
    return path


@contextlib.contextmanager
def _download_lock(path: pathlib.Path) -> Iterator[None]:
    """Hold ``NAME.lock`` (an exclusive ``flock``) while downloading ``path``; a no-op where there is no ``fcntl``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if fcntl is None:
        yield
        return
    with open(lock_file(path), "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


class _SafeRedirects(urllib.request.HTTPRedirectHandler):
    """Follows redirects to ``http(s)`` only, and never from ``https`` down to ``http``."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: D102 (urllib's hook)
        target = urllib.parse.urljoin(req.full_url, newurl)
        scheme = urllib.parse.urlsplit(target).scheme.lower()
        if scheme not in SCHEMES or (req.type == "https" and scheme == "http"):
            raise DownloadError(f"cannot download {shown_url(req.full_url)}: the server redirects to "
                                f"{shown_url(target)}, " + ("a plain-http (unprotected) URL" if scheme == "http"
                                                            else "which is not http(s)") + "; refused")
        try:
            normal_url(target)
        except URLError as error:
            raise DownloadError(f"cannot download {shown_url(req.full_url)}: it redirects to a bad URL "
                                f"({error})") from None
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_OPENER = urllib.request.build_opener(_SafeRedirects, *HEAD_DEADLINE_HANDLERS)  # the head within one window too


def _download(url: str, path: pathlib.Path, size: int | None, sha256: str | None,
              progress: DownloadProgress | None) -> None:
    """Fetch ``url`` into a partial file beside ``path``, check it, record its SHA-256 and rename it to ``path``."""
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    try:
        response = _OPENER.open(request, timeout=RATE_WINDOW_SECONDS)
    except ResponseHeadTooSlow as late:
        raise too_slow_head(shown_url(url), late.window_seconds) from None
    except urllib.error.HTTPError as error:
        raise DownloadError(f"cannot download {shown_url(url)}: HTTP {error.code} {error.reason}; check the URL (the "
                            f"released models by name: {', '.join(RELEASED_MODELS)})") from None
    except DownloadError:
        raise
    except (urllib.error.URLError, OSError) as error:  # no route, no DNS, refused, timed out: the network is down
        unreachable = OfflineError(f"{shown_url(url)} cannot be reached")
        unreachable.reason = f"{shown_url(url)} cannot be reached: {getattr(error, 'reason', error)}"
        raise unreachable from None
    except (ValueError, UnicodeError, http.client.InvalidURL) as error:  # http.client's refusals of what it was given
        raise DownloadError(f"cannot download {shown_url(url)}: {type(error).__name__}: {error}") from None
    except http.client.HTTPException as error:  # a garbage status line, too many or too long headers: the server's
        said = ascii(str(error))[:80]  # the server's own bytes: escaped, so no line break or terminal escape
        raise DownloadError(f"cannot download {shown_url(url)}: the server's response is malformed "
                            f"({type(error).__name__}: {said}); check the URL, or try later") from None
    with response:
        limit = size if size is not None else download_ceiling(url)
        digest = hashlib.sha256()
        free = shutil.disk_usage(path.parent).free

        def write(handle) -> None:
            copy_response(response, handle, digest, url=shown_url(url), known_size=size, limit=limit, free_bytes=free,
                          window_seconds=RATE_WINDOW_SECONDS, min_bytes_per_window=MIN_BYTES_PER_WINDOW,
                          chunk_bytes=CHUNK_BYTES, clock=time.monotonic,
                          progress=None if progress is None else lambda done, total: progress(path.name, done, total))

        partial = write_beside(path, write, prefix=partial_prefix(path))  # unique; deleted if write raises
    try:
        if sha256 is not None and digest.hexdigest() != sha256.lower():
            raise DownloadError(f"the file downloaded from {shown_url(url)} has SHA-256 {digest.hexdigest()}, not the "
                                f"published {sha256}; nothing was kept")
        os.replace(partial, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(partial)
    # after the rename: a crash in between leaves a complete file without a record, which the next load records
    _record_sha256(path, digest.hexdigest())
