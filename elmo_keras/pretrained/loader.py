"""Build a ``BiLM`` from an original ELMo ``options.json`` and fill it from the matching ``weights.hdf5``.

``load_pretrained_bilm`` = ``local_model_files`` (a released model's name or URLs → cached local files) →
``ElmoOptions.load`` → ``bilm_from_options`` (architecture only, no I/O) →
``read_weight_file`` → ``set_pretrained_weights`` (converts each tensor with the named functions of
``elmo_keras.pretrained.weights``, checks every shape against what the options imply, and rejects a file with
biLM tensors the options leave unused).
"""

from __future__ import annotations

import contextlib
import os

import numpy as np

from elmo_keras._quiet import keras
from elmo_keras.layers.bilm import BiLM
from elmo_keras.layers.char_cnn import CharCNN
from elmo_keras.layers.elmo import Elmo
from elmo_keras.limits import check_fits_in_memory
from elmo_keras.pretrained.model_files import local_model_files
from elmo_keras.pretrained.options import ElmoOptions, OptionsError
from elmo_keras.pretrained.weights import (
    BACKWARD,
    CHAR_EMBEDDING,
    FORWARD,
    PROJECTION_NAMES,
    WeightFileError,
    check_all_bilm_tensors_used,
    conv2d_kernel_to_conv1d,
    conv_names,
    convert_highway,
    convert_lstm_cell,
    highway_names,
    lstm_names,
    prepend_padding_char_row,
    read_weight_file,
    take_tensor,
)
from elmo_keras.text.char_ids import MAX_CHARS_PER_TOKEN, NUM_CHAR_IDS

LOADING_COPIES = 2  # while loading: the weight file's arrays and the model's variables


def bilm_from_options(options: ElmoOptions, stateful: bool = False, name: str = "elmo_bilm") -> BiLM:
    """An unbuilt, randomly initialised ``BiLM`` (``CharCNN`` encoder) with the architecture of ``options``.

    Args:
        options: the validated ``options.json``.
        stateful: bool, carry LSTM state across calls (see ``BiLM``). Defaults to False.
        name: str, the layer name. Defaults to ``"elmo_bilm"``.

    Raises:
        OptionsError: the model would not fit in this machine's memory (naming the field that makes it large).
    """
    check_fits_in_memory(options.parameter_count(), options.parameter_count, options.size_fields(), LOADING_COPIES,
                         _too_large(options))
    cnn, lstm = options.char_cnn, options.lstm
    encoder = CharCNN(
        embedding_dim=cnn.embedding_dim,
        filters=cnn.filters,
        n_highway=cnn.n_highway,
        activation=cnn.activation,
        n_characters=NUM_CHAR_IDS,
        max_characters_per_token=cnn.max_characters_per_token,
        projection_dim=lstm.projection_dim,
        name="char_cnn",
    )
    return BiLM(
        encoder,
        units=lstm.dim,
        num_layers=lstm.n_layers,
        projection_dim=lstm.projection_dim if lstm.has_projection else None,
        cell_clip=lstm.cell_clip,
        proj_clip=lstm.proj_clip,
        use_skip_connections=lstm.use_skip_connections,
        stateful=stateful,
        name=name,
    )


def _too_large(options: ElmoOptions):
    """``refuse`` for ``limits.check_fits_in_memory``: an ``OptionsError`` naming the size field of ``options``."""

    def refuse(field: str, shortfall: str) -> OptionsError:
        size = options.size_fields()[field]
        value = f"(with {size:,} filters in all)" if field == "char_cnn.filters" else f"= {size:,}"
        return OptionsError(options.source, field,
                            f"{value} is too large for this machine: {shortfall}; check the value (a typo?)")

    return refuse


