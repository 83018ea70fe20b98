"""Where the download cache keeps a URL's file, its record, its lock and its partial downloads.

- **The cache**: ``$ELMO_KERAS_PRETRAINED_DIR`` if set, else ``$XDG_CACHE_HOME/elmo_keras/pretrained``, else
  ``~/.cache/elmo_keras/pretrained`` (``pretrained_directory``).
- **One entry per URL** (``cache_path``), keyed on the URL's normal form (``urls.normal_url``: scheme, host, port,
  path and query all count). A plain URL's file lies where a person would look for it,
  ``<cache>/<scheme>/<host>[_<port>]/<path>`` (``https/s3-us-west-2.amazonaws.com/allennlp/...``); any other URL's
  (a query, an escape, a character outside ``A-Z a-z 0-9 . _ -``, a name starting with ``.`` or ending like a
  record or a lock, an empty or trailing-slash path, a path whose last segment does not end in an extension
  such as ``.json`` or whose folders do) lies at ``<cache>/hashed/<SHA-256 of its normal form>/<name>``.
  ``hashed`` is no scheme, a plain host holds no ``_``, and a plain path only segments that stand for themselves, so
  two URLs with different normal forms never share an entry, and every entry lies inside the cache (``..`` and
  ``.`` cannot appear in a plain path, and the resolved path is checked once more).
- **No entry is a folder of another.** A plain entry's file name ends in an extension (``.`` then a letter, then
  letters or digits: ``.json``, ``.hdf5``, ``.gz``), and none of its folders does (``2x4096_..._5.5B`` is a folder),
  so ``http://h/a.json`` and ``http://h/a.json/b.json`` never collide and both can be cached; a record, a lock and a
  partial are never a folder either. (Before this rule ``http://h/a`` blocked ``http://h/a/b``; such URLs now lie
  under ``hashed/``. Every released model keeps its plain path.)
- **Beside each file**: ``NAME.sha256`` (its SHA-256 in ``sha256sum`` format, checked at every load), ``NAME.lock``
  (held while it downloads) and, during a download, ``.NAME.download-XXXXXXXX.tmp``. A partial left by a process
  that was killed is deleted by the next download of the same entry (``stale_partials``).
- **Outputs stay out** (``refuse_cache_output``): no command writes inside the cache, onto a record, a lock or a
  partial download.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import re
import urllib.parse
from collections.abc import Mapping

from elmo_keras.pretrained.urls import checked_url, normal_url, shown_url
from elmo_keras.safe_files import OutputOverwritesInputError, is_inside, user_cache_directory

PRETRAINED_DIR_ENV = "ELMO_KERAS_PRETRAINED_DIR"
SIDECAR_SUFFIX = ".sha256"  # NAME.sha256 beside NAME: "<hex digest>  NAME", as sha256sum writes it
LOCK_SUFFIX = ".lock"
PARTIAL_INFIX = ".download-"  # a download's partial file: .NAME.download-XXXXXXXX.tmp beside NAME
HASHED_DIRECTORY = "hashed"  # not a scheme: the entries of URLs that do not map to a plain path
_PLAIN_SEGMENT = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")  # no leading '.', so never '.', '..' or a hidden file
_PLAIN_HOST = re.compile(r"[a-z0-9-]+(\.[a-z0-9-]+)*")  # no '_': '_' separates the port
_FILE_NAME = re.compile(r".*\.[A-Za-z][A-Za-z0-9]*")  # a plain entry's name; none of its folders' names is one
_PARTIAL_NAME = re.compile(r"^\.(?P<name>.+)\.download-[A-Za-z0-9_]{8}\.tmp$")


def pretrained_directory(environ: Mapping[str, str] | None = None) -> pathlib.Path:
    """The cache of downloaded files (not created here); see the module docstring for the order of look-up."""
    environ = os.environ if environ is None else environ
    if environ.get(PRETRAINED_DIR_ENV):
        return pathlib.Path(environ[PRETRAINED_DIR_ENV]).expanduser()
    return user_cache_directory(environ) / "pretrained"


def _plain_parts(url: str) -> list[str] | None:
    """``[scheme, host[_port], segment, ...]`` when ``url``'s normal form maps to a plain path, else None."""
    parts = checked_url(url)
    host, _, port = parts.netloc.partition(":")
    segments = parts.path.split("/")[1:]  # "/a/b" -> ["a", "b"]; "" and "/" give no usable name
    if parts.query or not _PLAIN_HOST.fullmatch(host) or not segments or not all(segments):
        return None
    if not all(_PLAIN_SEGMENT.fullmatch(segment) for segment in segments):
        return None
    if segments[-1].endswith((SIDECAR_SUFFIX, LOCK_SUFFIX)):  # would be another entry's record or lock
        return None
    if not _FILE_NAME.fullmatch(segments[-1]) or any(_FILE_NAME.fullmatch(folder) for folder in segments[:-1]):
        return None  # else one entry could be a folder of another (module docstring)
    return [parts.scheme, host + (f"_{port}" if port else ""), *segments]


