"""The files ``ElmoEmbedder.embed_file`` and ``merge_shards`` read and write: the sentence file checked and read, the
output path checked not to destroy anything (``check_output_destroys_nothing``), and the HDF5 output written under
a temporary name of its own and renamed into place (``writing_hdf5``), so that a failure never leaves a partial
output behind and two writers of one output never destroy each other.

The output layout is AllenNLP's ``elmo`` command's: one dataset per input line, named by its 0-based line index
(``"0"``, ``"1"``, ...), plus ``SENTENCE_TO_INDEX``, a 1-element string dataset holding JSON that maps each sentence
text to its dataset name. Every file ``writing_hdf5`` writes (``embed``, ``embed --shard``, ``merge-shards``) also
carries the root attribute ``OUTPUT_ATTRIBUTE = OUTPUT_MARK`` (``elmo_keras_output = "embed"``).

**Which existing outputs may be replaced** (``is_embed_output``): one of ours, i.e. an HDF5 file with that
attribute, or (files written before it existed, and AllenNLP's) an HDF5 file whose root holds a
``sentence_to_index`` dataset and otherwise only datasets named by decimal line numbers; or an empty
(0-byte) file, which holds nothing to lose. Anything else (a corpus, a weight file, notes) is refused in one line:
replacing it would destroy it.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import tempfile
from collections.abc import Iterable, Iterator, Mapping

import h5py
import numpy as np

from elmo_keras.pretrained.cache_layout import refuse_cache_output
from elmo_keras.safe_files import OutputOverwritesInputError, file_sha256, new_file_mode, refuse_overwriting
from elmo_keras.text.sentence_files import sentence_lines

try:
    import fcntl
except ImportError:  # not POSIX: stale partial files are then left for the user to delete
    fcntl = None

SENTENCE_TO_INDEX = "sentence_to_index"  # the dataset name AllenNLP's `elmo` command writes
EMPTY_INPUT = "{path} is empty: there is nothing to embed; give a file with one sentence per line"
PARTIAL_SUFFIX = ".partial"  # outputs are written as .OUTPUT.XXXXXXXX.partial beside OUTPUT, then renamed to it
OUTPUT_ATTRIBUTE = "elmo_keras_output"  # root attribute of every file writing_hdf5 writes
OUTPUT_MARK = "embed"  # its value: the embed command's layout (embed, embed --shard and merge-shards write it)
OUTPUT_FORMATS = ("all", "top", "average")  # every layer, the top one, their mean
_LINE_NAME = re.compile(r"[0-9]+")
_ANY_PARTIAL_NAME = re.compile(rf"\..+\.[a-z0-9_]{{8}}{re.escape(PARTIAL_SUFFIX)}")  # writing_hdf5's, of any output


def read_sentence_file(path: str | os.PathLike) -> list[str]:
    """The sentences of ``embed``'s input file, one per line: its lines as ``text.sentence_files`` reads them (UTF-8,
    ``.gz`` read as gzip, a leading byte-order mark dropped, lines ended as ``str.splitlines()`` ends them, each
    without the white space around it), blank lines refused, so that line ``i + 1`` is the output's dataset ``"i"``.

    One rule for empty input: a file must hold at least one sentence, and every line must hold one, so an
    empty file is refused like a file with a blank line (nothing is written for either).

    Raises:
        FileNotFoundError: no such file.
        IsADirectoryError: ``path`` is a directory.
        ValueError: an empty file; ``SentenceFileError`` (a ValueError) naming the file and the line: a blank line, a
            line that is not UTF-8 or longer than ``MAX_LINE_BYTES`` (1 MiB), or a damaged ``.gz`` file.
    """
    path = check_input_file(path)
    texts = [text for _, text in sentence_lines(path, blank_lines="refuse")]
    if not texts:  # a byte-order mark alone, or a .gz file of no text
        raise ValueError(EMPTY_INPUT.format(path=path))
    return texts


def check_input_file(path: str | os.PathLike) -> str:
    """``path`` as a str, checked to be an existing, non-empty file (not a directory).

    Raises:
        FileNotFoundError: no such file.
        IsADirectoryError: ``path`` is a directory.
        ValueError: the file is empty (0 bytes; see ``read_sentence_file`` for blank lines).
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        raise IsADirectoryError(f"input {path} is a directory; pass a text file with one sentence per line")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"input file not found: {path}")
    if os.path.getsize(path) == 0:
        raise ValueError(EMPTY_INPUT.format(path=path))
    return path


