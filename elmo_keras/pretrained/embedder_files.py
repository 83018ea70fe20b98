"""The files ``ElmoEmbedder.embed_file`` and ``merge_shards`` read and write: the sentence file checked and read, the
output path checked not to destroy anything read, and the HDF5 output written under a temporary name and renamed
into place (``writing_hdf5``), so that a failure never leaves a partial output behind.

The output layout is AllenNLP's ``elmo`` command's: one dataset per input line, named by its 0-based line index
(``"0"``, ``"1"``, ...), plus ``SENTENCE_TO_INDEX``, a 1-element string dataset holding JSON that maps each sentence
text to its dataset name.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Mapping

import h5py

from elmo_keras.safe_files import refuse_overwriting
from elmo_keras.text.sentence_files import sentence_lines

SENTENCE_TO_INDEX = "sentence_to_index"  # the dataset name AllenNLP's `elmo` command writes
EMPTY_INPUT = "{path} is empty: there is nothing to embed; give a file with one sentence per line"
PARTIAL_SUFFIX = ".partial"  # outputs are written as OUTPUT.partial, then renamed to OUTPUT


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
    not to destroy what is read: neither the output nor its temporary ``.partial`` file may be the input or one
    of ``source_files``, or lie inside one of ``source_directories`` (``{description: path}``, None skipped).

    Raises:
        FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError: see the two checks.
        OutputOverwritesInputError: the output would replace something read (both paths named).
    """
    input_file = check_input_file(input_file)
    output_file = check_output_file(output_file)
    refuse_overwriting_read_files(output_file, {"the input file": input_file, **source_files}, source_directories)
    return input_file, output_file


def refuse_overwriting_read_files(output_file: str, files: Mapping[str, str | os.PathLike | None],
                                  directories: Mapping[str, str | os.PathLike | None] | None = None) -> None:
    """Raise ``OutputOverwritesInputError`` if ``output_file`` or its ``.partial`` file is one of ``files`` or lies in
    one of ``directories`` (``{description: path}``, as ``safe_files.refuse_overwriting``)."""
    refuse_overwriting(output_file, files, directories)
    refuse_overwriting(output_file + PARTIAL_SUFFIX, files, directories, what="temporary output file")


def check_output_file(path: str | os.PathLike) -> str:
    """``path`` as a str, checked to be a file name that can be written (an existing file is replaced).

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
    """An HDF5 file open for writing as ``output_file + ".partial"``, renamed to ``output_file`` when the block ends
    without an error and deleted when it raises (Ctrl-C included): a reader never sees a partial output.

    Args:
        output_file: the final path, checked by the caller (``check_output_file``, ``refuse_overwriting_read_files``).
    """
    partial = output_file + PARTIAL_SUFFIX
    try:
        with h5py.File(partial, "w") as handle:
            yield handle
        os.replace(partial, output_file)
    finally:
        if os.path.exists(partial):
            os.remove(partial)


def write_sentence_to_index(handle: h5py.File, sentence_to_index: Mapping[str, str]) -> None:
    """``SENTENCE_TO_INDEX``: the 1-element UTF-8 string dataset of ``{sentence text: dataset name}`` as JSON."""
    dataset = handle.create_dataset(SENTENCE_TO_INDEX, (1,), dtype=h5py.string_dtype("utf-8"))
    dataset[0] = json.dumps(dict(sentence_to_index), ensure_ascii=False)


def read_sentence_to_index(handle: h5py.File) -> dict[str, str]:
    """The ``{sentence text: dataset name}`` mapping ``write_sentence_to_index`` wrote (KeyError: no such dataset)."""
    value = handle[SENTENCE_TO_INDEX][0]
    return json.loads(value.decode("utf-8") if isinstance(value, bytes) else value)
