"""Embedding one input file as N shards (several processes or machines) and merging them into one output.

**Numbering.** Shard ``K`` of ``N`` is 1-based everywhere: ``K = 1 … N``, written ``K/N`` on the command line
(``embed --shard 2/4``), ``shard=(2, 4)`` in ``ElmoEmbedder.embed_file`` and ``(K, N)`` in the shard's attributes.
Datasets keep their *global* 0-based line index (``"0"``, ``"1"``, ...), as in the one-process output.

**Boundaries.** The input's ``L`` lines are cut into blocks of ``block_lines`` lines, the windows the stateless
embedder sorts by length before batching (``batch_size × SORT_WINDOW_BATCHES``, 1,024 lines at the default batch
size). With ``B = ceil(L / block_lines)`` blocks, shard ``K`` embeds blocks ``floor((K − 1)·B / N)`` up to (not
including) ``floor(K·B / N)``: one contiguous run of lines, the shards in order, none overlapping, all together
every line; their sizes differ by at most one block. A shard embeds every batch exactly as the one-process run does
(the same sentences, in the same order, with the same padding), so the shards' vectors are bit-identical to the
one-process output's by construction, whether or not a backend's rounding depends on a sentence's batch mates (on
CPU it may, by float rounding only: oneDNN picks kernels by shape; ``tests/embedding/test_embed_shards.py``). More
shards
than blocks leave some shards empty: such a shard is still written (no sentence datasets, an empty
``sentence_to_index``), so that the merge can see that every shard is there.

**What a shard records** (``ShardRecord``, as HDF5 attributes of the file's root): ``K``, ``N``, the input's line
count and SHA-256 (of its bytes as stored, a ``.gz`` file compressed), the block size, the batch size and the output
format. ``merge_shards`` checks that the files are N shards ``1/N … N/N`` of one run (each once, none missing, same
input, same block size and format), that each holds exactly its own lines, and writes the one-process output under a
temporary name, renamed into place at the end. Every recorded number and every dataset is checked against what the
files can hold before it is used (``shard_checks``); ``N`` is at most ``limits.MAX_SHARDS`` (100,000).
"""

from __future__ import annotations

import dataclasses
import itertools
import numbers
import os
import re
from collections.abc import Sequence

import h5py

from elmo_keras.embedding.embedder_files import (
    EMPTY_INPUT,
    check_input_file,
    check_output_destroys_nothing,
    check_output_file,
    write_sentence_to_index,
    writing_hdf5,
)
from elmo_keras.embedding.shard_checks import (
    ShardFileError,
    check_line_range,
    check_shard_contents,
    finite_values,
    record_values,
)
from elmo_keras.limits import MAX_SHARDS
from elmo_keras.safe_files import file_sha256
from elmo_keras.text.sentence_files import sentence_lines

SORT_WINDOW_BATCHES = 16  # stateless streaming sorts this many batches' worth of sentences by length

ATTRIBUTE_PREFIX = "elmo_keras_shard_"  # the root attributes of a shard file: elmo_keras_shard_<field>
_SHARD_TEXT = re.compile(r"\s*([0-9]+)\s*/\s*([0-9]+)\s*")


def parse_shard(text: str) -> tuple[int, int]:
    """``"K/N"`` (``embed --shard``) → ``(K, N)``, checked by ``check_shard``.

    Raises:
        ValueError: not two whole numbers (ASCII digits) around a ``/``, ``N`` over ``limits.MAX_SHARDS``, or ``K``
            outside ``1 … N``.
    """
    match = _SHARD_TEXT.fullmatch(text)
    if match is None:
        raise ValueError(f"a shard is K/N with whole numbers 1 <= K <= N (e.g. 1/4 for the first of 4 shards), "
                         f"received {text!r:.60}")
    k, n = (digits.lstrip("0") or "0" for digits in match.groups())
    if len(n) > len(str(MAX_SHARDS)):  # before int(): int() itself refuses a number of 5,000 digits
        raise ValueError(f"the number of shards N must be at most {MAX_SHARDS:,}, received a number of {len(n):,} "
                         f"digits ({n[:12]}…)")
    if len(k) > len(n):
        raise ValueError(f"shard K must be between 1 and N={n} (K is counted from 1: the first shard is 1/{n}), "
                         f"received a number of {len(k):,} digits ({k[:12]}…)")
    return check_shard((int(k), int(n)))


