"""Bad files for ``OnnxEmbedder`` and bad output paths for ``export_onnx``: each is one line naming the file and what
to do, never onnxruntime's own exception types or an unpacking error; ``export_onnx`` checks its output path before
the export starts (a directory, a missing or unwritable directory, the download cache and its records, a file that
is not an ONNX model); the positions ``OnnxEmbedder`` names in errors are the caller's.

The ONNX models here are written with ``onnx.helper`` (no export needed), so these run on every backend; the one
test of a real export runs on TensorFlow. Skipped where onnx or onnxruntime are absent.
"""

import os

import numpy as np
import pytest

from elmo_keras.embedding.onnx_embedder import OnnxEmbedder, OnnxFileError
from elmo_keras.embedding.onnx_export import export_onnx
from elmo_keras.layers import CharCNN
from elmo_keras.layers.bilm import BiLM
from elmo_keras.pretrained.downloads import pretrained_directory
from elmo_keras.safe_files import OutputOverwritesInputError
from elmo_keras.text.batching import char_ids_with_boundaries
from tests.support.backend_support import tensorflow_only

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper  # noqa: E402  (after the skip: onnx is optional)

LAYERS, DIM = 2, 4


def save_model(path, output_shape=("batch", LAYERS, "time", DIM), input_type=TensorProto.INT32):
    """A model with ``export_onnx``'s signature: ``char_ids`` int32 (batch, time, 50) → ``activations`` float32
    (batch, LAYERS, time, DIM), each the sum of a token's ids (or, with another ``output_shape``, that rank)."""
    nodes = [helper.make_node("Cast", ["char_ids"], ["as_float"], to=TensorProto.FLOAT),
             helper.make_node("ReduceSum", ["as_float", "last_axis"], ["summed"], keepdims=1)]  # (B, T, 1)
    initializers = [helper.make_tensor("last_axis", TensorProto.INT64, [1], [-1])]
    if len(output_shape) == 4:
        nodes += [helper.make_node("Unsqueeze", ["summed", "second_axis"], ["unsqueezed"]),  # (B, 1, T, 1)
                  helper.make_node("Tile", ["unsqueezed", "repeats"], ["activations"])]  # (B, LAYERS, T, DIM)
        initializers += [helper.make_tensor("second_axis", TensorProto.INT64, [1], [1]),
                         helper.make_tensor("repeats", TensorProto.INT64, [4], [1, LAYERS, 1, DIM])]
    elif len(output_shape) == 2:
        nodes.append(helper.make_node("Squeeze", ["summed", "last_axis"], ["activations"]))  # (B, T)
    else:
        nodes.append(helper.make_node("Identity", ["summed"], ["activations"]))
    graph = helper.make_graph(nodes, "fake_export", [helper.make_tensor_value_info("char_ids", input_type,
                                                                                  ["batch", "time", 50])],
                              [helper.make_tensor_value_info("activations", TensorProto.FLOAT, list(output_shape))],
                              initializers)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def one_line(raised) -> str:
    message = str(raised.value)
    assert "\n" not in message, message
    return message


def test_the_fake_export_runs(tmp_path):
    """The model the other tests break: it loads, and its vectors are the sums of each token's ids."""
    embedder = OnnxEmbedder(save_model(tmp_path / "fake.onnx"))
    vectors = embedder.embed_batch([["a"], [], ["b", "c"]])
    assert [v.shape for v in vectors] == [(LAYERS, 1, DIM), (LAYERS, 0, DIM), (LAYERS, 2, DIM)]
    np.testing.assert_array_equal(vectors[0][0, 0, 0], char_ids_with_boundaries([["a"]])[0, 1].sum())


