"""Write a character-level ``BiLM`` back as an original ELMo ``options.json`` + ``weights.hdf5``.

``export_pretrained`` = ``options_from_bilm`` (the architecture as ``ElmoOptions``) → ``bilm_tf_tensors`` (every
weight converted to bilm-tf's layout by the inverses of the conversions in ``elmo_keras.pretrained.weights``,
each a small named function below) → two atomic file writes. The result loads with ``load_pretrained_bilm``
(and any reader of the bilm-tf / AllenNLP layout) and gives the same activations.

What the inverse cannot keep, and why that changes no output:

- Row 0 of our character embedding ("no character") is dropped: only all-padding tokens read it, and the
  biLM masks those out (``drop_padding_char_row``).
- bilm-tf has no ``CNN_proj`` when the filters already have the LSTM width; the loader then sets an identity
  projection, so an exported model must still have one there (``identity_projection_or_error``).

The softmax is left out by default, as in the released weight files (bilm-tf's ``dump_weights`` skips it and
the loader ignores it). Passing ``vocabulary_file`` writes it as bilm-tf's training checkpoints held it,
``softmax/W`` `(vocab, dim)` and ``softmax/b`` `(vocab,)`, with the vocabulary in bilm-tf's format
(``elmo_keras.text.vocabulary_files``: ``<S>``, ``</S>``, ``<UNK>``, then the words, one per line, in the
softmax's row order; no padding row).

An export never writes over the files the model was loaded or fine-tuned from (``pretrained_sources``; through
symlinks and hard links too), and never replaces a weight file holding a tensor it would not write again.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
from typing import BinaryIO

import h5py
import numpy as np

from elmo_keras._quiet import keras
from elmo_keras.layers.bilm import BiLM
from elmo_keras.layers.bilm_base import BiLMBase
from elmo_keras.models.bilm.language_model import BiLanguageModel
from elmo_keras.pretrained.cache_layout import refuse_cache_output
from elmo_keras.pretrained.options import CharCNNOptions, ElmoOptions, LSTMOptions
from elmo_keras.pretrained.weights import (
    BACKWARD,
    CHAR_EMBEDDING,
    FORWARD,
    PROJECTION_NAMES,
    TF_LSTM_FORGET_BIAS,
    conv_names,
    highway_names,
    lstm_names,
)
from elmo_keras.safe_files import refuse_overwriting, write_beside
from elmo_keras.text.char_ids import MAX_CHARS_PER_TOKEN, NUM_CHAR_IDS
from elmo_keras.text.vocabulary import UNK_ID
from elmo_keras.text.vocabulary_files import BILM_UNK_TOKEN, bilm_vocabulary_bytes, bilm_vocabulary_lines

SOFTMAX_NAMES = ("softmax/W", "softmax/b")  # bilm-tf's training checkpoint names (not in the released files)


# -- conversions: the inverses of elmo_keras.pretrained.weights -------------------------------------------------


def drop_padding_char_row(char_embed: np.ndarray) -> np.ndarray:
    """Our `(262, dim)` character embedding → bilm-tf's `(261, dim)`: row 0 ("no character") is dropped.

    Inverse of ``prepend_padding_char_row`` for every row a real token reads (ours are the original ids + 1).
    """
    return char_embed[1:]


def conv1d_kernel_to_conv2d(kernel: np.ndarray) -> np.ndarray:
    """Conv1D's `(width, char_dim, count)` kernel → bilm-tf's ``W_cnn_i`` `(1, width, char_dim, count)`.

    Raises:
        ValueError: ``kernel`` is not 3-D.
    """
    if kernel.ndim != 3:
        raise ValueError(f"expected a (width, char_dim, count) kernel, received shape {kernel.shape}")
    return kernel[np.newaxis]


def keras_gates_to_tf_order(array: np.ndarray) -> np.ndarray:
    """Reorder the last axis, `(..., 4 * units)`, from our gates ``[i, f, g, o]`` to TensorFlow ``LSTMCell``'s
    ``[i, j, f, o]`` (``j = g``); inverse of ``tf_gates_to_keras_order``."""
    i, f, g, o = np.split(array, 4, axis=-1)
    return np.concatenate([i, g, f, o], axis=-1)


def unfold_forget_bias(bias: np.ndarray, forget_bias: float = TF_LSTM_FORGET_BIAS) -> np.ndarray:
    """Subtract TensorFlow's run-time ``forget_bias`` from the forget block of a `(..., 4 * units)` bias in our
    ``[i, f, g, o]`` order (TF adds it back when it runs); inverse of ``fold_forget_bias``. Returns a copy."""
    units = bias.shape[-1] // 4
    unfolded = bias.copy()
    unfolded[..., units : 2 * units] -= forget_bias
    return unfolded


def join_lstm_kernel(kernel: np.ndarray, recurrent_kernel: np.ndarray) -> np.ndarray:
    """``kernel`` `(input_dim, 4U)` and ``recurrent_kernel`` `(output_dim, 4U)` → TensorFlow's fused ``W_0``
    `(input_dim + output_dim, 4U)` (rows = ``[input; previous output]``); inverse of ``split_lstm_kernel``."""
    return np.concatenate([kernel, recurrent_kernel], axis=0)


def lstm_cell_to_tf(kernel, recurrent_kernel, bias, projection_kernel=None) -> dict[str, np.ndarray]:
    """Our ``ProjectedLSTMCell`` weights → one TF ``LSTMCell``'s tensors; inverse of ``convert_lstm_cell``.

    Args:
        kernel: `(input_dim, 4U)`; recurrent_kernel: `(output_dim, 4U)`; bias: `(4U,)` (forget bias folded in),
            all in our ``[i, f, g, o]`` order; projection_kernel: `(U, P)` or None (no projection).

    Returns:
        ``{"W_0": (input_dim + output_dim, 4U), "B": (4U,)}`` in TF's gate order, plus ``"W_P_0"`` `(U, P)` when
        projecting.
    """
    tensors = {
        "W_0": join_lstm_kernel(keras_gates_to_tf_order(kernel), keras_gates_to_tf_order(recurrent_kernel)),
        "B": keras_gates_to_tf_order(unfold_forget_bias(bias)),
    }
    if projection_kernel is not None:
        tensors["W_P_0"] = projection_kernel
    return tensors


def identity_projection_or_error(kernel: np.ndarray, bias: np.ndarray) -> None:
    """Check that the token projection is the identity the loader puts where bilm-tf has none.

    Raises:
        ValueError: it is not (it was trained), saying how to keep it fixed.
    """
    if np.array_equal(kernel, np.eye(kernel.shape[0], dtype=kernel.dtype)) and not bias.any():
        return
    raise ValueError(
        f"the character CNN's filters ({kernel.shape[0]}) already have the LSTM width, so the original format has "
        "no CNN_proj tensor and the projection must stay the identity, but this model's projection was changed "
        "(trained); freeze it before training (token_encoder.projection.trainable = False, as "
        "fine_tune_pretrained does) or add a projection by choosing a different lstm.projection_dim"
    )


# -- the whole biLM -----------------------------------------------------------------------------------------------


def bilm_of(model) -> BiLM:
    """The ``BiLM`` of ``model`` (a ``BiLM`` or a ``BiLanguageModel``), checked to be exportable.

    Raises:
        ValueError: ``model`` is neither, is not built, reads word ids (the original format is char-based), or is a
            transformer (the format holds only LSTM biLMs).
    """
    bilm = model.bilm if isinstance(model, BiLanguageModel) else model
    if isinstance(bilm, BiLMBase) and not isinstance(bilm, BiLM):
        raise ValueError(f"the bilm-tf format (options.json + HDF5 weights) holds only LSTM biLMs, not a "
                         f"{type(bilm).__name__}: save it with model.save(...) or export_onnx instead")
    if not isinstance(bilm, BiLM):
        raise ValueError(f"expected a BiLM or a BiLanguageModel to export, received {type(model).__name__}")
    if bilm.token_input != "char":
        raise ValueError(
            "this biLM reads word ids (a WordEmbedding token encoder), but the original ELMo format describes a "
            "character CNN only; train a character-level model (token_input='char', e.g. the 'char-toy' size) "
            "to export it"
        )
    if not bilm.built:
        raise ValueError("the biLM is not built (it has no weights yet); call it on character ids or train it first")
    return bilm


def options_from_bilm(bilm: BiLM, source: str = "<exported>") -> ElmoOptions:
    """The ``ElmoOptions`` describing a character-level ``bilm`` (the inverse of ``bilm_from_options``).

    Raises:
        ValueError: a setting the original format cannot express (named).
    """
    encoder = bilm.token_encoder
    if encoder.n_characters != NUM_CHAR_IDS or encoder.max_characters_per_token != MAX_CHARS_PER_TOKEN:
        raise ValueError(
            f"the original format has {NUM_CHAR_IDS} character ids and {MAX_CHARS_PER_TOKEN} characters per token; "
            f"this character CNN has n_characters={encoder.n_characters} and "
            f"max_characters_per_token={encoder.max_characters_per_token}"
        )
    char_cnn = CharCNNOptions(
        embedding_dim=encoder.embedding_dim,
        filters=tuple((int(width), int(count)) for width, count in encoder.filters),
        n_highway=encoder.n_highway,
        activation=encoder.activation,
        n_characters=NUM_CHAR_IDS,
        max_characters_per_token=MAX_CHARS_PER_TOKEN,
    )
    output_dim = bilm.projection_dim or bilm.units
    lstm = LSTMOptions(
        dim=bilm.units,
        projection_dim=output_dim,
        n_layers=bilm.num_layers,
        cell_clip=None if bilm.cell_clip is None else float(bilm.cell_clip),
        proj_clip=None if bilm.proj_clip is None or bilm.projection_dim is None else float(bilm.proj_clip),
        use_skip_connections=bilm.use_skip_connections,
    )
    return ElmoOptions(char_cnn=char_cnn, lstm=lstm, source=source)


def bilm_tf_tensors(bilm: BiLM) -> dict[str, np.ndarray]:
    """Every weight of a built character-level ``bilm`` as ``{bilm-tf tensor name: float32 array}``.

    Raises:
        ValueError: as ``bilm_of``, or a trained identity projection (``identity_projection_or_error``).
    """
    bilm = bilm_of(bilm)
    encoder = bilm.token_encoder

    def value(variable) -> np.ndarray:
        return np.asarray(keras.ops.convert_to_numpy(variable), dtype=np.float32)

    tensors = {CHAR_EMBEDDING: drop_padding_char_row(value(encoder.char_embedding.embeddings))}
    for i, conv in enumerate(encoder.convolutions):
        kernel_name, bias_name = conv_names(i)
        tensors[kernel_name] = conv1d_kernel_to_conv2d(value(conv.kernel))
        tensors[bias_name] = value(conv.bias)
    highway = encoder.highway
    for i in range(encoder.n_highway):  # the tensors map one-to-one (see weights.convert_highway)
        names = highway_names(i)
        tensors[names["W_carry"]] = value(highway.gate_kernels[i])
        tensors[names["b_carry"]] = value(highway.gate_biases[i])
        tensors[names["W_transform"]] = value(highway.transform_kernels[i])
        tensors[names["b_transform"]] = value(highway.transform_biases[i])
    kernel, bias = value(encoder.projection.kernel), value(encoder.projection.bias)
    if encoder.num_filters == encoder.projection_dim:
        identity_projection_or_error(kernel, bias)
    else:
        tensors[PROJECTION_NAMES[0]], tensors[PROJECTION_NAMES[1]] = kernel, bias
    for direction, stack in ((FORWARD, bilm.forward_lstm), (BACKWARD, bilm.backward_lstm)):
        for layer, cell in enumerate(stack.cells):
            names = lstm_names(direction, layer)
            projection = None if cell.projection_kernel is None else value(cell.projection_kernel)
            converted = lstm_cell_to_tf(value(cell.kernel), value(cell.recurrent_kernel), value(cell.bias), projection)
            tensors.update({names[part]: array for part, array in converted.items()})
    return tensors


def softmax_tensors(model: BiLanguageModel) -> tuple[dict[str, np.ndarray], list[str]]:
    """The softmax of ``model`` in bilm-tf's layout and its vocabulary file's lines, in the same order.

    The lines are ``bilm_vocabulary_lines`` (``<S>``, ``</S>``, ``<UNK>``, then the words; no ``<pad>``: it is
    never a target), and softmax row ``k`` scores line ``k``.

    Returns:
        ``({"softmax/W": (vocab - 1, dim), "softmax/b": (vocab - 1,)}, lines)``.

    Raises:
        ValueError: ``model`` has no vocabulary; ``VocabularyFileError`` (a ``ValueError``): a word the format
            cannot store (whitespace inside, or spelled like one of bilm-tf's special tokens).
    """
    vocabulary = getattr(model, "vocabulary", None)
    if vocabulary is None:
        raise ValueError("the model has no vocabulary, so its softmax rows name no words; set model.vocabulary")
    lines = bilm_vocabulary_lines(vocabulary)
    rows = [UNK_ID if line == BILM_UNK_TOKEN else vocabulary.token_to_id(line) for line in lines]
    kernel = np.asarray(keras.ops.convert_to_numpy(model.softmax.kernel), dtype=np.float32)  # (dim, vocab)
    bias = np.asarray(keras.ops.convert_to_numpy(model.softmax.bias), dtype=np.float32)  # (vocab,)
    return {SOFTMAX_NAMES[0]: kernel.T[rows], SOFTMAX_NAMES[1]: bias[rows]}, lines


# -- writing --------------------------------------------------------------------------------------------------------


def export_pretrained(model, options_file: str | os.PathLike, weight_file: str | os.PathLike,
                      vocabulary_file: str | os.PathLike | None = None) -> ElmoOptions:
    """Write ``model`` as an original ELMo ``options.json`` + HDF5 weight file (and optionally its softmax).

    Args:
        model: a built character-level ``BiLM``, or a ``BiLanguageModel`` over one (e.g. from
            ``fine_tune_pretrained`` or ``train_bilm(size="char-toy")``).
        options_file: where to write ``options.json``.
        weight_file: where to write the HDF5 weights (``char_embed``, ``CNN*``, ``RNN_*``; see
            ``elmo_keras.pretrained.weights``).
        vocabulary_file: None (the default, like the released files: no softmax), or where to write the
            vocabulary in bilm-tf's format; then ``softmax/W`` and ``softmax/b`` go into the weight file too.
            Needs a ``BiLanguageModel`` with a ``vocabulary``.

    Returns:
        The written ``ElmoOptions``.

    Every file is first written to a temporary file beside it; only when all are complete are they renamed over
    their targets, so a reader sees the previous file or the complete new one, and a failed write (a full disk)
    replaces none of them. Nothing is written when a check fails.

    An existing HDF5 weight file is replaced only when every tensor it holds is written again: an export never
    loses a tensor (e.g. the ``softmax/W``, ``softmax/b`` of a file exported with a vocabulary file).

    Raises:
        ValueError: a word-level or unbuilt model, a trained identity projection, a softmax asked of a
            ``BiLM`` or a model without a vocabulary, two outputs on one path, or an existing HDF5 ``weight_file``
            holding tensors this export would not write (listed) or that cannot be read.
        OutputOverwritesInputError: an output is one of the files the model was loaded or fine-tuned from
            (``pretrained_sources``), symlinks and hard links included; or it lies in the download cache, or is a
            cache record (``NAME.sha256``), lock (``NAME.lock``) or partial download of a file beside it.
    """
    bilm = bilm_of(model)
    outputs = {"the options file": options_file, "the weight file": weight_file, "the vocabulary file": vocabulary_file}
    _check_outputs(model, outputs)
    options = options_from_bilm(bilm, source=os.fspath(options_file))
    tensors = bilm_tf_tensors(bilm)
    writers = {weight_file: lambda handle: _write_hdf5(handle, tensors),
               options_file: lambda handle: _write_json(handle, options.to_dict())}
    if vocabulary_file is not None:
        if not isinstance(model, BiLanguageModel):
            raise ValueError("a softmax can only be exported from a BiLanguageModel (a BiLM has none); "
                             "pass vocabulary_file=None")
        softmax, _ = softmax_tensors(model)
        tensors.update(softmax)
        vocabulary_text = bilm_vocabulary_bytes(model.vocabulary)  # the lines softmax_tensors ordered the rows by
        writers[vocabulary_file] = lambda handle: handle.write(vocabulary_text)
    _check_no_tensor_lost(weight_file, tensors)
    _write_all_or_nothing(writers)
    return options


def pretrained_sources(model) -> dict[str, str]:
    """``{"the weight file the model was loaded from": path, ...}``: the original files ``model`` (a ``BiLM`` or a
    ``BiLanguageModel``) was loaded from (``BiLM.pretrained_files``, set by ``load_pretrained_bilm`` and kept by
    ``BiLM.copy``) or fine-tuned from (``training_summary["pretrained"]``, also in a saved model directory)."""
    found = {}
    records = [("fine-tuned", (getattr(model, "training_summary", None) or {}).get("pretrained"))]
    for layer in (model, getattr(model, "bilm", None)):
        records.append(("loaded", getattr(layer, "pretrained_files", None)))
    for how, record in records:
        for key, what in (("options_file", "options file"), ("weight_file", "weight file")):
            if isinstance(record, dict) and record.get(key):
                found.setdefault(f"the {what} the model was {how} from", os.fspath(record[key]))
    return found


def _check_outputs(model, outputs: dict) -> None:
    """Refuse two outputs on one path, any output onto a file the model was loaded or fine-tuned from, and any
    output in the download cache or onto a cache record, lock or partial download (``refuse_cache_output``)."""
    given = {what: path for what, path in outputs.items() if path is not None}
    whats = list(given)
    for index, what in enumerate(whats):
        refuse_overwriting(given[what], {other: given[other] for other in whats[index + 1 :]}, what=what)
    read = pretrained_sources(model)
    for what, path in given.items():
        refuse_overwriting(path, read, what=what)
    for what, path in given.items():
        refuse_cache_output(path, what=what)


def _check_no_tensor_lost(weight_file, tensors: dict) -> None:
    """Refuse to replace an existing HDF5 ``weight_file`` holding a tensor not in ``tensors`` (or unreadable)."""
    path = os.fspath(weight_file)
    if not os.path.isfile(path) or not h5py.is_hdf5(path):  # no file, or one holding no tensors to lose
        return
    names = []
    try:
        with h5py.File(path, "r") as handle:
            handle.visititems(lambda name, item: names.append(name) if isinstance(item, h5py.Dataset) else None)
    except (OSError, KeyError, RuntimeError) as error:  # what h5py raises for a damaged file
        raise ValueError(f"the weight file {path} exists but cannot be read ({error}), so replacing it could lose "
                         "tensors; choose another path, or remove it first if it is not needed") from None
    lost = sorted(set(names) - set(tensors))
    if lost:
        shown = ", ".join(lost[:8]) + (f" and {len(lost) - 8} more" if len(lost) > 8 else "")
        hint = ("pass vocabulary_file to export the softmax too, " if set(lost) <= set(SOFTMAX_NAMES) else "")
        raise ValueError(f"the weight file {path} holds {len(lost)} tensor(s) this export would not write ({shown}); "
                         f"replacing it would lose them: {hint}choose another path, or remove the file first if "
                         "they are not needed")


def _write_json(handle: BinaryIO, data: dict) -> None:
    handle.write(json.dumps(data).encode("utf-8"))  # one line, as bilm-tf wrote options.json


def _write_hdf5(handle: BinaryIO, tensors: dict[str, np.ndarray]) -> None:
    """One float32 dataset per tensor (groups made from the ``/`` in the names), as bilm-tf's ``dump_weights``."""
    with h5py.File(handle, "w") as weights:
        for name in sorted(tensors):
            weights.create_dataset(name, data=tensors[name].astype(np.float32))


def _write_all_or_nothing(writers: dict) -> None:
    """``{target: write}``: each ``write(handle)`` fills a hidden temporary file beside its target
    (``safe_files.write_beside``: flushed, ``fsync``-ed, a new file's permissions); only when every one succeeded
    are they renamed over their targets, one after another.

    A failed write (a full disk, an error in ``write``) leaves every previous file as it was. A rename that fails
    after an earlier one succeeded (the files are all written by then, so only the file system can fail it) leaves
    the earlier targets new and the later ones as they were. No temporary file is left behind either way.
    """
    for target in writers:  # before writing anything: a rename onto a directory would fail after another's
        if pathlib.Path(target).is_dir():
            raise IsADirectoryError(f"cannot write {target}: it is a directory; choose a file name")
    staged = []
    try:
        for target, write in writers.items():
            staged.append((write_beside(target, write), target))
        for temporary, target in staged:
            os.replace(temporary, target)
    finally:
        for temporary, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
