"""Reading the original ELMo weight file (HDF5) and converting its tensors to the layout of our layers.

HDF5 layout (bilm-tf ``dump_weights``, as distributed by AllenNLP)::

    char_embed                                             (261, char_dim)
    CNN/W_cnn_{i}, CNN/b_cnn_{i}                           (1, width, char_dim, count), (count,)
    CNN_high_{i}/W_carry, b_carry, W_transform, b_transform
    CNN_proj/W_proj, b_proj                                (n_filters, projection_dim), (projection_dim,)
    RNN_{d}/RNN/MultiRNNCell/Cell{layer}/LSTMCell/W_0      (input_dim + output_dim, 4 * cells)
                                                 .../B     (4 * cells,)
                                                 .../W_P_0 (cells, projection_dim)      (if projecting)

with ``d = 0`` forward and ``d = 1`` backward. Each difference from our layers is one small named function
below, tested on its own: gate order, forget-gate bias, the split of ``W_0`` into input and recurrent rows,
the "no character" embedding row and the convolution kernel layout. The highway tensors need no
numerical change (see ``convert_highway``).
"""

from __future__ import annotations

import os

import h5py
import numpy as np

from elmo_keras.pretrained.options import PretrainedFileError

TF_LSTM_FORGET_BIAS = 1.0  # tf.nn.rnn_cell.LSTMCell(forget_bias=1.0) adds this at run time; it is not in B
FORWARD, BACKWARD = 0, 1  # the d in RNN_{d}
CHAR_EMBEDDING = "char_embed"
MAX_LISTED_TENSORS = 8  # in the "unused tensors" error
NUMERIC_KINDS = "iuf"  # NumPy dtype kinds a weight tensor may have: int, unsigned, float


class WeightFileError(PretrainedFileError):
    """The HDF5 weight file cannot be read, lacks a tensor, has a tensor of a shape the options do not allow, or
    has biLM tensors the options do not use."""


# -- tensor names ---------------------------------------------------------------------------------------------


def conv_names(index: int) -> tuple[str, str]:
    """``(kernel, bias)`` tensor names of convolution ``index``."""
    return f"CNN/W_cnn_{index}", f"CNN/b_cnn_{index}"


def highway_names(index: int) -> dict[str, str]:
    """``{part: tensor name}`` of highway layer ``index`` (parts ``W_carry``, ``b_carry``, ``W_transform``,
    ``b_transform``)."""
    return {part: f"CNN_high_{index}/{part}" for part in ("W_carry", "b_carry", "W_transform", "b_transform")}


PROJECTION_NAMES = ("CNN_proj/W_proj", "CNN_proj/b_proj")
BILM_GROUP_PREFIXES = ("CNN", "RNN_")  # with CHAR_EMBEDDING, the biLM's top-level groups; others (softmax) are ignored


def lstm_names(direction: int, layer: int) -> dict[str, str]:
    """``{"W_0", "B", "W_P_0"}`` → tensor names of one LSTM layer (``direction``: ``FORWARD`` or ``BACKWARD``)."""
    prefix = f"RNN_{direction}/RNN/MultiRNNCell/Cell{layer}/LSTMCell"
    return {"W_0": f"{prefix}/W_0", "B": f"{prefix}/B", "W_P_0": f"{prefix}/W_P_0"}


# -- reading ----------------------------------------------------------------------------------------------------


