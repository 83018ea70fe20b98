"""One released file by URL: downloaded once into a cache, verified at every load (``cached_file``).

- **Where.** ``$ELMO_KERAS_PRETRAINED_DIR`` if set, else ``$XDG_CACHE_HOME/elmo_keras/pretrained``, else
  ``~/.cache/elmo_keras/pretrained``; a URL's file lies at ``<host>/<path of the URL>`` below it (``cache_path``), so
  a file can be put there by hand.
- **Whole or not at all.** The download goes to a partial file of its own (``.NAME.XXXXXXXX.tmp`` beside the target)
  and is renamed into place only when its length is the server's ``Content-Length`` and the registry's size (where
  known) and its SHA-256 the publisher's (where published). A dropped connection leaves nothing behind.
- **Checked later.** The SHA-256 is recorded beside the file (``NAME.sha256``, ``sha256sum`` format) and checked at
  every load: a changed file is a ``CachedFileChangedError`` naming it (delete it to download it again). A file put
  there by hand is checked against the registry's size and checksum, then recorded the same way.
- **Concurrent downloads.** A process holds ``NAME.lock`` (``flock``, where the system has it) while it downloads;
  the next one waits, then finds the file. Partial files have unique names and the rename is atomic, so even
  without the lock two downloads cannot mix.
- **Offline.** With ``ELMO_KERAS_OFFLINE=1``, or when the network cannot be reached, a missing file is an
  ``OfflineError``: one line naming the URL, the cache path and how to put the file there by hand.

Only the standard library's ``urllib`` is used. A model's two files (by name, path or URL) are ``model_files``.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import os
import pathlib
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Mapping

from elmo_keras.pretrained.options import PretrainedFileError
from elmo_keras.pretrained.registry import RELEASED_MODELS, published_file
from elmo_keras.safe_files import replace_file, user_cache_directory, write_beside

try:
    import fcntl
except ImportError:  # not POSIX: unique partial names and the atomic rename keep downloads apart without the lock
    fcntl = None

PRETRAINED_DIR_ENV = "ELMO_KERAS_PRETRAINED_DIR"
OFFLINE_ENV = "ELMO_KERAS_OFFLINE"
SIDECAR_SUFFIX = ".sha256"  # NAME.sha256 beside NAME: "<hex digest>  NAME", as sha256sum writes it
LOCK_SUFFIX = ".lock"
CHUNK_BYTES = 1 << 20
TIMEOUT_SECONDS = 60  # per blocking network operation (connect, each read), not the whole download
USER_AGENT = "elmo_keras (urllib)"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")

DownloadProgress = Callable[[str, int, "int | None"], None]  # (file name, bytes so far, total bytes or None)


class DownloadError(OSError):
    """A file could not be downloaded: an HTTP error, a dropped connection, or a length that is not the expected."""


class OfflineError(DownloadError):
    """A file is not in the cache and cannot be downloaded: ``ELMO_KERAS_OFFLINE`` is set or the network is down.

    Attributes:
        reason: str, which of the two (``"ELMO_KERAS_OFFLINE=1 is set"``, ``"<url> cannot be reached: ..."``).
    """

    reason = ""


class CachedFileChangedError(PretrainedFileError):
    """A cached file is not what was downloaded (its SHA-256 changed), or not what the registry says it is."""


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


# -- where files go ---------------------------------------------------------------------------------------------


def pretrained_directory(environ: Mapping[str, str] | None = None) -> pathlib.Path:
    """The cache of downloaded files (not created here); see the module docstring for the order of look-up."""
    environ = os.environ if environ is None else environ
    if environ.get(PRETRAINED_DIR_ENV):
        return pathlib.Path(environ[PRETRAINED_DIR_ENV]).expanduser()
    return user_cache_directory(environ) / "pretrained"


def is_offline(environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``ELMO_KERAS_OFFLINE`` asks for no downloads (``1``, ``true``, ``yes``, ``on``)."""
    environ = os.environ if environ is None else environ
    return environ.get(OFFLINE_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def is_url(path) -> bool:
    """Whether ``path`` is an ``http://`` or ``https://`` URL (a str; a path object never is)."""
    return isinstance(path, str) and path.strip().lower().startswith(("http://", "https://"))


def cache_path(url: str, directory: str | os.PathLike | None = None) -> pathlib.Path:
    """Where ``url``'s file lives in the cache: ``directory/<host>[_<port>]/<URL path>``.

    Characters other than letters, digits, ``.``, ``_`` and ``-`` become ``_``; if that changed the path, or the URL
    has a query, the file name starts with a hash of the whole URL, so that two URLs never share a file.

    Args:
        url: an ``http(s)://`` URL.
        directory: the cache. Defaults to None (``pretrained_directory()``).
    """
    parts = urllib.parse.urlsplit(url.strip())
    host = (parts.hostname or "") + (f"_{parts.port}" if parts.port else "")
    segments = [segment for segment in parts.path.split("/") if segment] or ["index"]
    safe = [_UNSAFE.sub("_", segment) if segment not in (".", "..") else "_" for segment in segments]
    if safe != segments or parts.query or not host or _UNSAFE.search(host):
        safe[-1] = f"{hashlib.sha256(url.encode('utf-8')).hexdigest()[:12]}-{safe[-1]}"
    return pathlib.Path(pretrained_directory() if directory is None else directory,
                        _UNSAFE.sub("_", host) or "_", *safe)


def _sidecar(path: pathlib.Path) -> pathlib.Path:
    return path.with_name(path.name + SIDECAR_SUFFIX)


def offline_error(urls: list[str], reason: str, name: str | None = None,
                  directory: str | os.PathLike | None = None) -> OfflineError:
    """The one-line ``OfflineError`` for files that cannot be downloaded: why, and where to put each by hand."""
    what = f"ELMo model {name!r} is not in the cache" if name else "cannot download the ELMo files"
    places = " and ".join(f"{url} to {cache_path(url, directory)}" for url in urls)
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
            beyond ``Content-Length``).
        sha256: str, the publisher's SHA-256 (hex). Defaults to None (the registry's for its URLs).
        progress: see ``local_model_files``. Defaults to ``stderr_progress``.
        directory: the cache. Defaults to None (``pretrained_directory()``).

    Returns:
        The cached file's path.

    Raises:
        ValueError: ``url`` is not an ``http(s)://`` URL.
        OfflineError, DownloadError, CachedFileChangedError: see ``local_model_files``.
    """
    if not is_url(url):
        raise ValueError(f"expected an http:// or https:// URL, received {url!r:.200}")
    url = url.strip()
    published = published_file(url)
    size = size if size is not None or published is None else published.size
    sha256 = sha256 if sha256 is not None or published is None else published.sha256
    path = cache_path(url, directory)
    if path.is_file():
        return _verified(path, url, size, sha256)
    if is_offline():
        raise offline_error([url], f"{OFFLINE_ENV}={os.environ.get(OFFLINE_ENV)} is set", directory=directory)
    with _download_lock(path):
        if path.is_file():  # another process downloaded it while this one waited for the lock
            return _verified(path, url, size, sha256)
        try:
            _download(url, path, size, sha256, progress)
        except OfflineError as error:
            raise offline_error([url], error.reason, directory=directory) from None
    return path


def file_sha256(path: str | os.PathLike) -> str:
    """The SHA-256 of a file's bytes (hex), read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(CHUNK_BYTES), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _recorded_sha256(path: pathlib.Path) -> str | None:
    try:
        text = _sidecar(path).read_text(encoding="ascii").split()
    except (OSError, UnicodeDecodeError):
        return None
    return text[0].lower() if text else None


