"""Write a biLM's embedding computation as an ONNX file: ids → every layer's activations, for onnxruntime.

``export_onnx`` wraps a built, stateless biLM (an LSTM ``BiLM`` or a ``TransformerBiLM``) in a Keras model,
``ids int32 (batch, time, 50)`` (or word ids `(batch, time)`) → ``activations float32 (batch, num_layers + 1, time,
2 * dim)``, and writes it with Keras' own exporter (``keras.Model.export(format="onnx")``: on TensorFlow, tf2onnx
over one traced graph). It is the graph ``ElmoEmbedder`` runs (``execution="graph"``, ``precision="float32"``),
traced with symbolic batch and time, so the file takes any batch and length: each LSTM layer's time loop (both
directions in one) becomes one ONNX ``Loop`` (a transformer has no loop: its attention masks are built from the traced
length), and padding is handled as there (steps past a sentence's length and rows of padding only are masked, and
zero in every layer).

The input and output are renamed ``char_ids`` (or ``word_ids``) and ``activations``, their free axes ``batch`` and
``time``. ``embedding.onnx_embedder.OnnxEmbedder`` runs the file on tokenized sentences without Keras.

Export needs the TensorFlow backend and the ``onnx`` extra (``pip install elmo_keras[onnx]``: onnx, tf2onnx,
onnxruntime); ``docs/onnx.md`` says why the other backends cannot export it.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import tempfile
import warnings

from elmo_keras._backend import check_onnx_export_backend
from elmo_keras._quiet import keras, ops
from elmo_keras.embedding.onnx_embedder import ONNX_AXES, ONNX_INPUTS, ONNX_OUTPUT
from elmo_keras.layers.bilm_base import BiLMBase
from elmo_keras.pretrained.cache_layout import refuse_cache_output
from elmo_keras.pretrained.export import pretrained_sources
from elmo_keras.safe_files import OutputOverwritesInputError, refuse_overwriting, replace_file


def export_onnx(model, path: str | os.PathLike, opset: int | None = None) -> pathlib.Path:
    """Write ``model``'s embedding computation to ``path`` as ONNX: ids → ``activations``.

    The file's input is ``char_ids`` int32 `(batch, time, 50)` (``word_ids`` `(batch, time)` for a word-level
    biLM): sentences with ``<S>``/``</S>``, right-padded with all-zero rows (``text.batching.sentence_ids``). Its
    output is ``activations`` float32 `(batch, num_layers + 1, time, 2 * dim)`, zero at padding: what
    ``ElmoEmbedder`` returns per sentence, before the boundaries are cut off. It computes in float32, whatever the
    ``precision`` of an ``ElmoEmbedder`` passed in. The file is written in one rename. ``path`` is checked before the
    export starts (tens of seconds for ELMo's sizes): every error below but a failing exporter comes at once.

    Args:
        model: a built ``BiLM`` or ``TransformerBiLM``, or an ``ElmoEmbedder`` or ``BiLanguageModel`` (its
            ``bilm``); stateless.
        path: the ``.onnx`` file to write.
        opset: int, the ONNX opset. Defaults to None (the exporter's default: 15 with tf2onnx 1.17).

    Returns:
        ``path`` as a ``pathlib.Path``.

    Raises:
        ValueError: not a biLM, not built, stateful, or a backend other than TensorFlow.
        IsADirectoryError: ``path`` is a directory.
        FileNotFoundError, NotADirectoryError, PermissionError: ``path``'s directory is missing, is a file, or is not
            writable.
        OutputOverwritesInputError (a ValueError): ``path`` is a file the model was loaded or fine-tuned from, lies
            in the download cache or is a cache record, lock or partial download (``downloads.refuse_cache_output``),
            or is an existing file that is not an ONNX model (only an ONNX file is replaced).
        ImportError: onnx or tf2onnx is not installed.

    Example:
        >>> embedder = ElmoEmbedder("options.json", "weights.hdf5")  # doctest: +SKIP
        >>> export_onnx(embedder, "elmo.onnx")  # doctest: +SKIP
        >>> OnnxEmbedder("elmo.onnx").embed_batch([["I", "sat", "by", "the", "bank"]])[0].shape  # doctest: +SKIP
        (3, 5, 1024)
    """
    bilm = _stateless_bilm(model)
    refuse_overwriting(path, {**pretrained_sources(model), **getattr(model, "source_files", {})},
                       getattr(model, "source_directories", None), what="the ONNX file")
    refuse_cache_output(path, what="the ONNX file")
    check_onnx_output(path)
    check_onnx_export_backend()
    _check_exporter_installed()
    input_name = ONNX_INPUTS[bilm.token_input]
    ids = keras.Input(bilm.input_ids_shape[1:], dtype="int32", name=input_name)
    activations = ops.stack(bilm(ids, training=False)["activations"], axis=1)  # (B, layers, T, 2 * dim)
    wrapper = keras.Model(ids, activations, name=f"{bilm.name}_onnx")
    spec = keras.InputSpec(shape=bilm.input_ids_shape, dtype="int32", name=input_name)
    with tempfile.TemporaryDirectory() as scratch:
        exported = os.path.join(scratch, "model.onnx")
        with warnings.catch_warnings():  # Keras' tf2onnx patch for NumPy 2 probes the removed np.object
            warnings.filterwarnings("ignore", message=".*np.object.*", category=FutureWarning)
            wrapper.export(exported, format="onnx", input_signature=[spec], opset_version=opset, verbose=False)
        graph = named_graph(exported, input_name)
    replace_file(path, lambda handle: handle.write(graph.SerializeToString()))
    return pathlib.Path(path)


def check_onnx_output(path: str | os.PathLike) -> None:
    """Refuse an ONNX output path that cannot be written, or where an existing file is not an ONNX model.

    Raises:
        IsADirectoryError: ``path`` is a directory.
        FileNotFoundError, NotADirectoryError, PermissionError: its directory is missing, a file, or not writable.
        OutputOverwritesInputError: an existing file there is not an ONNX model (a corpus, weights, ...).
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        raise IsADirectoryError(f"the ONNX file {path} is a directory; give the file to write, e.g. "
                                f"{os.path.join(path, 'elmo.onnx')}")
    directory = os.path.dirname(path) or os.curdir
    if not os.path.exists(directory):
        raise FileNotFoundError(f"cannot write the ONNX file {path}: its directory {directory} does not exist; "
                                "create it or choose another path")
    if not os.path.isdir(directory):
        raise NotADirectoryError(f"cannot write the ONNX file {path}: {directory} is a file, not a directory")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise PermissionError(f"cannot write the ONNX file {path}: no permission to write in {directory}; choose "
                              "another path")
    if os.path.lexists(path) and not _is_onnx_model(path):
        raise OutputOverwritesInputError(f"the ONNX file {path} exists and is not an ONNX model, and export_onnx "
                                         "replaces only ONNX files; choose another path, or remove it first if it "
                                         "is not needed")


def _is_onnx_model(path: str) -> bool:
    """Whether ``path`` is a regular file holding an ONNX model with a graph (its external data not read)."""
    if not os.path.isfile(path):
        return False
    if importlib.util.find_spec("onnx") is None:  # cannot tell: export needs onnx anyway (refused next)
        return True
    import onnx  # optional dependency (the onnx extra), loaded on first use

    try:
        model = onnx.load(path, load_external_data=False)
    except Exception:  # protobuf's DecodeError and onnx's own errors, by version: any means "not a model"
        return False
    return model.HasField("graph") and len(model.graph.node) > 0


def _check_exporter_installed() -> None:
    missing = [name for name in ("onnx", "tf2onnx") if importlib.util.find_spec(name) is None]
    if missing:
        raise ImportError(f"export_onnx needs {' and '.join(missing)}: pip install elmo_keras[onnx]")


def _stateless_bilm(model) -> BiLMBase:
    bilm = getattr(model, "bilm", model)  # an ElmoEmbedder or a BiLanguageModel holds one
    if not isinstance(bilm, BiLMBase):
        raise ValueError(f"expected a BiLM or TransformerBiLM, an ElmoEmbedder or a BiLanguageModel to export, "
                         f"received {type(model).__name__}")
    if not bilm.built:
        raise ValueError("the biLM is not built (it has no weights yet); call it on ids or load it first")
    if bilm.stateful:
        raise ValueError("a stateful biLM carries LSTM state from call to call, which an ONNX graph cannot keep; "
                         "export bilm.copy(stateful=False) (or an ElmoEmbedder made with stateful=False)")
    return bilm


def named_graph(path: str | os.PathLike, input_name: str):
    """The ONNX model at ``path`` (one input, one output) with its output renamed ``ONNX_OUTPUT`` and the first two
    axes of both named ``ONNX_AXES``, checked by ``onnx.checker``.

    Raises:
        ValueError: the graph's input is not ``input_name`` or it has more than one input or output.
    """
    import onnx  # optional dependency (the onnx extra), loaded on first use

    model = onnx.load(os.fspath(path))
    graph = model.graph
    if [i.name for i in graph.input] != [input_name] or len(graph.output) != 1:
        raise ValueError(f"expected one input named {input_name!r} and one output, the exporter wrote inputs "
                         f"{[i.name for i in graph.input]} and {len(graph.output)} outputs")
    old = graph.output[0].name
    for node in graph.node:
        node.input[:] = [ONNX_OUTPUT if name == old else name for name in node.input]
        node.output[:] = [ONNX_OUTPUT if name == old else name for name in node.output]
    graph.output[0].name = ONNX_OUTPUT
    for value, axes in ((graph.input[0], (0, 1)), (graph.output[0], (0, 2))):  # output: (batch, layers, time, dim)
        dims = value.type.tensor_type.shape.dim
        for axis, axis_name in zip(axes, ONNX_AXES):
            dims[axis].dim_param = axis_name
    onnx.checker.check_model(model)
    return model
