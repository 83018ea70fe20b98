"""Writing outputs without losing the user's files.

Two rules, used by the CLI, ``ElmoEmbedder.embed_file`` and model directories:

- **An output never replaces an input.** ``refuse_overwriting`` compares an output path with the files and
  directories a command reads (resolved: symlinks followed, hard links compared by inode) and raises before any
  work is done.
- **A directory is replaced in one step.** ``replace_directory`` moves a fully written staging directory into
  place: with Linux's ``renameat2(RENAME_EXCHANGE)`` the old and new directories swap in one atomic rename;
  elsewhere the old one is first renamed aside and restored if the second rename fails. Either way an
  interruption leaves the previous directory (or the new one) complete, never a mix of both.

A file is replaced in one step too: ``replace_file`` fills a temporary file beside it and renames it over the
target (``write_beside`` alone, for several files renamed together). Small JSON files (measurements, cached
results) are read with ``read_json_object`` and written with ``write_json_object``, which uses it; both live under
``user_cache_directory``.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import hashlib
import json
import os
import pathlib
import secrets
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping
from typing import Any, BinaryIO

PathLike = str | os.PathLike
RENAME_EXCHANGE = 2  # <linux/fs.h>
AT_FDCWD = -100  # <fcntl.h> on Linux
HASH_CHUNK_BYTES = 1 << 20  # file_sha256 reads files this many bytes at a time


class OutputOverwritesInputError(ValueError):
    """An output path is, or lies inside, a file or directory the same command reads."""


def _resolved(path: PathLike) -> pathlib.Path:
    return pathlib.Path(os.path.realpath(os.fspath(path)))


def is_same_file(first: PathLike, second: PathLike) -> bool:
    """Whether two paths name the same file: equal once resolved, or (both existing) the same inode."""
    if _resolved(first) == _resolved(second):
        return True
    try:
        return os.path.samefile(first, second)
    except OSError:  # one of them does not exist
        return False


def is_inside(path: PathLike, directory: PathLike) -> bool:
    """Whether ``path`` (resolved) is ``directory`` (resolved) or lies somewhere below it."""
    path, directory = _resolved(path), _resolved(directory)
    return path == directory or directory in path.parents


def refuse_overwriting(output: PathLike, files: Mapping[str, PathLike | None] | None = None,
                       directories: Mapping[str, PathLike | None] | None = None, what: str = "output") -> None:
    """Raise if writing ``output`` would replace one of ``files`` or write inside one of ``directories``.

    Args:
        output: the path about to be written.
        files: ``{description: path}`` of files read by the same command (``{"the weights file": ...}``);
            None values are skipped.
        directories: ``{description: path}`` of directories whose contents must not be touched.
        what: how the message names ``output`` (``"output"``, ``"output directory"``).

    Raises:
        OutputOverwritesInputError: naming both paths and how to fix it.
    """
    for description, path in (files or {}).items():
        if path is not None and is_same_file(output, path):
            raise OutputOverwritesInputError(
                f"{what} {os.fspath(output)} is {description} ({os.fspath(path)}), and writing it would destroy "
                "it; choose another output path"
            )
    for description, directory in (directories or {}).items():
        if directory is not None and is_inside(output, directory):
            raise OutputOverwritesInputError(
                f"{what} {os.fspath(output)} lies inside {description} ({os.fspath(directory)}), which must stay "
                "as it is; choose an output path outside it"
            )


def refuse_directory_holding(directory: PathLike, files: Mapping[str, PathLike | None]) -> None:
    """Raise if ``directory`` (about to be replaced as a whole) is or contains one of ``files``.

    Raises:
        OutputOverwritesInputError: naming the directory and the file.
    """
    for description, path in files.items():
        if path is not None and is_inside(path, directory):
            raise OutputOverwritesInputError(
                f"output directory {os.fspath(directory)} holds {description} ({os.fspath(path)}), and saving "
                "replaces the whole directory; choose another output directory or move the file out"
            )


# -- replacing a directory in one step ------------------------------------------------------------------------


def staging_directory(target: PathLike) -> pathlib.Path:
    """A new empty hidden sibling of ``target`` (``.NAME.saving-XXXXXXXX``) to write the replacement into.

    Created with ``os.mkdir``'s default mode, so it gets the permissions any new directory would (umask).
    """
    target = _resolved(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    while True:
        candidate = target.parent / f".{target.name}.saving-{secrets.token_hex(4)}"
        try:
            candidate.mkdir()
            return candidate
        except FileExistsError:
            continue


def replace_directory(staging: PathLike, target: PathLike) -> None:
    """Move the complete directory ``staging`` to ``target``, replacing any directory there in one step.

    ``staging`` must be a sibling of ``target`` (``staging_directory``): renames do not cross file systems.
    On return ``target`` holds what ``staging`` held and ``staging`` no longer exists; a previous ``target``
    has been deleted. If anything fails, the previous ``target`` is still in place.
    """
    staging, target = pathlib.Path(staging), _resolved(target)
    if not target.exists():
        os.rename(staging, target)  # atomic; also fine if another process created an empty target meanwhile
        return
    if _exchange(staging, target):
        shutil.rmtree(staging)  # now holds the previous contents
        return
    aside = target.parent / f".{target.name}.replaced-{secrets.token_hex(4)}"
    os.rename(target, aside)
    try:
        os.rename(staging, target)
    except BaseException:
        os.rename(aside, target)
        raise
    shutil.rmtree(aside)


def _exchange(first: pathlib.Path, second: pathlib.Path) -> bool:
    """Swap two paths atomically with ``renameat2(RENAME_EXCHANGE)``; False where the system cannot."""
    renameat2 = _renameat2()
    if renameat2 is None:
        return False
    result = renameat2(AT_FDCWD, os.fsencode(first), AT_FDCWD, os.fsencode(second), RENAME_EXCHANGE)
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):  # old kernel, or a file system without it
        return False
    raise OSError(code, os.strerror(code), os.fspath(second))


_RENAMEAT2 = []


def _renameat2():
    """glibc's ``renameat2`` (Linux, glibc ≥ 2.28), or None."""
    if not _RENAMEAT2:
        function = None
        if os.name == "posix":
            try:
                libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
                function = libc.renameat2
                function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
                function.restype = ctypes.c_int
            except (OSError, AttributeError):
                function = None
        _RENAMEAT2.append(function)
    return _RENAMEAT2[0]