def _record_sha256(path: pathlib.Path, digest: str) -> None:
    line = f"{digest}  {path.name}\n".encode("utf-8")
    replace_file(_sidecar(path), lambda handle: handle.write(line))


def _verified(path: pathlib.Path, url: str, size: int | None, sha256: str | None) -> pathlib.Path:
    """``path`` after checking it against its recorded SHA-256 (recording it, for a file put there by hand) and the
    publisher's size and checksum."""
    fix = f"delete it to download {url} again"
    recorded = _recorded_sha256(path)
    if recorded is None and size is not None and path.stat().st_size != size:
        raise CachedFileChangedError(path, None, f"has {path.stat().st_size:,} bytes but {url} has {size:,}; {fix}")
    digest = file_sha256(path)
    if recorded is not None and digest != recorded:
        raise CachedFileChangedError(
            path, None, f"changed since it was downloaded from {url}: its SHA-256 is {digest}, {_sidecar(path).name} "
                        f"recorded {recorded}; {fix} (and {_sidecar(path).name})")
    if sha256 is not None and digest != sha256.lower():
        raise CachedFileChangedError(path, None, f"has SHA-256 {digest}, but {url} is published with {sha256}; {fix}")
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
    with open(path.with_name(path.name + LOCK_SUFFIX), "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _download(url: str, path: pathlib.Path, size: int | None, sha256: str | None,
              progress: DownloadProgress | None) -> None:
    """Fetch ``url`` into a partial file beside ``path``, check it, record its SHA-256 and rename it to ``path``."""
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    try:
        response = urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS)
    except urllib.error.HTTPError as error:
        raise DownloadError(f"cannot download {url}: HTTP {error.code} {error.reason}; check the URL (the released "
                            f"models by name: {', '.join(RELEASED_MODELS)})") from None
    except (urllib.error.URLError, OSError) as error:  # no route, no DNS, refused, timed out: the network is down
        unreachable = OfflineError(f"{url} cannot be reached")
        unreachable.reason = f"{url} cannot be reached: {getattr(error, 'reason', error)}"
        raise unreachable from None
    with response:
        length = response.headers.get("Content-Length")
        length = int(length) if length is not None and length.strip().isdigit() else None
        if size is not None and length is not None and length != size:
            raise DownloadError(f"cannot download {url}: the server sends {length:,} bytes but the file has "
                                f"{size:,}; it was replaced or the URL is wrong")
        expected = length if length is not None else size
        digest = hashlib.sha256()

        def write(handle) -> None:
            done = 0
            try:
                for chunk in iter(lambda: response.read(CHUNK_BYTES), b""):
                    handle.write(chunk)
                    digest.update(chunk)
                    done += len(chunk)
                    if progress is not None:
                        progress(path.name, done, expected)
            except (http.client.HTTPException, OSError) as error:  # IncompleteRead, reset, timeout
                raise DownloadError(f"the download of {url} stopped after {done:,} of "
                                    f"{'?' if expected is None else f'{expected:,}'} bytes ({type(error).__name__}); "
                                    "nothing was kept, run again to download it again") from None
            if expected is not None and done < expected:  # the server closed the connection early
                raise DownloadError(f"the download of {url} stopped after {done:,} of {expected:,} bytes (the "
                                    "connection closed); nothing was kept, run again to download it again")
            if expected is not None and done > expected:  # only without Content-Length: the registry's size is off
                raise DownloadError(f"the download of {url} gave {done:,} bytes, more than the {expected:,} expected; "
                                    "nothing was kept")
            if progress is not None and expected is None:
                progress(path.name, done, done)

        partial = write_beside(path, write)  # .NAME.XXXXXXXX.tmp, unique; deleted if write raises
    try:
        if sha256 is not None and digest.hexdigest() != sha256.lower():
            raise DownloadError(f"the file downloaded from {url} has SHA-256 {digest.hexdigest()}, not the published "
                                f"{sha256}; nothing was kept")
        os.replace(partial, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(partial)
    # after the rename: a crash in between leaves a complete file without a record, which the next load records
    _record_sha256(path, digest.hexdigest())