def check_shard(shard) -> tuple[int, int]:
    """``shard`` as ``(K, N)``, checked to be two ints with ``1 <= K <= N <= limits.MAX_SHARDS`` (K is 1-based).

    Raises:
        ValueError: not a pair of ints, ``N`` outside ``1 … MAX_SHARDS``, or ``K`` outside ``1 … N``.
    """
    if (isinstance(shard, str) or not isinstance(shard, Sequence) or len(shard) != 2
            or not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in shard)):
        raise ValueError(f"shard must be a pair (K, N) of ints, shard K of N with K counted from 1, received "
                         f"{shard!r:.80}")
    k, n = int(shard[0]), int(shard[1])
    if n < 1:
        raise ValueError(f"the number of shards N must be >= 1, received {_short(n)} (shard {_short(k)}/{_short(n)})")
    if n > MAX_SHARDS:
        raise ValueError(f"the number of shards N must be at most {MAX_SHARDS:,} (a shard is whole windows of "
                         f"--batch-size × {SORT_WINDOW_BATCHES} lines), received {_short(n)}")
    if not 1 <= k <= n:
        raise ValueError(f"shard K must be between 1 and N={n} (K is counted from 1: the first shard is 1/{n}), "
                         f"received {_short(k)}/{n}")
    return k, n


def _short(number: int) -> str:
    """``number`` as text, a huge one cut (``str()`` of an int of 5,000 digits is itself an error)."""
    return f"{number}" if abs(number) < 10**30 else f"a number of {int(number.bit_length() * 0.30103) + 1:,} digits"


