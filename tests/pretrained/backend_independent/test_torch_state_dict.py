"""The torch-free state_dict reader: both torch formats read exactly as ``torch.load`` does (several dtypes, views,
shared storages, the AllenNLP fixture's 121 tensors); hostile or damaged files refused in one line, without running
anything; the reader never imports torch."""

import collections
import io
import os
import pickle
import subprocess
import sys
import zipfile

import numpy as np
import pytest
import torch

from elmo_keras.pretrained.torch_state_dict import (
    LEGACY_MAGIC_NUMBER,
    LEGACY_PROTOCOL_VERSION,
    TorchFileError,
    read_torch_state_dict,
)
from tests.support.paths import REPO_ROOT, SHARED_FIXTURES
from tests.support.refusals import assert_refused

FORMATS = {"zip": {}, "legacy": {"_use_new_zipfile_serialization": False}}
FIXTURE_WEIGHTS = SHARED_FIXTURES / "transformer_elmo" / "weights.th"


def _expected(tensor: torch.Tensor) -> np.ndarray:
    return tensor.float().numpy() if tensor.dtype == torch.bfloat16 else tensor.numpy()


def _assert_same(read: dict, state: dict) -> None:
    assert list(read) == list(state)
    for key, tensor in state.items():
        expected = _expected(tensor)
        assert read[key].dtype == expected.dtype and read[key].shape == expected.shape, key
        np.testing.assert_array_equal(read[key], expected, err_msg=key)
        assert read[key].flags.c_contiguous and read[key].flags.writeable


def _state() -> collections.OrderedDict:
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6) / 7
    state = collections.OrderedDict(matrix=base, transposed=base.t(), block=base[1:, 2:5], strided=base[::2, ::3],
                                    expanded=torch.arange(3.0).reshape(3, 1).expand(3, 4), scalar=torch.tensor(2.5),
                                    empty=torch.zeros(0, 3))
    values = torch.arange(-5, 9)
    for dtype in (torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16, torch.int8,
                  torch.uint8, torch.bool, torch.uint16, torch.complex64):
        state[str(dtype)] = values.to(dtype)[1::2]  # a strided view of every dtype
    return state


@pytest.mark.parametrize("form", FORMATS)
def test_both_formats_read_exactly(form, tmp_path):
    state = _state()
    path = tmp_path / "weights.th"
    torch.save(state, path, **FORMATS[form])
    _assert_same(read_torch_state_dict(path), state)
    with open(path, "rb") as handle:  # a file object reads the same
        _assert_same(read_torch_state_dict(handle, name="member"), state)


@pytest.mark.parametrize("form", FORMATS)
def test_a_module_state_dict_with_shared_storages(form, tmp_path):
    module = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.LayerNorm(4))
    state = module.state_dict()
    state["shared_view"] = state["0.weight"][1:, :2]  # the same storage as 0.weight
    path = tmp_path / "weights.th"
    torch.save(state, path, **FORMATS[form])
    _assert_same(read_torch_state_dict(path), state)


class _CountingReader(io.BufferedReader):
    """A file that counts the bytes read from it."""

    def __init__(self, raw):
        super().__init__(raw)
        self.count = 0

    def read(self, size=-1):
        data = super().read(size)
        self.count += len(data)
        return data


@pytest.mark.parametrize("form", FORMATS)
def test_storages_of_tensors_not_kept_are_not_read(form, tmp_path):
    state = collections.OrderedDict(small=torch.ones(3), softmax=torch.ones(256, 1024), after=torch.arange(4))
    path = tmp_path / "weights.th"
    torch.save(state, path, **FORMATS[form])
    with _CountingReader(io.FileIO(path)) as handle:
        read = read_torch_state_dict(handle, keep=lambda key: key != "softmax")
        assert handle.count < 100_000 < os.path.getsize(path)
    assert list(read) == ["small", "after"]
    np.testing.assert_array_equal(read["after"], np.arange(4))


