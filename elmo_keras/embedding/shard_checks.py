"""What ``merge_shards`` checks in a shard file before it uses any of it (``embedding.shards``).

- **The record** (``record_values``): every root attribute ``elmo_keras_shard_<field>`` is read as the type
  ``embed --shard`` writes (a whole number, not a float such as 1.9, a bool or a string; a 64-digit hex SHA-256; an
  output format) and checked against what the run could have written: ``1 <= N <= limits.MAX_SHARDS``,
  ``1 <= K <= N``, ``1 <= batch_size <= limits.MAX_BATCH_SIZE``, ``block_lines = batch_size × SORT_WINDOW_BATCHES``,
  ``input_lines >= 1``, and the ``first_line`` / ``stop_line`` attributes equal to the lines the record gives.
- **The contents** (``check_shard_contents``), names and metadata only, before any data is read: the file holds as
  many members as the record gives it lines (counted before any line is enumerated, so a record claiming 10**12
  lines costs nothing), exactly the datasets of its lines and ``sentence_to_index``; each is a plain dataset (a hard
  link, not a group, a soft or external link, a virtual dataset or one with external storage), of float32 as
  ``embed`` writes it, of rank 3 ``(layers, tokens, dim)`` for ``--all`` and 2 ``(tokens, dim)`` for ``--top`` /
  ``--average``, ``tokens >= 1``, ``layers`` and ``dim`` the same in every dataset of every shard, stored whole and
  contiguous (its bytes in the file, so that reading it needs no more memory than the file's size);
  ``sentence_to_index`` is a 1-element string dataset of JSON text, an object mapping each sentence to a distinct
  dataset of the shard's lines that has as many tokens as the sentence.
- **The values** (``finite_values``), as they are copied: every number finite (no NaN, no infinity).

Every failure is one ``ShardFileError`` (a ``ValueError``) naming the file and the attribute or dataset, ending in
how to fix it.
"""

from __future__ import annotations

import json
import re

import h5py
import numpy as np

from elmo_keras.embedding.embedder_files import SENTENCE_TO_INDEX
from elmo_keras.limits import MAX_BATCH_SIZE, MAX_SHARDS

INT_FIELDS = ("k", "n", "input_lines", "block_lines", "batch_size")
TEXT_FIELDS = ("input_sha256", "output_format")
LAYOUT_RANKS = {"all": 3, "top": 2, "average": 2}  # the rank of a line's dataset for each output format
LAYOUT_SHAPES = {3: "(layers, tokens, dim)", 2: "(tokens, dim)"}
FIX = "embed it again (embed --shard K/N)"
_SHA256 = re.compile(r"[0-9a-f]{64}")
_READ_ERRORS = (OSError, KeyError, RuntimeError, TypeError, ValueError)  # what h5py raises for damaged objects


class ShardFileError(ValueError):
    """A shard file that cannot be merged: one line naming the file and what is wrong in it."""


def record_values(path: str, attributes, prefix: str, window_batches: int) -> dict:
    """The shard record's fields (``INT_FIELDS`` as int, ``TEXT_FIELDS`` as str) read from ``attributes`` (a root
    ``AttributeManager``) and checked (module docstring).

    Args:
        path: the shard file, for the messages.
        attributes: its root attributes.
        prefix: the attributes' prefix (``shards.ATTRIBUTE_PREFIX``).
        window_batches: ``shards.SORT_WINDOW_BATCHES``: ``block_lines`` must be ``batch_size`` times it.

    Raises:
        ShardFileError (a ValueError): an attribute missing (the file is no shard), unreadable, of the wrong type
            or out of range.
    """
    values = {}
    for field in INT_FIELDS + TEXT_FIELDS:
        name = prefix + field
        if name not in attributes:
            raise ShardFileError(f"{path} is not a shard written by embed --shard K/N (it has no {name} attribute); "
                                 "only shards can be merged")
        value = _attribute(path, attributes, name)
        values[field] = whole_number(path, name, value) if field in INT_FIELDS else _text(path, name, value)
    k, n = values["k"], values["n"]
    _in_range(path, prefix + "n", n, 1, MAX_SHARDS, "a number of shards")
    _in_range(path, prefix + "k", k, 1, n, f"a shard number of N = {n}")
    _in_range(path, prefix + "batch_size", values["batch_size"], 1, MAX_BATCH_SIZE, "a batch size")
    _in_range(path, prefix + "input_lines", values["input_lines"], 1, 2**63 - 1, "a number of lines")
    if values["block_lines"] != values["batch_size"] * window_batches:
        raise ShardFileError(f"{path}: its attribute {prefix}block_lines is {values['block_lines']:,}, but embed "
                             f"--shard writes --batch-size × {window_batches} = "
                             f"{values['batch_size'] * window_batches:,}; {FIX}")
    if not _SHA256.fullmatch(values["input_sha256"]):
        raise ShardFileError(f"{path}: its attribute {prefix}input_sha256 is {values['input_sha256']!r:.80}, not a "
                             f"SHA-256 (64 hex digits); {FIX}")
    if values["output_format"] not in LAYOUT_RANKS:
        raise ShardFileError(f"{path}: its attribute {prefix}output_format is {values['output_format']!r:.80}, not one "
                             f"of {', '.join(LAYOUT_RANKS)}; {FIX}")
    return values