def cache_path(url: str, directory: str | os.PathLike | None = None) -> pathlib.Path:
    """Where ``url``'s file lives in the cache (see the module docstring).

    Args:
        url: an ``http(s)://`` URL.
        directory: the cache. Defaults to None (``pretrained_directory()``).

    Raises:
        URLError (a ValueError): a URL ``urls.checked_url`` refuses.
    """
    cache = pathlib.Path(pretrained_directory() if directory is None else directory)
    plain = _plain_parts(url)
    if plain is not None:
        path = cache.joinpath(*plain)
    else:
        normal = normal_url(url)
        name = normal.split("?")[0].rstrip("/").rpartition("/")[2]
        name = re.sub(r"[^A-Za-z0-9._-]", "_", urllib.parse.unquote(name)).lstrip(".")[:100] or "index"
        if name.endswith((SIDECAR_SUFFIX, LOCK_SUFFIX)):
            name += "_"
        path = cache / HASHED_DIRECTORY / hashlib.sha256(normal.encode("ascii")).hexdigest() / name
    if not is_inside(path, cache):  # by construction only through a symlink planted in the cache; proven here
        raise OutputOverwritesInputError(f"the cache entry of {shown_url(url)} resolves to {os.path.realpath(path)}, "
                                         f"outside the cache {cache} (a symlink in it?); remove the link")
    return path


def sidecar(path: pathlib.Path) -> pathlib.Path:
    """``NAME.sha256`` beside ``path``: its recorded SHA-256."""
    return path.with_name(path.name + SIDECAR_SUFFIX)


def lock_file(path: pathlib.Path) -> pathlib.Path:
    """``NAME.lock`` beside ``path``: held while it downloads."""
    return path.with_name(path.name + LOCK_SUFFIX)


def partial_prefix(path: pathlib.Path) -> str:
    """The prefix of ``path``'s partial downloads, ``.NAME.download-`` (``write_beside`` adds 8 characters and
    ``.tmp``)."""
    return f".{path.name}{PARTIAL_INFIX}"


def stale_partials(path: pathlib.Path) -> list[pathlib.Path]:
    """The partial downloads of ``path`` lying beside it (``.NAME.download-XXXXXXXX.tmp``); called with the entry's
    lock held, every one was left by a process that died (sorted)."""
    if not path.parent.is_dir():
        return []
    return sorted(entry for entry in path.parent.iterdir()
                  if (match := _PARTIAL_NAME.match(entry.name)) and match["name"] == path.name)


def refuse_cache_output(output: str | os.PathLike, what: str = "output") -> None:
    """Raise if writing ``output`` could destroy the download cache's files or bookkeeping: ``output`` lies inside
    the cache (``pretrained_directory()``), or is a record (``NAME.sha256``), lock (``NAME.lock``) or partial
    download (``.NAME.download-XXXXXXXX.tmp``) of a file beside it, wherever that is.

    Raises:
        OutputOverwritesInputError: naming ``output`` and what it is.
    """
    path = pathlib.Path(os.path.realpath(os.fspath(output)))
    cache = pretrained_directory()
    if is_inside(path, cache):
        raise OutputOverwritesInputError(f"{what} {os.fspath(output)} lies inside the download cache ({cache}), "
                                         "whose files and records only downloads write; choose a path outside it")
    for suffix, kind in ((SIDECAR_SUFFIX, "the SHA-256 record"), (LOCK_SUFFIX, "the download lock")):
        if path.name.endswith(suffix) and path.with_name(path.name[: -len(suffix)]).is_file():
            raise OutputOverwritesInputError(f"{what} {os.fspath(output)} is {kind} of {path.name[: -len(suffix)]} "
                                             "beside it, which guards that file; choose another output path")
    if _PARTIAL_NAME.match(path.name):
        raise OutputOverwritesInputError(f"{what} {os.fspath(output)} is named like a partial download "
                                         "(.NAME.download-XXXXXXXX.tmp); choose another output path")
