"""Read a PyTorch ``state_dict`` file (``torch.save(module.state_dict(), f)``) as NumPy arrays, without torch and
without running anything the file asks for.

Two formats (torch/serialization.py):

- **zip** (torch >= 1.6): a zip archive with ``<name>/data.pkl``, the pickled dict, and one raw record
  ``<name>/data/<key>`` per storage (``<name>/byteorder`` says ``little`` or ``big``; absent means little).
- **legacy** (torch < 1.6, and ``_use_new_zipfile_serialization=False``): five pickles, then the storages back to
  back: the magic number, the protocol version 1001, a sys-info dict, the dict, the list of storage keys; then per
  key an int64 element count and the data, both little-endian.

In both, a tensor is pickled as ``torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad,
hooks)`` (``_rebuild_tensor_v3(..., dtype)`` for dtypes newer than the typed storages, ``_rebuild_tensor`` before
torch 0.4) and its storage as a persistent id ``("storage", torch.FloatStorage, key, location, numel[, view])``.

Safety: ``_StateDictUnpickler.find_class`` resolves only ``ALLOWED_GLOBALS`` (an ordered dict, the tensor rebuild
functions, storage classes and dtypes) — to stand-ins of this module that record shapes and offsets — and refuses
every other global before anything is called, naming the file and the global. A storage larger than the file, or a
tensor reaching outside its storage, is refused before any allocation; the storages of tensors not asked for
(``keep``) are skipped unread.
"""

from __future__ import annotations

import collections
import io
import os
import pickle
import struct
import zipfile
import zlib
from collections.abc import Callable
from typing import BinaryIO

import numpy as np

from elmo_keras.pretrained.options import PretrainedFileError

LEGACY_MAGIC_NUMBER = 0x1950A86A20F9469CFC6C  # torch.serialization.MAGIC_NUMBER
LEGACY_PROTOCOL_VERSION = 1001  # torch.serialization.PROTOCOL_VERSION
ZIP_SIGNATURE = b"PK\x03\x04"
PICKLE_PROTO_OPCODE = 0x80  # the first byte of a pickle of protocol >= 2 (torch's legacy format starts with one)
TAR_SIGNATURE_OFFSET, TAR_SIGNATURE = 257, b"ustar"  # torch's pre-0.4 tar format
LEGACY_COUNT = struct.Struct("<q")  # the element count before each legacy storage
MAX_DIMENSIONS = 64  # torch's limit
MAX_BYTEORDER_BYTES = 16
MAX_MESSAGE_CHARS = 200  # of a wrapped low-level error, in a one-line message
BFLOAT16 = "bfloat16"  # read as uint16 bit patterns and widened exactly to float32 (NumPy has no bfloat16)

# torch storage class → its element type (NumPy type code, little-endian unless the zip's byteorder says big)
STORAGE_DTYPES = {
    "DoubleStorage": "f8", "FloatStorage": "f4", "HalfStorage": "f2", "BFloat16Storage": BFLOAT16,
    "LongStorage": "i8", "IntStorage": "i4", "ShortStorage": "i2", "CharStorage": "i1", "ByteStorage": "u1",
    "BoolStorage": "b1", "ComplexDoubleStorage": "c16", "ComplexFloatStorage": "c8", "UntypedStorage": "u1",
}
# torch dtypes named by _rebuild_tensor_v3 (over an UntypedStorage of bytes)
TENSOR_DTYPES = {
    "float64": "f8", "float32": "f4", "float16": "f2", "bfloat16": BFLOAT16, "int64": "i8", "int32": "i4",
    "int16": "i2", "int8": "i1", "uint8": "u1", "bool": "b1", "uint16": "u2", "uint32": "u4", "uint64": "u8",
    "complex64": "c8", "complex128": "c16",
}
ALLOWED_GLOBALS = (
    [("collections", "OrderedDict")]
    + [("torch._utils", name) for name in ("_rebuild_tensor", "_rebuild_tensor_v2", "_rebuild_tensor_v3")]
    + [("torch", name) for name in STORAGE_DTYPES] + [("torch.storage", "UntypedStorage")]
    + [("torch", name) for name in TENSOR_DTYPES]
)
LOW_LEVEL_ERRORS = (pickle.UnpicklingError, EOFError, ValueError, TypeError, KeyError, IndexError, AttributeError,
                    OverflowError, MemoryError, RecursionError, struct.error, zipfile.BadZipFile, zlib.error, OSError)


