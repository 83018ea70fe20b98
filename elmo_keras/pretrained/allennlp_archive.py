"""Reading an AllenNLP model archive (``model.tar.gz``, or the folder it extracts to) without extracting it.

An archive (AllenNLP's ``archive_model``) holds ``config.json``, ``weights.th`` (the model's ``state_dict``, read by
``torch_state_dict``) and ``vocabulary/``. ``open_allennlp_archive`` checks every tar member before reading any —
no absolute path, no ``..``, no link or device, at most ``MAX_MEMBERS`` of them, the two files read at most
``MAX_CONFIG_BYTES`` / ``MAX_WEIGHTS_BYTES`` — and reads the two files from the archive stream; nothing is written
to disk. ``read_allennlp_archive`` returns the parsed config and the tensors (``keep`` selects them: the softmax of
the released model, ~410 M of its ~465 M parameters, is skipped unread unless asked for).
"""

from __future__ import annotations

import contextlib
import json
import os
import posixpath
import tarfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np

from elmo_keras.pretrained.allennlp_config import ArchiveError
from elmo_keras.pretrained.torch_state_dict import read_torch_state_dict

CONFIG_NAME = "config.json"  # allennlp.models.archival.CONFIG_NAME
WEIGHTS_NAME = "weights.th"  # allennlp.models.archival._WEIGHTS_NAME
MAX_CONFIG_BYTES = 1 << 20  # a config is a few kB
MAX_WEIGHTS_BYTES = 16 << 30  # the released transformer ELMo's weights.th is 1.73 GB with its softmax
MAX_VOCABULARY_BYTES = 256 << 20  # a vocabulary file (the released model's 793,471 words: ~8 MB)
MAX_MEMBERS = 100_000  # config, weights and a vocabulary folder of a few files
MAX_DETAIL_CHARS = 200  # of a wrapped tarfile/zlib error in a one-line message
TAR_ERRORS = (tarfile.TarError, EOFError, zlib.error, OSError)  # what a damaged .tar(.gz) raises while read


@dataclass
class ArchiveFiles:
    """An open archive: ``config`` (the parsed ``config.json``), ``weights`` (a seekable binary file object over
    ``weights.th``, open while the ``open_allennlp_archive`` context lasts) and the names errors use."""

    config: dict
    weights: BinaryIO
    config_name: str
    weights_name: str


@contextlib.contextmanager
def open_allennlp_archive(path: str | os.PathLike) -> Iterator[ArchiveFiles]:
    """Open ``model.tar.gz`` (any tar compression) or its extracted folder, after checking its members.

    Raises:
        FileNotFoundError: no such file or folder.
        ArchiveError: not a tar archive, truncated, an unsafe member (absolute path, ``..``, a link, a device), a
            duplicated or missing ``config.json``/``weights.th``, a member over its size bound, a ``config.json``
            that is not JSON (each naming the archive and the member).
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        config_name, weights_name = os.path.join(path, CONFIG_NAME), os.path.join(path, WEIGHTS_NAME)
        for name, limit in ((config_name, MAX_CONFIG_BYTES), (weights_name, MAX_WEIGHTS_BYTES)):
            if not os.path.isfile(name):
                raise ArchiveError(path, os.path.basename(name), "is missing: an AllenNLP model folder holds "
                                                                 f"{CONFIG_NAME} and {WEIGHTS_NAME}")
            _check_size(path, os.path.basename(name), os.path.getsize(name), limit)
        with open(config_name, "rb") as handle:
            config = _parse_config(handle.read(), config_name)
        with open(weights_name, "rb") as weights:
            yield ArchiveFiles(config, weights, config_name, weights_name)
        return
    if not os.path.isfile(path):
        raise FileNotFoundError(f"AllenNLP model archive not found: {path}")
    try:
        archive = tarfile.open(path, mode="r:*")
    except TAR_ERRORS as error:
        raise ArchiveError(path, None, f"is not a readable tar archive ({_detail(error)}); an AllenNLP "
                                       "model is a model.tar.gz or its extracted folder") from None
    with archive:
        members = _checked_members(archive, path)
        config_name, weights_name = f"{path}:{CONFIG_NAME}", f"{path}:{WEIGHTS_NAME}"
        try:
            config = _parse_config(archive.extractfile(members[CONFIG_NAME]).read(MAX_CONFIG_BYTES), config_name)
            weights = archive.extractfile(members[WEIGHTS_NAME])
        except TAR_ERRORS as error:
            raise ArchiveError(path, None, f"cannot be read ({_detail(error)}): it is truncated or "
                                           "damaged; download it again") from None
        yield ArchiveFiles(config, weights, config_name, weights_name)


def read_allennlp_archive(path: str | os.PathLike,
                          keep: Callable[[str], bool] | None = None) -> tuple[dict, dict[str, np.ndarray], str]:
    """``(config, tensors, weights_name)`` of an AllenNLP archive: the parsed ``config.json``, the ``weights.th``
    tensors that ``keep(key)`` selects (all when None) as NumPy arrays, and the weights' name for errors.

    Raises:
        FileNotFoundError, ArchiveError: as ``open_allennlp_archive``.
        TorchFileError: ``weights.th`` is not a state dict of tensors, or is damaged (``read_torch_state_dict``).
    """
    with open_allennlp_archive(path) as files:
        return files.config, read_torch_state_dict(files.weights, files.weights_name, keep), files.weights_name


def read_archive_text(path: str | os.PathLike, name: str, limit: int = MAX_VOCABULARY_BYTES) -> str:
    """The UTF-8 text of the member ``name`` (e.g. ``"vocabulary/tokens.txt"``) of an AllenNLP archive or its folder,
    after the archive's members are checked as ``open_allennlp_archive`` checks them.

    Raises:
        FileNotFoundError: no such archive or folder.
        ArchiveError: the member is missing, not a regular file, over ``limit`` bytes or not UTF-8, or the archive is
            unsafe or damaged (naming the archive and the member).
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        file_name = os.path.join(path, *name.split("/"))
        if not os.path.isfile(file_name):
            raise ArchiveError(path, name, "is missing")
        _check_size(path, name, os.path.getsize(file_name), limit)
        with open(file_name, "rb") as handle:
            data = handle.read()
    else:
        with open_allennlp_archive(path):  # checks every member first
            pass
        with tarfile.open(path, mode="r:*") as archive:
            members = [member for member in archive if posixpath.normpath(member.name) == name]
            if len(members) != 1 or not members[0].isfile():
                raise ArchiveError(path, name, "is missing" if not members else "is not one regular file")
            _check_size(path, name, members[0].size, limit)
            data = archive.extractfile(members[0]).read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ArchiveError(path, name, f"is not UTF-8 text ({error.reason} at byte {error.start})") from None