def check_embed_paths(input_file, output_file, source_files: Mapping[str, str | os.PathLike | None],
                      source_directories: Mapping[str, str | os.PathLike | None]) -> tuple[str, str]:
    """``(input_file, output_file)`` as str, checked (``check_input_file``, ``check_output_file``) and checked
    not to destroy anything (``check_output_destroys_nothing``): the output may not be the input or one of
    ``source_files``, lie inside one of ``source_directories`` (``{description: path}``, None skipped) or the
    download cache, be a cache record, lock or partial download, or be an existing file that is not an output of
    ours (a text file given as the output is refused, not replaced).

    Raises:
        FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError: see the two checks.
        OutputOverwritesInputError: the output would replace something that must stay (both paths named).
    """
    input_file = check_input_file(input_file)
    output_file = check_output_file(output_file)
    check_output_destroys_nothing(output_file, {"the input file": input_file, **source_files}, source_directories)
    return input_file, output_file


def check_output_destroys_nothing(output_file: str, files: Mapping[str, str | os.PathLike | None],
                                  directories: Mapping[str, str | os.PathLike | None] | None = None,
                                  input_sha256: str | None = None) -> None:
    """Every check that writing ``output_file`` destroys nothing, before any work starts: it is none of ``files``
    and lies in none of ``directories`` (``refuse_overwriting_read_files``), it is no part of the download cache
    (``cache_layout.refuse_cache_output``), it is not named like a temporary file of ``writing_hdf5``, and an
    existing file there is an output of ours (``refuse_foreign_output``; ``input_sha256``: the SHA-256 of the input
    the output was made from, to name a copy of it as such).

    Raises:
        OutputOverwritesInputError: one line naming the output, what it is and how to fix it.
    """
    refuse_overwriting_read_files(output_file, files, directories)
    refuse_cache_output(output_file)
    if _ANY_PARTIAL_NAME.fullmatch(os.path.basename(output_file)):  # another writer's, which it will rename away
        raise OutputOverwritesInputError(
            f"output {output_file} is named like the temporary file of another output (.NAME.XXXXXXXX"
            f"{PARTIAL_SUFFIX}), which a run writing NAME owns; choose another output path")
    refuse_foreign_output(output_file, input_sha256)


def refuse_overwriting_read_files(output_file: str, files: Mapping[str, str | os.PathLike | None],
                                  directories: Mapping[str, str | os.PathLike | None] | None = None) -> None:
    """Raise ``OutputOverwritesInputError`` if ``output_file`` is one of ``files`` or lies in one of ``directories``
    (``{description: path}``, as ``safe_files.refuse_overwriting``), or if one of ``files`` is named like a
    temporary file of ``output_file`` (``.NAME.XXXXXXXX.partial`` beside it), which ``writing_hdf5`` deletes when
    no process holds it. The temporary file itself is new (created exclusively), so it can replace nothing."""
    refuse_overwriting(output_file, files, directories)
    for description, path in files.items():
        if path is not None and is_partial_of(path, output_file):
            raise OutputOverwritesInputError(
                f"{description} {os.fspath(path)} is named like a temporary file of the output {output_file} "
                f"(.NAME.XXXXXXXX{PARTIAL_SUFFIX}), which writing the output deletes when no process is writing it; "
                "rename it or choose another output path")


def is_partial_of(path: str | os.PathLike, output_file: str | os.PathLike) -> bool:
    """Whether ``path`` is named like a temporary file ``writing_hdf5`` makes for ``output_file``, beside it."""
    path, output_file = os.path.abspath(os.fspath(path)), os.path.abspath(os.fspath(output_file))
    same_directory = os.path.realpath(os.path.dirname(path)) == os.path.realpath(os.path.dirname(output_file))
    return same_directory and _partial_name(os.path.basename(output_file)).fullmatch(os.path.basename(path)) is not None


def _partial_name(output_name: str) -> re.Pattern:
    """``.NAME.XXXXXXXX.partial`` (``tempfile``'s 8 characters) for the output file name ``NAME``."""
    return re.compile(rf"\.{re.escape(output_name)}\.[a-z0-9_]{{8}}{re.escape(PARTIAL_SUFFIX)}")