def check_line_range(path: str, attributes, prefix: str, lines: range) -> None:
    """The ``first_line`` / ``stop_line`` attributes (written for people reading the file), where present, equal
    the lines the record gives.

    Raises:
        ShardFileError (a ValueError): naming the attribute.
    """
    for field, expected in (("first_line", lines.start), ("stop_line", lines.stop)):
        name = prefix + field
        if name in attributes and whole_number(path, name, _attribute(path, attributes, name)) != expected:
            shown = _shown(_attribute(path, attributes, name))
            raise ShardFileError(f"{path}: its attribute {name} is {shown}, but its other attributes give the shard "
                                 f"lines {lines.start}–{lines.stop - 1}; {FIX}")


def whole_number(path: str, name: str, value) -> int:
    """``value`` (an attribute) as an int: an int or NumPy integer scalar, not a bool, float or array.

    Raises:
        ShardFileError (a ValueError): naming the file and attribute.
    """
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    raise ShardFileError(f"{path}: its attribute {name} is {_shown(value)} ({type(value).__name__}), not a whole "
                         f"number; {FIX}")


def _text(path: str, name: str, value) -> str:
    if isinstance(value, (bytes, np.bytes_)):
        try:
            return bytes(value).decode("ascii")
        except UnicodeDecodeError:
            pass
    elif isinstance(value, str):
        return value
    raise ShardFileError(f"{path}: its attribute {name} is {_shown(value)} ({type(value).__name__}), not a text; "
                         f"{FIX}")


def _shown(value) -> str:
    """An attribute's value for a message: a NumPy scalar as its Python value, an array by its shape, cut short."""
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape}"
    if isinstance(value, np.generic):
        value = value.item()
    return f"{value!r:.60}"


def _attribute(path: str, attributes, name: str):
    try:
        return attributes[name]
    except _READ_ERRORS as error:
        raise ShardFileError(f"{path}: its attribute {name} cannot be read ({type(error).__name__}: {error}); "
                             f"{FIX}") from None


def _in_range(path: str, name: str, value: int, low: int, high: int, what: str) -> None:
    if not low <= value <= high:
        raise ShardFileError(f"{path}: its attribute {name} is {value:,}, not {what} ({low:,} to {high:,}); {FIX}")


def check_shard_contents(path: str, source: h5py.File, label: str, lines: range, output_format: str,
                         layout: dict) -> dict[str, str]:
    """Check the members of the shard file ``source`` (module docstring) and return its ``sentence_to_index``.

    Args:
        path: the file, for the messages; label: ``"shard K/N"``.
        lines: the 0-based lines its record gives it.
        output_format: the record's (``LAYOUT_RANKS``).
        layout: ``{}`` before the first shard of a merge; filled with the ``layers`` / ``dim`` of the first dataset
            seen (and where it was seen), which every later dataset must share.

    Raises:
        ShardFileError (a ValueError): naming the file and the dataset.
    """
    count = lines.stop - lines.start
    members = _read(path, "its root group", lambda: len(source))
    if count > members:  # before enumerating the lines: a hostile record may claim 10**12 of them
        raise ShardFileError(f"{path} ({label}) should hold the datasets of its {count:,} lines "
                             f"{lines.start}–{lines.stop - 1} and {SENTENCE_TO_INDEX}, but it holds {members:,} "
                             "members; embed it again")
    expected = {str(index) for index in lines} | {SENTENCE_TO_INDEX}
    names = set(_read(path, "its root group", lambda: list(source)))
    if names != expected:
        extra, absent = sorted(names - expected), sorted(expected - names)
        raise ShardFileError(f"{path} ({label}) should hold the datasets of lines "
                             f"{lines.start}–{lines.stop - 1} and {SENTENCE_TO_INDEX}; it "
                             + (f"lacks {absent[:3]}" if absent else f"also holds {extra[:3]}") + "; embed it again")
    rank = LAYOUT_RANKS[output_format]
    shapes = {}
    for line in lines:
        name = str(line)
        shapes[name] = _read(path, name, lambda: _line_shape(path, source, name, rank, output_format, layout))
    sentence_to_index = _read(path, SENTENCE_TO_INDEX, lambda: _sentence_to_index(path, source))
    seen = {}
    for text, name in sentence_to_index.items():
        if name not in shapes:
            raise ShardFileError(f"{path}: its {SENTENCE_TO_INDEX} maps {text!r:.40} to {name!r:.20}, not a dataset of "
                                 f"its lines {lines.start}–{lines.stop - 1}; embed it again")
        if name in seen:
            raise ShardFileError(f"{path}: its {SENTENCE_TO_INDEX} maps both {seen[name]!r:.40} and {text!r:.40} to "
                                 f"dataset {name}; embed it again")
        seen[name] = text
        tokens = len(text.split())
        if shapes[name][-2] != tokens:
            raise ShardFileError(f"{path}: dataset {name} has {shapes[name][-2]} tokens, but its sentence {text!r:.40} "
                                 f"has {tokens}; embed it again")
    return sentence_to_index