class TorchFileError(PretrainedFileError):
    """A PyTorch file this reader refuses: not a state dict of tensors, a global outside ``ALLOWED_GLOBALS``, or
    damaged (truncated, a storage larger than the file, a tensor outside its storage)."""


def numpy_dtype(code: str, byteorder: str = "<") -> np.dtype:
    """The NumPy dtype a storage's bytes are read as: ``code`` in ``byteorder`` (``BFLOAT16`` as ``uint16`` bit
    patterns)."""
    if code == "b1":
        return np.dtype(bool)
    return np.dtype(byteorder + ("u2" if code == BFLOAT16 else code))


def bfloat16_bits_to_float32(bits: np.ndarray) -> np.ndarray:
    """bfloat16 bit patterns (``uint16``) → float32, exactly: a bfloat16 is the top half of a float32."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


class _DtypeName:
    """A torch storage class or dtype named by the pickle (what ``find_class`` gives for it)."""

    __slots__ = ("name", "code")

    def __init__(self, name: str, code: str):
        self.name, self.code = name, code


class _Storage:
    """One storage of the file: its key, element type and element count; ``data`` once read."""

    __slots__ = ("key", "code", "numel", "data")

    def __init__(self, key: str, code: str, numel: int):
        self.key, self.code, self.numel, self.data = key, code, numel, None


class _StorageRef:
    """A storage as a tensor sees it: ``storage`` from element ``start``, ``count`` elements (an old storage view)."""

    __slots__ = ("storage", "start", "count")

    def __init__(self, storage: _Storage, start: int, count: int):
        self.storage, self.start, self.count = storage, start, count


class _TensorRef:
    """A tensor to build: ``size``/``stride`` in elements of ``code`` over ``ref`` from element ``offset``."""

    __slots__ = ("ref", "offset", "size", "stride", "code")

    def __init__(self, ref: _StorageRef, offset: int, size: tuple, stride: tuple, code: str):
        self.ref, self.offset, self.size, self.stride, self.code = ref, offset, size, stride, code


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


class _StateDictUnpickler(pickle.Unpickler):
    """An unpickler that knows only ``ALLOWED_GLOBALS`` and torch's storage persistent ids (see the module
    docstring); ``file_size`` bounds every storage."""

    def __init__(self, file: BinaryIO, path: str, file_size: int, storages: dict[str, _Storage]):
        super().__init__(file)
        self.path, self.file_size, self.storages = path, file_size, storages
        self.allowed = {("collections", "OrderedDict"): collections.OrderedDict,
                        ("torch._utils", "_rebuild_tensor"): self.rebuild_tensor,
                        ("torch._utils", "_rebuild_tensor_v2"): self.rebuild_tensor,
                        ("torch._utils", "_rebuild_tensor_v3"): self.rebuild_tensor_v3,
                        ("torch.storage", "UntypedStorage"): _DtypeName("UntypedStorage", "u1")}
        self.allowed.update({("torch", name): _DtypeName(name, code) for name, code in STORAGE_DTYPES.items()})
        self.allowed.update({("torch", name): _DtypeName(name, code) for name, code in TENSOR_DTYPES.items()})

    def fail(self, problem: str) -> TorchFileError:
        return TorchFileError(self.path, None, problem)

    def find_class(self, module, name):
        found = self.allowed.get((module, name))
        if found is None:
            raise self.fail(f"holds a pickled {module}.{name}, which a state_dict does not: refused unread (loading "
                            "it could run code); only tensors in ordered dicts are read: save model.state_dict()")
        return found

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) in (5, 6) and pid[0] in ("storage", b"storage")):
            raise self.fail(f"has a persistent id {str(pid)[:60]!r} that is not a torch storage")
        kind, key, location, numel = pid[1:5]
        view = pid[5] if len(pid) == 6 else None
        key = key.decode("ascii") if isinstance(key, bytes) else key
        if not (isinstance(kind, _DtypeName) and kind.name.endswith("Storage") and isinstance(key, str)
                and isinstance(location, (str, bytes)) and _is_count(numel)):
            raise self.fail(f"has a malformed storage id {str(pid)[:80]!r}")
        nbytes = numel * numpy_dtype(kind.code).itemsize
        if nbytes > self.file_size:
            raise self.fail(f"declares storage {key!r} of {nbytes:,} bytes, more than the file's {self.file_size:,}: "
                            "the file is damaged or not a state_dict; download or save it again")
        storage = self.storages.setdefault(key, _Storage(key, kind.code, numel))
        if (storage.code, storage.numel) != (kind.code, numel):
            raise self.fail(f"declares storage {key!r} twice with different types or sizes")
        if view is None:
            return _StorageRef(storage, 0, numel)
        if not (isinstance(view, tuple) and len(view) == 3 and _is_count(view[1]) and _is_count(view[2])
                and view[1] + view[2] <= numel):
            raise self.fail(f"has a storage view {str(view)[:60]!r} outside storage {key!r}")
        return _StorageRef(storage, view[1], view[2])

    def rebuild_tensor(self, ref, offset, size, stride, *rest):
        """``_rebuild_tensor(storage, offset, size, stride)`` and ``_v2(..., requires_grad, hooks[, metadata])``."""
        if len(rest) > 3 or not isinstance(ref, _StorageRef):
            raise self.fail("has a tensor that is not stored as a torch tensor is (expected storage, offset, size, "
                            "stride, ...)")
        return self.tensor(ref, offset, size, stride, ref.storage.code)

    def rebuild_tensor_v3(self, ref, offset, size, stride, requires_grad, hooks, dtype, metadata=None):
        """``_rebuild_tensor_v3(untyped storage, offset, size, stride, requires_grad, hooks, dtype[, metadata])``."""
        if not (isinstance(ref, _StorageRef) and ref.storage.code == "u1" and isinstance(dtype, _DtypeName)
                and not dtype.name.endswith("Storage")):
            raise self.fail("has a v3 tensor whose storage is not bytes or whose dtype is not a torch dtype")
        itemsize = numpy_dtype(dtype.code).itemsize
        if ref.start % itemsize or ref.count % itemsize:
            raise self.fail(f"has a {dtype.name} tensor over storage {ref.storage.key!r} of {ref.count} bytes, not a "
                            f"whole number of {itemsize}-byte elements")
        ref = _StorageRef(ref.storage, ref.start // itemsize, ref.count // itemsize)
        return self.tensor(ref, offset, size, stride, dtype.code)

    def tensor(self, ref: _StorageRef, offset, size, stride, code: str) -> _TensorRef:
        if not (_is_count(offset) and isinstance(size, tuple) and isinstance(stride, tuple)
                and len(size) == len(stride) <= MAX_DIMENSIONS and all(map(_is_count, size + stride))):
            raise self.fail(f"has a tensor over storage {ref.storage.key!r} with a malformed offset, size or stride")
        numel = int(np.prod(size, dtype=object))
        if numel and offset + sum((n - 1) * s for n, s in zip(size, stride)) >= ref.count:
            raise self.fail(f"has a tensor of size {size} (stride {stride}, offset {offset}) reaching outside its "
                            f"storage {ref.storage.key!r} of {ref.count:,} elements: the file is damaged")
        if numel * numpy_dtype(code).itemsize > self.file_size:
            raise self.fail(f"has a tensor of size {size} larger than the file: refused to allocate it")
        return _TensorRef(ref, offset, size, stride, code)


def read_torch_state_dict(source: str | os.PathLike | BinaryIO, name: str | None = None,
                          keep: Callable[[str], bool] | None = None) -> dict[str, np.ndarray]:
    """Every tensor of a PyTorch ``state_dict`` file as a NumPy array, in the file's order, torch never imported.

    Args:
        source: the file (``weights.th``), a path or a seekable binary file object (an archive member).
        name: how errors name the file. Defaults to the path (``"<file>"`` for a file object).
        keep: ``key -> bool``, the tensors to read; the storages of the others are skipped unread. Defaults to None
            (all).

    Returns:
        ``{key: array}``: C-contiguous copies in native byte order, of the stored dtype (float32, float64, int64, …;
        bfloat16 widened exactly to float32), views and shared storages resolved.

    Raises:
        FileNotFoundError: no such file.
        TorchFileError: one line naming the file: a global other than ``ALLOWED_GLOBALS`` (refused before it is
            called), not a dict of tensors, empty, not a torch file, truncated or otherwise damaged.
    """
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"PyTorch weight file not found: {path}")
        with open(path, "rb") as handle:
            return read_torch_state_dict(handle, name or path, keep)
    path = name or "<file>"
    try:
        return _read(source, path, keep)
    except TorchFileError:
        raise
    except LOW_LEVEL_ERRORS as error:
        detail = " ".join(f"{type(error).__name__}: {error}".split())[:MAX_MESSAGE_CHARS]
        raise TorchFileError(path, None, f"cannot be read as a PyTorch state_dict ({detail}); it is truncated or "
                                         "damaged: download or save it again") from None


def _read(handle: BinaryIO, path: str, keep) -> dict[str, np.ndarray]:
    size = handle.seek(0, io.SEEK_END)
    handle.seek(0)
    head = handle.read(TAR_SIGNATURE_OFFSET + len(TAR_SIGNATURE))
    handle.seek(0)
    if not head:
        raise TorchFileError(path, None, "is empty (expected a PyTorch state_dict saved by torch.save)")
    if head.startswith(ZIP_SIGNATURE):
        return _read_zip(handle, path, size, keep)
    if head[0] == PICKLE_PROTO_OPCODE:
        return _read_legacy(handle, path, size, keep)
    if head[TAR_SIGNATURE_OFFSET:] == TAR_SIGNATURE:
        raise TorchFileError(path, None, "is a tar-format torch file (torch < 0.4), which is not read: load and save "
                                         "it again with a newer torch")
    raise TorchFileError(path, None, "is not a PyTorch file (neither torch's zip format nor its legacy pickles)")


def _unpickle(data: BinaryIO, path: str, size: int, storages: dict[str, _Storage]):
    return _StateDictUnpickler(data, path, size, storages).load()


def _read_legacy(handle: BinaryIO, path: str, size: int, keep) -> dict[str, np.ndarray]:
    storages: dict[str, _Storage] = {}
    if _unpickle(handle, path, size, {}) != LEGACY_MAGIC_NUMBER:
        raise TorchFileError(path, None, "starts with a pickle but not torch's magic number: not a torch.save file")
    protocol = _unpickle(handle, path, size, {})
    if protocol != LEGACY_PROTOCOL_VERSION:
        raise TorchFileError(path, None, f"has torch protocol version {protocol!r}, not {LEGACY_PROTOCOL_VERSION}")
    _unpickle(handle, path, size, {})  # sys info: byte order and C type sizes (the data are little-endian anyway)
    tensors = _tensor_refs(_unpickle(handle, path, size, storages), path)
    keys = _unpickle(handle, path, size, {})
    if not (isinstance(keys, list) and all(isinstance(key, str) for key in keys) and set(keys) == set(storages)
            and len(keys) == len(set(keys))):
        raise TorchFileError(path, None, "has a storage key list that does not match its tensors' storages")
    needed = {ref.ref.storage.key for key, ref in tensors.items() if keep is None or keep(key)}
    for key in keys:
        storage = storages[key]
        (count,) = LEGACY_COUNT.unpack(_read_exactly(handle, LEGACY_COUNT.size, path, key))
        if count != storage.numel:
            raise TorchFileError(path, None, f"has {count:,} elements for storage {key!r}, which declares "
                                             f"{storage.numel:,}: the file is damaged")
        nbytes = count * numpy_dtype(storage.code).itemsize
        if handle.tell() + nbytes > size:
            raise TorchFileError(path, None, f"ends inside storage {key!r}: it is truncated; download or save it again")
        if key in needed:
            storage.data = np.frombuffer(_read_exactly(handle, nbytes, path, key), numpy_dtype(storage.code, "<"))
        else:
            handle.seek(nbytes, io.SEEK_CUR)
    return _build(tensors, keep, "<")


def _read_exactly(handle: BinaryIO, nbytes: int, path: str, key: str) -> bytes:
    data = handle.read(nbytes)
    if len(data) != nbytes:
        raise TorchFileError(path, None, f"ends inside storage {key!r}: it is truncated; download or save it again")
    return data


def _read_zip(handle: BinaryIO, path: str, size: int, keep) -> dict[str, np.ndarray]:
    archive = zipfile.ZipFile(handle)
    pickles = [record for record in archive.namelist() if record.endswith("/data.pkl") and record.count("/") == 1]
    if len(pickles) != 1:
        raise TorchFileError(path, None, f"is a zip archive with {len(pickles)} top-level */data.pkl records, not "
                                         "one: not a torch.save file")
    prefix = pickles[0][: -len("data.pkl")]
    byteorder = "<"
    if prefix + "byteorder" in archive.namelist():
        order = _zip_record(archive, prefix + "byteorder", MAX_BYTEORDER_BYTES, path)
        if order not in (b"little", b"big"):
            raise TorchFileError(path, None, f"has a byteorder record {order[:16]!r}, not 'little' or 'big'")
        byteorder = "<" if order == b"little" else ">"
    storages: dict[str, _Storage] = {}
    tensors = _tensor_refs(_unpickle(io.BytesIO(_zip_record(archive, pickles[0], size, path)), path, size, storages),
                           path)
    needed = {ref.ref.storage.key for key, ref in tensors.items() if keep is None or keep(key)}
    records = {key: _zip_info(archive, f"{prefix}data/{key}", path) for key in needed}
    for key in sorted(needed, key=lambda k: records[k].header_offset):  # in file order: one pass over a gzip stream
        storage = storages[key]
        nbytes = storage.numel * numpy_dtype(storage.code).itemsize
        if records[key].file_size != nbytes:
            raise TorchFileError(path, None, f"has {records[key].file_size:,} bytes for storage {key!r}, which "
                                             f"declares {nbytes:,}: the file is damaged")
        data = _zip_record(archive, records[key].filename, size, path)
        storage.data = np.frombuffer(data, numpy_dtype(storage.code, byteorder))
    return _build(tensors, keep, byteorder)


def _zip_info(archive: zipfile.ZipFile, record: str, path: str) -> zipfile.ZipInfo:
    try:
        return archive.getinfo(record)
    except KeyError:
        raise TorchFileError(path, None, f"lacks the record {record!r} holding a tensor's storage: it is "
                                         "damaged") from None


def _zip_record(archive: zipfile.ZipFile, record: str, limit: int, path: str) -> bytes:
    """The bytes of ``record``, refused unread if it claims more than ``limit`` (the file's size)."""
    info = _zip_info(archive, record, path)
    if info.file_size > limit:
        raise TorchFileError(path, None, f"has a record {record!r} of {info.file_size:,} bytes, more than the file's "
                                         f"{limit:,} (a zip bomb?): refused")
    return archive.read(info)


def _tensor_refs(state, path: str) -> dict[str, _TensorRef]:
    """The unpickled object as ``{key: _TensorRef}``, or an error saying why it is not a state dict of tensors."""
    if not isinstance(state, dict):
        raise TorchFileError(path, None, f"holds a pickled {type(state).__name__}, not a state_dict (a dict of "
                                         "tensors): save model.state_dict()")
    for key, value in state.items():
        if not isinstance(key, str) or not isinstance(value, _TensorRef):
            raise TorchFileError(path, None, f"holds {type(value).__name__} under key {str(key)[:80]!r}, not a tensor: "
                                             "not a state_dict of tensors (save model.state_dict())")
    return dict(state)


def _build(tensors: dict[str, _TensorRef], keep, byteorder: str) -> dict[str, np.ndarray]:
    """The kept tensors as native-order contiguous copies of their views of the storages read."""
    arrays = {}
    for key, tensor in tensors.items():
        if keep is not None and not keep(key):
            continue
        ref, flat = tensor.ref, tensor.ref.storage.data
        if tensor.code != ref.storage.code:  # a v3 tensor over bytes: its elements' bytes, viewed as its dtype
            itemsize = numpy_dtype(tensor.code).itemsize
            flat = flat[ref.start * itemsize: (ref.start + ref.count) * itemsize].view(numpy_dtype(tensor.code,
                                                                                                   byteorder))
        else:
            flat = flat[ref.start: ref.start + ref.count]
        if not int(np.prod(tensor.size, dtype=object)):
            array = np.zeros(tensor.size, flat.dtype)
        else:
            strides = tuple(step * flat.itemsize for step in tensor.stride)
            array = np.lib.stride_tricks.as_strided(flat[tensor.offset:], tensor.size, strides, writeable=False)
        array = array.astype(array.dtype.newbyteorder("="), order="C")  # a C-contiguous copy, native byte order
        arrays[key] = bfloat16_bits_to_float32(array) if tensor.code == BFLOAT16 else array
    return arrays