def is_embed_output(path: str | os.PathLike) -> bool:
    """Whether the existing file ``path`` is an output of ours that may be replaced (the module docstring says
    which): the ``OUTPUT_ATTRIBUTE`` attribute, or the embed layout of an older (or AllenNLP's) file, or 0 bytes.
    Only an attribute, or the root's names and kinds, are read, not the data."""
    path = os.fspath(path)
    if os.path.getsize(path) == 0:
        return True
    if not h5py.is_hdf5(path):
        return False
    try:
        with h5py.File(path, "r") as handle:
            if handle.attrs.get(OUTPUT_ATTRIBUTE) == OUTPUT_MARK:
                return True
            names = list(handle)
            return (SENTENCE_TO_INDEX in names and all(
                (name == SENTENCE_TO_INDEX or _LINE_NAME.fullmatch(name))
                and handle.get(name, getclass=True) is h5py.Dataset for name in names))
    except (OSError, KeyError, RuntimeError, TypeError, ValueError):  # a damaged file: not known to be ours
        return False


def refuse_foreign_output(output_file: str, input_sha256: str | None = None) -> None:
    """Raise unless ``output_file`` is absent or an output of ours (``is_embed_output``).

    Args:
        output_file: the path about to be written.
        input_sha256: hex SHA-256 of the input the output is made from (a shard's record), or None; a foreign
            output holding exactly that content is named as the input (``merge-shards CORPUS SHARD...``, the
            output forgotten).

    Raises:
        OutputOverwritesInputError: naming the file and how to fix it.
    """
    if not os.path.isfile(output_file) or is_embed_output(output_file):
        return
    if input_sha256 is not None and file_sha256(output_file) == input_sha256:
        raise OutputOverwritesInputError(
            f"output {output_file} is the input the shards were embedded from (its SHA-256 is the one they record), "
            "and writing it would destroy it; give the output file first: merge-shards OUTPUT SHARD...")
    raise OutputOverwritesInputError(
        f"output {output_file} exists and is not an HDF5 file written by embed or merge-shards, so writing it "
        "would destroy it; choose another output path, or delete the file first if it is not needed")