def test_a_big_endian_zip_file(tmp_path):
    state = collections.OrderedDict(floats=torch.tensor([1.5, -2.0, 3.25]), longs=torch.tensor([1, -2, 300000]))
    little = tmp_path / "little.th"
    torch.save(state, little)
    big = tmp_path / "big.th"
    itemsizes = {"0": 4, "1": 8}  # the storages in pickling order
    with zipfile.ZipFile(little) as source, zipfile.ZipFile(big, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename.endswith("/byteorder"):
                data = b"big"
            key = info.filename.rsplit("/data/", 1)[-1] if "/data/" in info.filename else None
            if key in itemsizes:
                data = np.frombuffer(data, f"<u{itemsizes[key]}").astype(f">u{itemsizes[key]}").tobytes()
            target.writestr(info.filename, data)
    _assert_same(read_torch_state_dict(big), state)


@pytest.mark.fixtures
def test_the_allennlp_fixture_reads_as_torch_loads_it():
    if not FIXTURE_WEIGHTS.exists():
        pytest.skip(f"the transformer ELMo fixture is not at {FIXTURE_WEIGHTS} (it lives in ../shared/fixtures)")
    state = torch.load(FIXTURE_WEIGHTS, weights_only=True)
    read = read_torch_state_dict(FIXTURE_WEIGHTS)
    assert len(read) == 121
    _assert_same(read, state)


def test_the_reader_never_imports_torch(tmp_path):
    path = tmp_path / "weights.th"
    torch.save(_state(), path)
    legacy = tmp_path / "legacy.th"
    torch.save(_state(), legacy, _use_new_zipfile_serialization=False)
    script = ("import sys\nfrom elmo_keras.pretrained.torch_state_dict import read_torch_state_dict\n"
              f"for path in ({str(path)!r}, {str(legacy)!r}):\n    assert len(read_torch_state_dict(path)) == 18\n"
              "assert not [name for name in sys.modules if name.split('.')[0] == 'torch'], 'torch imported'\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


# -- hostile and damaged files ----------------------------------------------------------------------------------


class _Storage:
    """Stands for a torch storage in a hand-written legacy file (``_legacy_file``)."""

    def __init__(self, key, numel, view=None):
        self.key, self.numel, self.view = key, numel, view


class _Tensor:
    def __init__(self, storage, offset, size, stride):
        self.args = (storage, offset, size, stride, False, collections.OrderedDict())

    def __reduce__(self):
        return torch._utils._rebuild_tensor_v2, self.args


class _Pickler(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, _Storage):
            return "storage", torch.FloatStorage, obj.key, "cpu", obj.numel, obj.view
        return None


def _legacy_file(path, obj, storages=()):
    """Write torch's legacy layout by hand: the three header pickles, ``obj``, the keys, then each storage."""
    with open(path, "wb") as handle:
        for header in (LEGACY_MAGIC_NUMBER, LEGACY_PROTOCOL_VERSION, {"little_endian": True}):
            pickle.dump(header, handle, protocol=2)
        _Pickler(handle, protocol=2, fix_imports=False).dump(obj)  # Python 3 names (no __builtin__)
        pickle.dump([key for key, _ in storages], handle, protocol=2)
        for _, data in storages:
            handle.write(np.int64(len(data)).astype("<i8").tobytes() + np.asarray(data, "<f4").tobytes())
    return path


class _Runs:
    def __init__(self, function, *args):
        self.function, self.args = function, args

    def __reduce__(self):
        return self.function, self.args


def _refused(path, *fragments):
    return assert_refused(read_torch_state_dict, TorchFileError, path, *fragments)


@pytest.mark.parametrize("function, args, named", [
    (os.system, "touch {marker}", os.system.__module__ + ".system"),
    (eval, "open({marker!r}, 'w')", "builtins.eval"),
    (subprocess.call, ["touch", "{marker}"], "subprocess.call"),
    (collections.Counter, "abc", "collections.Counter"),
])
@pytest.mark.parametrize("where", ["plain pickle", "legacy", "zip"])
def test_a_pickle_that_would_run_code_is_refused_unrun(function, args, named, where, tmp_path):
    marker = tmp_path / "ran"
    args = [arg.format(marker=marker) for arg in args] if isinstance(args, list) else args.format(marker=marker)
    hostile = collections.OrderedDict(weight=_Runs(function, args))
    path = tmp_path / "weights.th"
    if where == "plain pickle":
        path.write_bytes(pickle.dumps(hostile, protocol=2, fix_imports=False))
    elif where == "legacy":
        _legacy_file(path, hostile)
    else:
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("archive/data.pkl", pickle.dumps(hostile, protocol=2, fix_imports=False))
            archive.writestr("archive/byteorder", "little")
    _refused(path, named, "refused unread")
    assert not marker.exists()


def test_legacy_storage_views_offsets_and_strides(tmp_path):
    view = _Storage("root", 8, view=("view", 2, 5))  # elements 2..6 of the root storage
    state = collections.OrderedDict(a=_Tensor(view, 1, (2, 2), (1, 2)), b=_Tensor(_Storage("root", 8), 0, (8,), (1,)))
    path = _legacy_file(tmp_path / "weights.th", state, [("root", np.arange(8) * 1.5)])
    read = read_torch_state_dict(path)
    np.testing.assert_array_equal(read["a"], (np.arange(8) * 1.5)[2:7][[[1, 3], [2, 4]]])
    np.testing.assert_array_equal(read["b"], np.arange(8) * 1.5)


@pytest.mark.parametrize("state, storages, fragment", [
    ({"big": _Tensor(_Storage("0", 10**12), 0, (10,), (1,))}, [], "more than the file"),
    ({"outside": _Tensor(_Storage("0", 4), 2, (3,), (1,))}, [("0", np.ones(4))], "reaching outside its storage"),
    ({"huge": _Tensor(_Storage("0", 1), 0, (10**9, 10**9), (0, 0))}, [("0", np.ones(1))], "larger than the file"),
    ({"short": _Tensor(_Storage("0", 4), 0, (4,), (1,))}, [("0", np.ones(3))], "declares"),
    ({"missing": _Tensor(_Storage("0", 4), 0, (4,), (1,))}, [], "key list"),
    ([1, 2], [], "not a state_dict"),
    ({"number": 3}, [], "holds int under key 'number'"),
])
def test_malformed_state_dicts_are_refused(state, storages, fragment, tmp_path):
    _refused(_legacy_file(tmp_path / "weights.th", state, storages), fragment)


@pytest.mark.parametrize("form", FORMATS)
@pytest.mark.parametrize("fraction", [0.0005, 0.05, 0.5, 0.999])
def test_a_truncated_file_is_refused(form, fraction, tmp_path):
    whole = tmp_path / "whole.th"
    torch.save(_state(), whole, **FORMATS[form])
    data = whole.read_bytes()
    cut = tmp_path / "cut.th"
    cut.write_bytes(data[: max(1, int(len(data) * fraction))])
    _refused(cut)


@pytest.mark.parametrize("content, fragment", [
    (b"", "is empty"),
    (np.random.default_rng(0).bytes(4096), "not a PyTorch file"),
    (b"\x80" + np.random.default_rng(1).bytes(4096), "cannot be read"),
    (b"PK\x03\x04" + np.random.default_rng(2).bytes(4096), "cannot be read"),
    (pickle.dumps(12345, protocol=2), "magic number"),
])
def test_empty_random_and_foreign_files_are_refused(content, fragment, tmp_path):
    path = tmp_path / "weights.th"
    path.write_bytes(content)
    _refused(path, fragment)


def test_a_missing_file():
    with pytest.raises(FileNotFoundError, match="no_such.th"):
        read_torch_state_dict("no_such.th")