def entries_other_than(directory: PathLike, allowed: Iterable[str]) -> list[str]:
    """Names in ``directory`` that are not in ``allowed`` (sorted; [] for a missing directory)."""
    directory = pathlib.Path(directory)
    if not directory.is_dir():
        return []
    allowed = set(allowed)
    return sorted(entry.name for entry in directory.iterdir() if entry.name not in allowed)


def user_cache_directory(environ: Mapping[str, str] | None = None) -> pathlib.Path:
    """``$XDG_CACHE_HOME/elmo_keras``, else ``~/.cache/elmo_keras`` (not created here)."""
    environ = os.environ if environ is None else environ
    cache = environ.get("XDG_CACHE_HOME") or str(pathlib.Path(environ.get("HOME", "~")) / ".cache")
    return pathlib.Path(cache).expanduser() / "elmo_keras"


def read_json_object(path: PathLike) -> dict | None:
    """The JSON object in ``path``, or None when the file is absent, unreadable, damaged or not an object."""
    try:
        data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


_UMASK = []


def new_file_mode() -> int:
    """The permissions a newly created file gets here (``0o666`` less the umask): what a file written through a
    private temporary file (``mkstemp``'s 0600) should be given before it is renamed into place.

    The umask is read once, at the first call, and cached: on Linux from ``/proc/self/status`` (which leaves it
    untouched), elsewhere by setting it and putting it back, which other threads must not see more than once. A
    later ``os.umask`` change in this process is not seen.
    """
    if not _UMASK:
        _UMASK.append(_current_umask())
    return 0o666 & ~_UMASK[0]


def _current_umask() -> int:
    with contextlib.suppress(OSError, ValueError):
        for line in pathlib.Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    umask = os.umask(0o077)
    os.umask(umask)
    return umask


def write_beside(target: PathLike, write: Callable[[BinaryIO], None], *, prefix: str | None = None,
                 fsync: bool = True) -> pathlib.Path:
    """Fill a new hidden temporary file beside ``target`` (``.NAME.XXXXXXXX.tmp``, or ``prefix`` + ``XXXXXXXX.tmp``)
    with ``write(handle)``, ready to be renamed over ``target`` (``replace_file``, or several at once).

    ``handle`` is the temporary file opened for binary reading and writing (``"w+b"``). Once ``write`` returns,
    the file is flushed, ``fsync``-ed (when ``fsync``; off for files one may lose, e.g. caches) and given the
    permissions a new file gets here (``new_file_mode``, not ``mkstemp``'s 0600).

    Returns:
        The temporary file's path.

    Raises:
        Whatever ``write`` raises, or ``OSError``: the directory cannot be created or written. No temporary file is
        left behind then.
    """
    target = pathlib.Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    descriptor, name = tempfile.mkstemp(dir=target.parent, prefix=prefix or f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w+b") as handle:
            write(handle)
            handle.flush()
            if fsync:
                os.fsync(handle.fileno())
        os.chmod(name, new_file_mode())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
    return pathlib.Path(name)


def replace_file(target: PathLike, write: Callable[[BinaryIO], None], *, prefix: str | None = None,
                 fsync: bool = True) -> None:
    """Write ``target`` in one rename: ``write(handle)`` fills a temporary file beside it (``write_beside``), which
    then replaces ``target``. A reader sees the previous file or the whole new one; if anything fails (``write``
    raises, a full disk, a directory in the way), the previous file stays as it was and no temporary file is left.

    Raises:
        Whatever ``write`` raises, or ``OSError``.
    """
    temporary = write_beside(target, write, prefix=prefix, fsync=fsync)
    try:
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_json_object(path: PathLike, data: Mapping[str, Any]) -> bool:
    """Write ``data`` as JSON into ``path`` in one rename (a reader sees the old file or the whole new one).

    Returns:
        False when the place cannot be written (the caller only loses a saving). Whatever fails (data that is not
        JSON raises its ``TypeError``), no temporary file is left behind and a previous file stays as it was.
    """
    text = json.dumps(data).encode("utf-8")
    try:
        replace_file(path, lambda handle: handle.write(text), fsync=False)  # a cache: losing it costs a recomputation
    except OSError:
        return False
    return True


def file_sha256(path: PathLike) -> str:
    """The hex SHA-256 of a file's bytes as stored, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(HASH_CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()