def load_pretrained_bilm(options_file: str | os.PathLike, weight_file: str | os.PathLike | None = None,
                         stateful: bool = False) -> BiLM:
    """The original ELMo biLM as a built ``BiLM`` layer with the pretrained weights: the options + weights kind of
    the one load verb, ``BiLM.from_preset((options_file, weight_file))`` / ``BiLM.from_preset("elmo_small_en")``,
    which call it (kept under this name because rounds 1–3 published it).

    ``load_pretrained_bilm("elmo_small_en")`` loads a released pair by preset name or alias (``pretrained.registry``);
    either file may be an ``http(s)://`` URL. Both are downloaded once into the
    cache and verified at every load (``pretrained.downloads``).

    Args:
        options_file: the model's ``options.json`` (a path or URL), or a released model's name.
        weight_file: the model's HDF5 weights (a path or URL). Defaults to None (``options_file`` is a name).
        stateful: carry LSTM state across calls per batch row like the original ELMo (default: stateless,
            every call starts from zero state).

    Returns:
        A ``BiLM`` taking character ids `(batch, time, 50)` *with* ``<S>``/``</S>`` (see
        ``add_sentence_boundaries``) and returning ``{"activations": [3 × (batch, time, 2 * projection_dim)], "mask"}``.
        Its ``pretrained_files`` (``{"options_file", "weight_file"}``, absolute paths) name the two files, which
        ``export_pretrained`` will not write over.

    Raises:
        FileNotFoundError: either file is missing.
        TypeError, ValueError: an unknown name (the message lists the released ones), an argument of another type.
        DownloadError, OfflineError, CachedFileChangedError: a download failed or cannot be made (offline), or a
            cached file changed since it was downloaded (``pretrained.downloads``).
        OptionsError: a field of ``options.json`` is missing or invalid (named).
        WeightFileError: the weights are not HDF5 or cannot be read, a tensor is missing or has a shape the
            options do not allow (the message names the weight file, the tensor, and the expected shape with the
            options fields it comes from), or the file has biLM tensors the options do not use (listed).
    """
    options_file, weight_file = local_model_files(options_file, weight_file)
    options = ElmoOptions.load(options_file)
    bilm = bilm_from_options(options, stateful=stateful)  # checks the size before the weights are read
    tensors = read_weight_file(weight_file)
    with random_initialisation_skipped(bilm):  # every weight is overwritten next
        bilm.build((None, None, MAX_CHARS_PER_TOKEN))
    set_pretrained_weights(bilm, options, tensors, os.fspath(weight_file))
    # the model knows its files: export_pretrained refuses to write over them (BiLM.copy keeps this)
    bilm.pretrained_files = {"options_file": os.path.abspath(options_file), "weight_file": os.path.abspath(weight_file)}
    return bilm


@contextlib.contextmanager
def random_initialisation_skipped(layer: keras.layers.Layer):
    """Build ``layer`` (and the sublayers it holds before ``build``) with zero-filled weights, initialisers restored.

    For a model whose weights are all assigned from a file right after: at the original ELMo size the random
    initialisation the file overwrites (the orthogonal recurrent kernels' QR above all) is nearly all of the build
    (measured in docs/speed.md, "Building a released model"). The initialisers are put back after ``build``, so
    ``get_config``, ``.keras`` files and later builds are unchanged. ``set_pretrained_weights`` fails on a tensor the
    file lacks, so no zero weight is left behind.
    """
    swapped = []
    # private but stable Keras 3 walk over every nested layer (Layer has no public recursive listing)
    for sublayer in layer._flatten_layers(include_self=True, recursive=True):
        for attribute, value in list(vars(sublayer).items()):
            if isinstance(value, keras.initializers.Initializer):
                swapped.append((sublayer, attribute, value))
                setattr(sublayer, attribute, keras.initializers.Zeros())
    try:
        yield layer
    finally:
        for sublayer, attribute, value in swapped:
            setattr(sublayer, attribute, value)