def read_weight_file(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """Every dataset of an HDF5 file, keyed by its path (``"CNN/W_cnn_0"``), as NumPy arrays.

    Raises:
        FileNotFoundError: no such file (the message names it).
        WeightFileError: the file is not HDF5, or it is HDF5 but cannot be read (truncated or corrupted); the
            message names it.
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"ELMo weight file not found: {path}")
    if not h5py.is_hdf5(path):
        raise WeightFileError(path, None, "is not an HDF5 file (expected the ELMo weights, e.g. *_weights.hdf5)")
    tensors: dict[str, np.ndarray] = {}

    def collect(name, item):
        if isinstance(item, h5py.Dataset):
            tensors[name] = np.asarray(item[...])

    try:
        with h5py.File(path, "r") as handle:
            handle.visititems(collect)
    except (OSError, KeyError, RuntimeError) as error:  # what h5py raises for a damaged file or object
        raise WeightFileError(
            path, None, f"cannot be read: {error} (truncated or corrupted?); download or copy the weight file again"
        ) from None
    return tensors


def take_tensor(tensors: dict[str, np.ndarray], name: str, expected_shape: tuple, path,
                because: str = "") -> np.ndarray:
    """``tensors[name]`` as float32 after checking that it exists, has ``expected_shape``, holds numbers and
    every one of them is finite.

    Args:
        tensors: ``read_weight_file``'s result.
        name: the tensor's path (``"CNN/W_cnn_0"``).
        expected_shape: the shape the options imply.
        path: the weight file, named in errors.
        because: the options fields the expected shape comes from, for the message. Defaults to ``""``.

    Raises:
        WeightFileError: naming ``path`` and ``name``, and the expected and the received shape (and ``because``:
            the options fields the expected shape comes from), the non-numeric type, or the count and first
            position of NaN/inf values.
    """
    reason = f" (from {because})" if because else ""
    if name not in tensors:
        raise WeightFileError(path, name, f"is missing: expected a tensor of shape {tuple(expected_shape)}{reason}")
    value = tensors[name]
    if tuple(value.shape) != tuple(expected_shape):
        raise WeightFileError(
            path, name,
            f"has shape {tuple(value.shape)} but {tuple(expected_shape)} was expected{reason}; "
            "do the options and weight files belong to the same model?",
        )
    if value.dtype.kind not in NUMERIC_KINDS:
        raise WeightFileError(
            path, name, f"holds {value.dtype} data, not numbers; the weight file is damaged or was not written by "
            "bilm-tf's dump_weights: download or copy it again",
        )
    value = value.astype(np.float32)
    finite = np.isfinite(value)
    if not finite.all():
        first = tuple(int(i) for i in np.argwhere(~finite)[0])
        raise WeightFileError(
            path, name, f"holds {int((~finite).sum())} non-finite value(s) (NaN or inf; the first at index {first}): "
            "the weights are damaged or come from a diverged training run; use an intact weight file",
        )
    return value


def is_bilm_tensor(name: str) -> bool:
    """Whether ``name`` lies in one of the biLM's own top-level groups (``char_embed``, ``CNN*``, ``RNN_*``)."""
    group = name.split("/", 1)[0]
    return group == CHAR_EMBEDDING or group.startswith(BILM_GROUP_PREFIXES)


def check_all_bilm_tensors_used(tensors: dict[str, np.ndarray], taken: set[str], path,
                                options_source: str = "") -> None:
    """Make sure every biLM tensor of the file was ``taken``: an unused one means the options describe a smaller
    or different network (fewer layers, no projection, ...) than the one the weights were trained for.

    Tensors outside the biLM's groups (``is_bilm_tensor``), e.g. softmax weights, are allowed and ignored.

    Raises:
        WeightFileError: naming ``path`` and listing the unused tensors.
    """
    unused = sorted(name for name in tensors if is_bilm_tensor(name) and name not in taken)
    if not unused:
        return
    shown = ", ".join(repr(name) for name in unused[:MAX_LISTED_TENSORS])
    more = f" and {len(unused) - MAX_LISTED_TENSORS} more" if len(unused) > MAX_LISTED_TENSORS else ""
    options = f"the options ({options_source})" if options_source else "the options"
    raise WeightFileError(
        path, None,
        f"has {len(unused)} biLM tensor(s) not used by {options}: {shown}{more}; the options and weight files "
        "probably belong to different models (compare lstm.n_layers, lstm.projection_dim, char_cnn.filters and "
        "char_cnn.n_highway with the model the weights come from)",
    )


# -- conversions ------------------------------------------------------------------------------------------------


def prepend_padding_char_row(char_embed: np.ndarray) -> np.ndarray:
    """bilm-tf's float `(261, dim)` character embedding → ours `(262, dim)`: row 0 (= "no character") is zero.

    Our character ids are the original ids + 1 (``elmo_keras.text.char_ids``), so original row ``k`` becomes
    row ``k + 1`` and id 0 is free for padding.
    """
    return np.concatenate([np.zeros((1, char_embed.shape[1]), dtype=char_embed.dtype), char_embed], axis=0)


def conv2d_kernel_to_conv1d(kernel: np.ndarray) -> np.ndarray:
    """bilm-tf ``W_cnn_i`` `(1, width, char_dim, count)` → Conv1D's `(width, char_dim, count)`.

    bilm-tf runs a Conv2D over a height-1 "image" of characters; both compute a cross-correlation along the
    characters with "valid" padding, so dropping the unit height axis is the whole conversion.

    Raises:
        ValueError: ``kernel`` is not 4-D with a first axis of 1.
    """
    if kernel.ndim != 4 or kernel.shape[0] != 1:
        raise ValueError(f"expected a (1, width, char_dim, count) kernel, received shape {kernel.shape}")
    return kernel[0]


def convert_highway(w_carry, b_carry, w_transform, b_transform) -> dict[str, np.ndarray]:
    """bilm-tf highway tensors → our ``Highway`` weights.

    bilm-tf computes ``y = σ(x·W_carry + b_carry) ⊙ relu(x·W_transform + b_transform) + (1 − σ(...)) ⊙ x``:
    despite its name, its "carry" gate multiplies the *transform*, which is exactly our gate ``t``. So the
    tensors map one-to-one with no sign change (AllenNLP's ``Highway`` gates the input instead and negates
    them). Kernels are `(in, out)` in both, used as ``x · W``.

    Args:
        w_carry, w_transform: `(n_filters, n_filters)` kernels.
        b_carry, b_transform: `(n_filters,)` biases.

    Returns:
        ``{"gate_kernel", "gate_bias", "transform_kernel", "transform_bias"}``, the same arrays.
    """
    return {"gate_kernel": w_carry, "gate_bias": b_carry, "transform_kernel": w_transform,
            "transform_bias": b_transform}


def tf_gates_to_keras_order(array: np.ndarray) -> np.ndarray:
    """Reorder the last axis, `(..., 4 * units)`, from TensorFlow ``LSTMCell``'s gates ``[i, j, f, o]`` to ours
    ``[i, f, g, o]`` (``g = j``)."""
    i, j, f, o = np.split(array, 4, axis=-1)
    return np.concatenate([i, f, j, o], axis=-1)


def fold_forget_bias(bias: np.ndarray, forget_bias: float = TF_LSTM_FORGET_BIAS) -> np.ndarray:
    """Add TensorFlow's run-time ``forget_bias`` (default ``TF_LSTM_FORGET_BIAS`` = 1.0) to the forget block of a
    `(..., 4 * units)` bias already in our ``[i, f, g, o]`` order; returns a copy."""
    units = bias.shape[-1] // 4
    folded = bias.copy()
    folded[..., units : 2 * units] += forget_bias
    return folded


def split_lstm_kernel(w_0: np.ndarray, input_dim: int) -> tuple[np.ndarray, np.ndarray]:
    """TensorFlow's fused kernel ``W_0`` `(input_dim + output_dim, 4U)` (rows = ``[input; previous output]``) →
    ``(kernel (input_dim, 4U), recurrent_kernel (output_dim, 4U))``."""
    return w_0[:input_dim], w_0[input_dim:]


def convert_lstm_cell(w_0, b, w_p, input_dim: int) -> dict[str, np.ndarray]:
    """One TF ``LSTMCell`` (``W_0``, ``B``, ``W_P_0`` or None) → our ``ProjectedLSTMCell`` weights.

    Args:
        w_0: `(input_dim + output_dim, 4U)`; b: `(4U,)`; w_p: `(U, P)` or None (no projection).
        input_dim: int, the width of the layer's input (the rows of ``W_0`` that are not recurrent).

    Returns a dict with ``kernel`` `(input_dim, 4U)`, ``recurrent_kernel`` `(output_dim, 4U)`, ``bias`` `(4U,)`
    (forget bias folded in) and ``projection_kernel`` `(U, P)` (or None).
    """
    kernel, recurrent_kernel = split_lstm_kernel(w_0, input_dim)
    return {
        "kernel": tf_gates_to_keras_order(kernel),
        "recurrent_kernel": tf_gates_to_keras_order(recurrent_kernel),
        "bias": fold_forget_bias(tf_gates_to_keras_order(b)),
        "projection_kernel": w_p,
    }
