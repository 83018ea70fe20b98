"""The lines of a UTF-8 text file, plain or gzipped, as every reader of tagged text reads them.

Line ends are ``\\n``, ``\\r\\n`` or a lone ``\\r`` (only these: a file saved with old Mac line ends is not one long
line); a leading byte-order mark is dropped. A file whose name ends in ``.gz`` is decompressed, at most
``MAX_DECOMPRESSED_BYTES`` of it (a small file that inflates without end is refused, naming it).
"""

from __future__ import annotations

import gzip
import os
import re
import zlib

PathLike = str | os.PathLike
MAX_DECOMPRESSED_BYTES = 2**30  # 1 GiB of text: a tagged file read whole; larger corpora are streamed
_LINE_END = re.compile(r"\r\n|\r|\n")
_LINE_END_BYTES = re.compile(rb"\r\n|\r|\n")
_CHUNK = 2**20


def read_text_lines(path: PathLike, what: str = "text file") -> list[str]:
    """The lines of a UTF-8 text file (``.gz``: gzipped), without line ends.

    Args:
        path: the file.
        what: how the errors name the file's kind (``"tagged text file"``, ``"CoNLL-U file"``).

    Raises:
        FileNotFoundError, IsADirectoryError: ``path`` is not a file.
        ValueError: naming the file: not valid UTF-8 (with the line and byte offset), a damaged gzip stream, or
            more than ``MAX_DECOMPRESSED_BYTES`` once decompressed.
    """
    if os.path.isdir(path):
        raise IsADirectoryError(f"{os.fspath(path)} is a directory, not a {what}")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{what} not found: {os.fspath(path)}")
    data = _read_bytes(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = len(_LINE_END_BYTES.split(data[: error.start]))
        raise ValueError(
            f"{os.fspath(path)} line {line}: not valid UTF-8 at byte offset {error.start} "
            f"(byte 0x{data[error.start]:02x}): {error.reason}"
        ) from None
    return split_lines(text)


def split_lines(text: str) -> list[str]:
    """``text`` cut at ``\\r\\n``, ``\\n`` and lone ``\\r`` line ends (only these), without them."""
    return _LINE_END.split(text)


def _read_bytes(path: PathLike) -> bytes:
    """The file's bytes, decompressed (bounded) when its name ends in ``.gz``."""
    if not os.fspath(path).endswith(".gz"):
        with open(path, "rb") as handle:
            return handle.read()
    parts, total = [], 0
    try:
        with gzip.open(path, "rb") as handle:
            while chunk := handle.read(_CHUNK):
                total += len(chunk)
                if total > MAX_DECOMPRESSED_BYTES:
                    raise ValueError(f"{os.fspath(path)}: more than {MAX_DECOMPRESSED_BYTES:,} bytes once "
                                     "decompressed, too large to read whole; split it or stream it")
                parts.append(chunk)
    except (OSError, EOFError, zlib.error) as error:
        raise ValueError(f"{os.fspath(path)}: not a readable gzip file ({error}); decompress it to check it, or "
                         "download it again") from None
    return b"".join(parts)