def finite_values(path: str, dataset: h5py.Dataset) -> np.ndarray:
    """The values of a checked line dataset, read whole.

    Raises:
        ShardFileError (a ValueError): a NaN or an infinity among them (naming the file and dataset).
    """
    values = _read(path, dataset.name.lstrip("/"), lambda: dataset[...])
    if not np.isfinite(values).all():
        raise ShardFileError(f"{path}: dataset {dataset.name.lstrip('/')} holds NaN or infinite values, which embed "
                             "never writes for a working model; check the model's weights and embed it again")
    return values


def _read(path: str, name: str, read):
    """``read()``, an error of h5py's (a damaged or hostile object) made one line naming the file and the member."""
    try:
        return read()
    except ShardFileError:
        raise
    except _READ_ERRORS as error:
        raise ShardFileError(f"{path}: {name} cannot be read ({type(error).__name__}: {error}); embed it "
                             "again") from None


def _plain_dataset(path: str, source: h5py.File, name: str) -> h5py.Dataset:
    """``source[name]``, checked to be a dataset held in the file itself."""
    link = source.get(name, getlink=True)
    if not isinstance(link, h5py.HardLink):
        raise ShardFileError(f"{path}: {name} is a link ({type(link).__name__}), not a dataset held in the file as "
                             "embed writes it; embed it again")
    item = source[name]
    if not isinstance(item, h5py.Dataset):
        raise ShardFileError(f"{path}: {name} is a {type(item).__name__}, not a dataset as embed writes it; embed it "
                             "again")
    if item.is_virtual or item.external:
        raise ShardFileError(f"{path}: dataset {name} keeps its data in other files (virtual or external storage), "
                             "which embed never writes; embed it again")
    return item


def _line_shape(path: str, source: h5py.File, name: str, rank: int, output_format: str,
                layout: dict) -> tuple[int, ...]:
    """The shape of line dataset ``name``, checked: float32, ``rank``, ``layout``'s layers and dim, stored whole."""
    item = _plain_dataset(path, source, name)
    shape = item.shape
    if item.dtype != np.float32 or shape is None or len(shape) != rank or shape[-2] < 1 or shape[-1] < 1:
        raise ShardFileError(f"{path}: dataset {name} is {item.dtype} of shape {shape}, but --{output_format} shards "
                             f"hold float32 arrays of shape {LAYOUT_SHAPES[rank]} with at least one token; embed it "
                             "again")
    if item.chunks is not None or item.id.get_storage_size() != item.nbytes:
        raise ShardFileError(f"{path}: dataset {name} is not stored whole and contiguous as embed writes it (its "
                             f"{item.nbytes:,} bytes are not all in the file); embed it again")
    wide = (shape[0], shape[-1]) if rank == 3 else (None, shape[-1])
    if not layout:
        layout.update(wide=wide, where=f"{path} dataset {name}")
    elif layout["wide"] != wide:
        expected = layout["wide"]
        described = (f"({expected[0]}, tokens, {expected[1]})" if rank == 3 else f"(tokens, {expected[1]})")
        raise ShardFileError(f"{path}: dataset {name} has shape {shape}, but the shards' vectors are {described} (as "
                             f"{layout['where']}): shards of another model; embed it again with the same model")
    return shape


def _sentence_to_index(path: str, source: h5py.File) -> dict[str, str]:
    """``sentence_to_index``, checked: a 1-element string dataset holding a JSON object of str → str."""
    item = _plain_dataset(path, source, SENTENCE_TO_INDEX)
    if item.shape != (1,) or h5py.check_string_dtype(item.dtype) is None:
        raise ShardFileError(f"{path}: {SENTENCE_TO_INDEX} is {item.dtype} of shape {item.shape}, not the 1-element "
                             "string dataset embed writes; embed it again")
    value = item[0]
    try:
        text = value.decode("utf-8") if isinstance(value, bytes) else value
        index = json.loads(text)
    except (UnicodeDecodeError, ValueError) as error:
        raise ShardFileError(f"{path}: {SENTENCE_TO_INDEX} is not JSON text ({type(error).__name__}: {error}); embed "
                             "it again") from None
    if not isinstance(index, dict) or not all(isinstance(key, str) and isinstance(value, str)
                                              for key, value in index.items()):
        raise ShardFileError(f"{path}: {SENTENCE_TO_INDEX} is not a JSON object of sentence → dataset name (both "
                             "strings); embed it again")
    return index