@pytest.mark.parametrize("content", [b"", b"hello, not a model\n", os.urandom(4096), "truncated"])
def test_a_file_onnxruntime_cannot_load_is_one_line_naming_it(tmp_path, content):
    path = tmp_path / "bad.onnx"
    if content == "truncated":
        whole = save_model(tmp_path / "whole.onnx").read_bytes()
        content = whole[: len(whole) // 2]
    path.write_bytes(content)
    with pytest.raises(OnnxFileError) as raised:
        OnnxEmbedder(path)
    message = one_line(raised)
    assert message.startswith(f"{path} is not an ONNX file onnxruntime can load") and "export_onnx" in message
    assert isinstance(raised.value, ValueError)


def test_a_missing_file_or_a_directory_is_one_line_naming_it(tmp_path):
    with pytest.raises(FileNotFoundError) as raised:
        OnnxEmbedder(tmp_path / "missing.onnx")
    assert one_line(raised).startswith(f"no ONNX file {tmp_path / 'missing.onnx'}: ")
    with pytest.raises(IsADirectoryError) as raised:
        OnnxEmbedder(tmp_path)
    assert one_line(raised).startswith(f"{tmp_path} is a directory, not an ONNX file")


@pytest.mark.parametrize("output_shape", [("batch", "time", 1), ("batch", "time"),
                                          ("batch", LAYERS, "time", DIM, 1)])
def test_an_output_of_another_shape_is_one_line_naming_it(tmp_path, output_shape):
    path = save_model(tmp_path / "rank.onnx", output_shape=output_shape)
    with pytest.raises(OnnxFileError) as raised:
        OnnxEmbedder(path)
    message = one_line(raised)
    assert message.startswith(f"{path} is not an export_onnx file: its output 'activations'")
    assert message.endswith("re-export the model with export_onnx(embedder, path) (elmo_keras.embedding.onnx_export)")


def test_an_input_of_another_type_is_one_line_naming_it(tmp_path):
    path = save_model(tmp_path / "float_input.onnx", input_type=TensorProto.FLOAT)
    with pytest.raises(OnnxFileError, match="its input 'char_ids' is tensor\\(float\\)") as raised:
        OnnxEmbedder(path)
    one_line(raised)


@pytest.mark.parametrize("sentences, error, message", [
    ([["a", 3]], TypeError, "sentence 0, token 1: a token must be a str, received int: 3"),
    ([[], ["a", "b", None]], TypeError, "sentence 1, token 2: a token must be a str"),
    ([["a"], ["b", ""]], ValueError, "sentence 1, token 1: token is empty"),
    ([["a"], [], ["\ud800"]], ValueError, "sentence 2, token 0: token has no UTF-8-encodable character"),
    ([["a"], "b c"], TypeError, "sentence 1 must be a list of tokens, received str"),
    ("a b", TypeError, "sentences must be a list of token lists, received the str"),
])
def test_errors_name_the_callers_positions(tmp_path, sentences, error, message):
    embedder = OnnxEmbedder(save_model(tmp_path / "fake.onnx"))
    with pytest.raises(error) as raised:
        embedder.embed_batch(sentences)
    assert one_line(raised).startswith(message)


# -- export_onnx: the output path, checked before the export ------------------------------------------------------
@pytest.fixture
def tiny_bilm(monkeypatch):
    import keras

    def never(*args, **kwargs):
        raise AssertionError("the export started before the output path was checked")

    monkeypatch.setattr(keras.Model, "export", never)
    bilm = BiLM(CharCNN(embedding_dim=4, filters=((1, 8), (2, 8)), projection_dim=8), units=16, projection_dim=8)
    bilm(char_ids_with_boundaries([["build"]]))
    return bilm


def test_a_directory_or_a_missing_or_unwritable_directory_is_refused_before_the_export(tiny_bilm, tmp_path):
    cases = [(tmp_path, IsADirectoryError, f"the ONNX file {tmp_path} is a directory"),
             (tmp_path / "no" / "m.onnx", FileNotFoundError, f"its directory {tmp_path / 'no'} does not exist")]
    (tmp_path / "file").write_text("x")
    cases.append((tmp_path / "file" / "m.onnx", NotADirectoryError, f"{tmp_path / 'file'} is a file"))
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        cases.append((locked / "m.onnx", PermissionError, f"no permission to write in {locked}"))
    for path, error, message in cases:
        with pytest.raises(error) as raised:
            export_onnx(tiny_bilm, path)
        assert message in one_line(raised)


def test_the_download_cache_and_its_records_are_refused(tiny_bilm, tmp_path):
    weights = tmp_path / "weights.hdf5"
    weights.write_bytes(b"weights")
    cache = pretrained_directory()
    cache.mkdir(parents=True, exist_ok=True)
    for path, message in ((tmp_path / "weights.hdf5.sha256", "is the SHA-256 record of weights.hdf5"),
                          (tmp_path / "weights.hdf5.lock", "is the download lock of weights.hdf5"),
                          (tmp_path / ".weights.hdf5.download-abcd1234.tmp", "named like a partial download"),
                          (cache / "elmo.onnx", "lies inside the download cache")):
        with pytest.raises(OutputOverwritesInputError) as raised:
            export_onnx(tiny_bilm, path)
        assert one_line(raised).startswith(f"the ONNX file {path} ") and message in str(raised.value)
        assert not path.exists()


@pytest.mark.parametrize("content", [b"the corpus, one sentence a line\n", b"\x89HDF\r\n\x1a\n" + bytes(100), b""])
def test_an_existing_file_that_is_not_onnx_is_never_replaced(tiny_bilm, tmp_path, content):
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(content)
    with pytest.raises(OutputOverwritesInputError) as raised:
        export_onnx(tiny_bilm, corpus)
    assert "exists and is not an ONNX model" in one_line(raised)
    assert corpus.read_bytes() == content


@tensorflow_only("ONNX export runs on the tensorflow backend (tf2onnx)")
def test_a_real_export_replaces_an_earlier_one_and_truncated_is_refused(tmp_path):
    pytest.importorskip("tf2onnx")
    bilm = BiLM(CharCNN(embedding_dim=4, filters=((1, 8), (2, 8)), projection_dim=8), units=16, projection_dim=8)
    bilm(char_ids_with_boundaries([["build"]]))
    path = save_model(tmp_path / "elmo.onnx")  # an ONNX file: replaced
    export_onnx(bilm, path)
    embedder = OnnxEmbedder(path)
    assert embedder.embed_batch([["a", "b"]])[0].shape == (3, 2, 16)
    with pytest.raises(TypeError, match="^sentence 0, token 1: a token must be a str"):
        embedder.embed_batch([["a", 3]])
    (tmp_path / "cut.onnx").write_bytes(path.read_bytes()[:-100])
    with pytest.raises(OnnxFileError, match="cut.onnx is not an ONNX file onnxruntime can load"):
        OnnxEmbedder(tmp_path / "cut.onnx")