def shard_lines(k: int, n: int, input_lines: int, block_lines: int) -> range:
    """The 0-based line indices shard ``k`` of ``n`` embeds (see the module docstring): ``range(first, stop)``."""
    blocks = -(-input_lines // block_lines)
    first, stop = (k - 1) * blocks // n, k * blocks // n
    return range(min(first * block_lines, input_lines), min(stop * block_lines, input_lines))


@dataclasses.dataclass(frozen=True)
class ShardRecord:
    """What a shard file records of the run that wrote it (its root attributes, ``ATTRIBUTE_PREFIX`` + field).

    Args:
        k, n: shard ``k`` of ``n``, ``k`` counted from 1.
        input_lines: the number of sentences (lines) of the whole input.
        input_sha256: the SHA-256 of the input file's bytes.
        block_lines: lines per block (``batch_size × SORT_WINDOW_BATCHES``), the unit of the boundaries.
        batch_size: sentences per biLM call.
        output_format: ``"all"``, ``"top"`` or ``"average"``.
    """

    k: int
    n: int
    input_lines: int
    input_sha256: str
    block_lines: int
    batch_size: int
    output_format: str

    @property
    def lines(self) -> range:
        """The 0-based indices of the lines (datasets) this shard holds."""
        return shard_lines(self.k, self.n, self.input_lines, self.block_lines)

    def write(self, handle: h5py.File) -> None:
        """Store the record (and the line range, for people reading the file) as root attributes of ``handle``."""
        for field, value in dataclasses.asdict(self).items():
            handle.attrs[ATTRIBUTE_PREFIX + field] = value
        handle.attrs[ATTRIBUTE_PREFIX + "first_line"] = self.lines.start
        handle.attrs[ATTRIBUTE_PREFIX + "stop_line"] = self.lines.stop

    @classmethod
    def read(cls, path: str) -> ShardRecord:
        """The record of the shard file ``path``, every field checked against what ``embed --shard`` writes
        (``shard_checks.record_values``: types, ranges, ``block_lines``, the ``first_line``/``stop_line`` range).

        Raises:
            ShardFileError (a ValueError): ``path`` is not an HDF5 file, not one written by ``embed --shard``
                (attributes missing), or its record is damaged (one line naming the attribute).
        """
        try:
            handle = h5py.File(path, "r")
        except OSError as error:
            raise ShardFileError(f"{path} is not an HDF5 file ({error}); give the files written by embed "
                                 "--shard") from None
        with handle:
            record = cls(**record_values(path, handle.attrs, ATTRIBUTE_PREFIX, SORT_WINDOW_BATCHES))
            check_line_range(path, handle.attrs, ATTRIBUTE_PREFIX, record.lines)
        return record


def read_shard_input(path: str, shard: tuple[int, int], batch_size: int, block_lines: int,
                     output_format: str) -> tuple[list[str], ShardRecord]:
    """The sentences shard ``shard`` embeds and its record: every line of ``path`` is read and checked (as
    ``read_sentence_file``), only the shard's are kept.

    Raises:
        ValueError: an empty input; ``SentenceFileError`` (a blank, non-UTF-8 or over-long line, naming it).
    """
    path = check_input_file(path)
    input_lines = sum(1 for _ in sentence_lines(path, blank_lines="refuse"))
    if input_lines == 0:
        raise ValueError(EMPTY_INPUT.format(path=path))
    k, n = check_shard(shard)
    record = ShardRecord(k, n, input_lines, file_sha256(path), block_lines, batch_size, output_format)
    lines = record.lines
    texts = [text for _, text in itertools.islice(sentence_lines(path, blank_lines="refuse"), lines.start, lines.stop)]
    return texts, record


def merge_shards(output_file: str | os.PathLike, shard_files: Sequence[str | os.PathLike]) -> int:
    """Merge the N shard files of one ``embed --shard K/N`` run into the one-process output.

    The result holds the one-process output's datasets, in its order, with equal values (copied bit for bit), and
    its ``sentence_to_index`` (the same JSON text); it carries no shard attributes. It is written under a temporary
    name of its own and renamed at the end (``embedder_files.writing_hdf5``); ``output_file`` is replaced only if
    every check passes.

    Every check but one is made before anything is written: the output path (``check_output_destroys_nothing``: not
    a shard, not the input the shards were embedded from, not in the download cache, and an existing file there an
    output of ours), the records (``ShardRecord.read``), that the files are the N shards of one run, and every
    shard's members (``shard_checks.check_shard_contents``). That the values are finite is checked as they are
    copied.

    Args:
        output_file: the HDF5 file to write (an existing output of embed or merge-shards is replaced, nothing else).
        shard_files: the shard files, in any order.

    Returns:
        The number of sentences (lines of the input) written.

    Raises:
        ValueError: no shard files; a file that is not a shard; shards of different runs (another input, N, block
            size or output format); a shard given twice; a shard missing; a damaged or hostile shard
            (``ShardFileError``: a record, dataset or ``sentence_to_index`` that is not what embed writes, NaN or
            infinite values). Each message names the file(s).
        OutputOverwritesInputError (a ValueError): ``output_file`` is one of the shards, the input they were
            embedded from, part of the download cache, or an existing file that is not an output of ours.
        FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError: a bad shard or output path.
    """
    if isinstance(shard_files, (str, os.PathLike)) or not shard_files:
        raise ValueError("give the shard files to merge: all N files written by embed --shard 1/N … N/N")
    output_file = check_output_file(output_file)
    paths = [check_input_file(path) for path in shard_files]
    records = [ShardRecord.read(path) for path in paths]
    check_output_destroys_nothing(output_file, {f"shard file {path}": path for path in paths},
                                  input_sha256=records[0].input_sha256)
    ordered = _in_shard_order(paths, records)
    sentence_to_index: dict[str, str] = {}
    layout: dict = {}  # the layers and dim every dataset of every shard shares
    for path, record in ordered:
        with h5py.File(path, "r") as source:
            sentence_to_index.update(check_shard_contents(path, source, f"shard {record.k}/{record.n}",
                                                          record.lines, record.output_format, layout))
    with writing_hdf5(output_file) as output:
        for path, record in ordered:
            with h5py.File(path, "r") as source:
                for index in record.lines:
                    output.create_dataset(str(index), data=finite_values(path, source[str(index)]))
        write_sentence_to_index(output, sentence_to_index)
    return ordered[0][1].input_lines


def _in_shard_order(paths: list[str], records: list[ShardRecord]) -> list[tuple[str, ShardRecord]]:
    """``(path, record)`` sorted by K, checked to be the N shards of one run, each once (a missing shard is found
    without enumerating all N: at most ``len(paths) + 10`` numbers are looked at)."""
    first_path, first = paths[0], records[0]
    for path, record in zip(paths, records):
        if (record.input_sha256, record.input_lines) != (first.input_sha256, first.input_lines):
            raise ValueError(f"{path} is a shard of another input than {first_path} ({record.input_lines:,} lines, "
                             f"sha256 {record.input_sha256[:12]}… vs {first.input_lines:,} lines, sha256 "
                             f"{first.input_sha256[:12]}…); merge the shards of one input only")
        if record.n != first.n:
            raise ValueError(f"{path} is shard {record.k}/{record.n} but {first_path} is shard {first.k}/{first.n}; "
                             "merge the N shards of one embed --shard K/N run")
        if (record.block_lines, record.output_format) != (first.block_lines, first.output_format):
            raise ValueError(f"{path} was embedded with --batch-size {record.batch_size} --{record.output_format}, "
                             f"{first_path} with --batch-size {first.batch_size} --{first.output_format}; embed "
                             "every shard with the same options")
    by_k: dict[int, tuple[str, ShardRecord]] = {}
    for path, record in zip(paths, records):
        if record.k in by_k:
            raise ValueError(f"shard {record.k}/{record.n} is given twice: {by_k[record.k][0]} and {path}")
        by_k[record.k] = (path, record)
    if len(by_k) < first.n:
        absent = first.n - len(by_k)
        missing = list(itertools.islice((k for k in range(1, first.n + 1) if k not in by_k), 10))
        shown = ", ".join(f"{k}/{first.n}" for k in missing) + (f" and {absent - 10:,} more" if absent > 10 else "")
        raise ValueError(f"shard {shown} missing: give all {first.n:,} shards of the run (embed --shard K/{first.n} "
                         f"for each missing K)")
    return [by_k[k] for k in range(1, first.n + 1)]