def set_pretrained_weights(bilm: BiLM, options: ElmoOptions, tensors: dict[str, np.ndarray], path: str) -> None:
    """Convert ``tensors`` (from ``read_weight_file(path)``) and assign them to a built ``bilm``.

    Every tensor in the biLM's groups (``char_embed``, ``CNN*``, ``RNN_*``) must be used; other top-level groups
    (e.g. softmax weights) are ignored.

    Args:
        bilm: a built ``BiLM`` from ``bilm_from_options(options)``.
        options: the options the shapes are checked against.
        tensors: ``{name: array}`` in bilm-tf's layout (``elmo_keras.pretrained.weights``).
        path: str, the weight file, named in errors.

    Raises:
        WeightFileError: a tensor is missing or has the wrong shape (see ``take_tensor``), or a biLM tensor of the
            file is not used by ``options`` (more layers, highways or projections than the options describe).
    """
    cnn, lstm = options.char_cnn, options.lstm
    source = options.source
    encoder = bilm.token_encoder
    taken: set[str] = set()

    def take(name: str, expected_shape: tuple, because: str) -> np.ndarray:
        taken.add(name)
        return take_tensor(tensors, name, expected_shape, path, because)

    char_embed = take(CHAR_EMBEDDING, (NUM_CHAR_IDS - 1, cnn.embedding_dim), f"char_cnn.embedding.dim in {source}")
    _assign(encoder.char_embedding.embeddings, prepend_padding_char_row(char_embed), CHAR_EMBEDDING, path)

    for i, ((width, count), conv) in enumerate(zip(cnn.filters, encoder.convolutions)):
        kernel_name, bias_name = conv_names(i)
        because = f"char_cnn.filters[{i}] = [{width}, {count}] and char_cnn.embedding.dim in {source}"
        kernel = take(kernel_name, (1, width, cnn.embedding_dim, count), because)
        _assign(conv.kernel, conv2d_kernel_to_conv1d(kernel), kernel_name, path)
        _assign(conv.bias, take(bias_name, (count,), because), bias_name, path)

    highway = encoder.highway
    width = cnn.n_filters
    for i in range(cnn.n_highway):
        names = highway_names(i)
        because = f"the sum of char_cnn.filters counts ({width}) in {source}"
        raw = {
            part: take(name, (width, width) if part.startswith("W") else (width,), because)
            for part, name in names.items()
        }
        converted = convert_highway(raw["W_carry"], raw["b_carry"], raw["W_transform"], raw["b_transform"])
        _assign(highway.gate_kernels[i], converted["gate_kernel"], names["W_carry"], path)
        _assign(highway.gate_biases[i], converted["gate_bias"], names["b_carry"], path)
        _assign(highway.transform_kernels[i], converted["transform_kernel"], names["W_transform"], path)
        _assign(highway.transform_biases[i], converted["transform_bias"], names["b_transform"], path)

    kernel_name, bias_name = PROJECTION_NAMES
    if width != lstm.projection_dim:
        because = f"char_cnn.filters ({width} filters) and lstm.projection_dim in {source}"
        kernel = take(kernel_name, (width, lstm.projection_dim), because)
        bias = take(bias_name, (lstm.projection_dim,), because)
    else:  # bilm-tf has no projection when the filters already have the LSTM width: identity
        kernel, bias = np.eye(width, dtype=np.float32), np.zeros(width, dtype=np.float32)
    _assign(encoder.projection.kernel, kernel, kernel_name, path)
    _assign(encoder.projection.bias, bias, bias_name, path)

    for direction, stack in ((FORWARD, bilm.forward_lstm), (BACKWARD, bilm.backward_lstm)):
        for layer, cell in enumerate(stack.cells):
            names = lstm_names(direction, layer)
            input_dim = lstm.projection_dim  # the token width for layer 0, the previous layer's output above
            because = f"lstm.dim = {lstm.dim} and lstm.projection_dim = {lstm.projection_dim} in {source}"
            w_0 = take(names["W_0"], (input_dim + lstm.output_dim, 4 * lstm.dim), because)
            b = take(names["B"], (4 * lstm.dim,), because)
            w_p = take(names["W_P_0"], (lstm.dim, lstm.projection_dim), because) if lstm.has_projection else None
            converted = convert_lstm_cell(w_0, b, w_p, input_dim)
            _assign(cell.kernel, converted["kernel"], names["W_0"], path)
            _assign(cell.recurrent_kernel, converted["recurrent_kernel"], names["W_0"], path)
            _assign(cell.bias, converted["bias"], names["B"], path)
            if w_p is not None:
                _assign(cell.projection_kernel, converted["projection_kernel"], names["W_P_0"], path)

    check_all_bilm_tensors_used(tensors, taken, path, source)


def _assign(variable, value: np.ndarray, tensor_name: str, path: str) -> None:
    """``variable.assign(value)`` after checking the converted shape (names the source tensor otherwise)."""
    if tuple(variable.shape) != tuple(value.shape):
        raise WeightFileError(
            path, tensor_name,
            f"converts to shape {tuple(value.shape)} but the layer weight {variable.path} "
            f"has shape {tuple(variable.shape)}",
        )
    variable.assign(value.astype(variable.dtype))


def load_pretrained_elmo(options_file: str | os.PathLike, weight_file: str | os.PathLike | None = None,
                         num_output_representations: int = 1, stateful: bool = False, **elmo_kwargs) -> Elmo:
    """Alias of ``Elmo.from_preset(name or (options_file, weight_file), ...)``, kept because rounds 1–3 published
    it (AllenNLP's ``Elmo(options, weights, ...)`` spelling)."""
    source = options_file if weight_file is None else (options_file, weight_file)
    return Elmo.from_preset(source, num_output_representations, stateful=stateful, **elmo_kwargs)