def member_problem(member: tarfile.TarInfo) -> str | None:
    """Why a tar member is refused (``"is a symbolic link"``), or None for a safe file or folder inside the archive."""
    name = member.name
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return "has an absolute path"
    if ".." in name.replace("\\", "/").split("/"):
        return "has a '..' component (it would point outside the archive)"
    if member.issym() or member.islnk():
        return "is a link"
    if not (member.isfile() or member.isdir()):
        return "is a device, FIFO or other special file"
    return None


def _checked_members(archive: tarfile.TarFile, path: str) -> dict[str, tarfile.TarInfo]:
    """``{CONFIG_NAME, WEIGHTS_NAME} → member`` after checking every member of ``archive`` (``member_problem``)."""
    found: dict[str, tarfile.TarInfo] = {}
    try:
        for count, member in enumerate(archive, start=1):
            if count > MAX_MEMBERS:
                raise ArchiveError(path, None, f"has more than {MAX_MEMBERS:,} members: not an AllenNLP model archive")
            problem = member_problem(member)
            if problem:
                raise ArchiveError(path, member.name, f"{problem}: refused (an AllenNLP archive holds only plain "
                                                      "files and folders)")
            name = posixpath.normpath(member.name)
            if name in (CONFIG_NAME, WEIGHTS_NAME):
                if name in found:
                    raise ArchiveError(path, name, "appears twice in the archive: refused as ambiguous")
                if not member.isfile():
                    raise ArchiveError(path, name, "is not a regular file")
                _check_size(path, name, member.size, MAX_CONFIG_BYTES if name == CONFIG_NAME else MAX_WEIGHTS_BYTES)
                found[name] = member
    except TAR_ERRORS as error:
        raise ArchiveError(path, None, f"cannot be read ({_detail(error)}): it is truncated or "
                                       "damaged; download it again") from None
    for name in (CONFIG_NAME, WEIGHTS_NAME):
        if name not in found:
            raise ArchiveError(path, name, f"is missing: an AllenNLP model archive holds {CONFIG_NAME} and "
                                           f"{WEIGHTS_NAME} at its top level")
    return found


def _detail(error: BaseException) -> str:
    """``"Type: message"`` on one line, cut to ``MAX_DETAIL_CHARS``."""
    return " ".join(f"{type(error).__name__}: {error}".split())[:MAX_DETAIL_CHARS]


def _check_size(path: str, name: str, size: int, limit: int) -> None:
    if size > limit:
        raise ArchiveError(path, name, f"has {size:,} bytes, more than the {limit:,} an AllenNLP model's {name} can "
                                       "have: refused")


def _parse_config(data: bytes, name: str) -> dict:
    try:
        config = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise ArchiveError(name, None, f"is not JSON ({_detail(error)})") from None
    if not isinstance(config, dict):
        raise ArchiveError(name, None, f"must hold a JSON object, received {type(config).__name__}")
    return config