def check_output_file(path: str | os.PathLike) -> str:
    """``path`` as a str, checked to be a file name that can be written (whether an existing file there may be
    replaced is ``check_output_destroys_nothing``'s question).

    Raises:
        IsADirectoryError: ``path`` is a directory.
        FileNotFoundError: its directory does not exist.
        NotADirectoryError: its directory is a file.
        PermissionError: its directory is not writable.
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        raise IsADirectoryError(
            f"output {path} is a directory; give the HDF5 file to write, e.g. {os.path.join(path, 'elmo.hdf5')}"
        )
    directory = os.path.dirname(path) or os.curdir
    if not os.path.exists(directory):
        raise FileNotFoundError(f"output directory {directory} does not exist; create it or choose another output")
    if not os.path.isdir(directory):
        raise NotADirectoryError(f"cannot write {path}: {directory} is a file, not a directory")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise PermissionError(f"cannot write {path}: no permission to write in {directory}")
    return path


@contextlib.contextmanager
def writing_hdf5(output_file: str) -> Iterator[h5py.File]:
    """An HDF5 file open for writing under a temporary name of its own beside ``output_file``
    (``.NAME.XXXXXXXX.partial``, created exclusively), renamed to ``output_file`` when the block ends without an
    error and deleted when it raises (Ctrl-C included): a reader never sees a partial output. The file carries the
    root attribute ``OUTPUT_ATTRIBUTE`` from the start.

    Two writers of one output each write their own temporary file; each rename is atomic, so ``output_file`` is
    always the previous file or one writer's complete file (the last to finish wins), and a failing writer deletes
    only its own temporary file. Where ``fcntl`` exists, the writer holds an ``flock`` on its temporary file while it
    writes, and the temporary files of ``output_file`` that no process holds (left by a killed run) are deleted when
    the next write of it starts.

    Args:
        output_file: the final path, checked by the caller (``check_output_file``, ``check_output_destroys_nothing``).
    """
    _remove_stale_partials(output_file)
    descriptor, partial = _new_partial(output_file)
    try:
        os.chmod(partial, new_file_mode())  # mkstemp's 0600 → what any new file gets here
        # HDF5's own lock is off: the flock on ``descriptor`` (another open file) marks the file as being written
        with h5py.File(partial, "w", locking=False) as handle:
            handle.attrs[OUTPUT_ATTRIBUTE] = OUTPUT_MARK
            yield handle
        os.replace(partial, output_file)
    finally:
        with contextlib.suppress(FileNotFoundError):
            if _holds(descriptor, partial):  # still ours at that name: not yet renamed
                os.unlink(partial)
        os.close(descriptor)


def _new_partial(output_file: str) -> tuple[int, str]:
    """A new temporary file beside ``output_file`` and an open descriptor of it, locked (``flock``) where possible."""
    directory, name = os.path.dirname(output_file) or os.curdir, os.path.basename(output_file)
    while True:
        descriptor, partial = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=PARTIAL_SUFFIX)
        if fcntl is not None:
            _lock(descriptor, blocking=True)  # None (no locks on this file system): unlocked, never taken for stale
        if _holds(descriptor, partial):
            return descriptor, partial
        os.close(descriptor)  # another run took it for stale in the instant before the lock, and deleted it: again


def _lock(descriptor: int, blocking: bool) -> bool | None:
    """``flock(LOCK_EX)``: True when held, False when another process holds it, None where the file system has no
    locks."""
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
    except OSError as error:
        if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return False
        return None
    return True


def _holds(descriptor: int, path: str) -> bool:
    """Whether ``path`` is still the file open as ``descriptor``."""
    try:
        return os.path.samestat(os.fstat(descriptor), os.lstat(path))
    except FileNotFoundError:
        return False


def _remove_stale_partials(output_file: str) -> None:
    """Delete the temporary files of ``output_file`` that no process is writing (their ``flock`` is free)."""
    if fcntl is None:
        return
    directory, pattern = os.path.dirname(output_file) or os.curdir, _partial_name(os.path.basename(output_file))
    try:
        with os.scandir(directory) as entries:
            stale = [entry.path for entry in entries
                     if pattern.fullmatch(entry.name) and entry.is_file(follow_symlinks=False)]
    except OSError:
        return
    for path in stale:
        try:
            descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            continue
        try:
            if _lock(descriptor, blocking=False) and _holds(descriptor, path):  # free: its writer is gone
                os.unlink(path)
        except OSError:
            pass
        finally:
            os.close(descriptor)


def check_output_format(output_format: str) -> str:
    """``output_format``, checked to be one of ``OUTPUT_FORMATS`` (ValueError naming the value received)."""
    if output_format not in OUTPUT_FORMATS:
        raise ValueError(f"output_format must be one of {OUTPUT_FORMATS}, received {output_format!r}")
    return output_format


def output_vectors(vectors: np.ndarray, output_format: str) -> np.ndarray:
    """One sentence's `(num_layers, tokens, dim)` vectors as the output stores them: as they are for ``"all"``, the
    top layer `(tokens, dim)` for ``"top"``, the mean of the layers `(tokens, dim)` for ``"average"``."""
    if output_format == "top":
        return vectors[-1]
    if output_format == "average":
        return vectors.mean(axis=0)
    return vectors


def write_embedded(handle: h5py.File, embedded: Iterable[tuple[int, str, np.ndarray]]) -> None:
    """The output's content (the module docstring's layout): ``(line index, sentence text, vectors)`` in line order,
    each vectors already in its output format (``output_vectors``), one dataset each named by its index, then
    ``SENTENCE_TO_INDEX`` (a sentence on several lines maps to its last)."""
    sentence_to_index: dict[str, str] = {}
    for index, text, vectors in embedded:
        key = str(index)
        handle.create_dataset(key, data=vectors)
        sentence_to_index[text] = key
    write_sentence_to_index(handle, sentence_to_index)


def write_sentence_to_index(handle: h5py.File, sentence_to_index: Mapping[str, str]) -> None:
    """``SENTENCE_TO_INDEX``: the 1-element UTF-8 string dataset of ``{sentence text: dataset name}`` as JSON."""
    dataset = handle.create_dataset(SENTENCE_TO_INDEX, (1,), dtype=h5py.string_dtype("utf-8"))
    dataset[0] = json.dumps(dict(sentence_to_index), ensure_ascii=False)


def read_sentence_to_index(handle: h5py.File) -> dict[str, str]:
    """The ``{sentence text: dataset name}`` mapping ``write_sentence_to_index`` wrote (KeyError: no such dataset)."""
    value = handle[SENTENCE_TO_INDEX][0]
    return json.loads(value.decode("utf-8") if isinstance(value, bytes) else value)
