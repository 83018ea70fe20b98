"""The named conversions from the bilm-tf tensor layout to our layers, each checked on its own.

The LSTM, highway and convolution checks re-derive the original TensorFlow computation in NumPy and
compare it with our layer holding the converted weights.
"""

import re

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.layers.highway import Highway
from elmo_keras.layers.projected_lstm_cell import ProjectedLSTMCell
from elmo_keras.pretrained.weights import (
    TF_LSTM_FORGET_BIAS,
    WeightFileError,
    check_all_bilm_tensors_used,
    conv2d_kernel_to_conv1d,
    convert_highway,
    convert_lstm_cell,
    fold_forget_bias,
    is_bilm_tensor,
    prepend_padding_char_row,
    read_weight_file,
    split_lstm_kernel,
    take_tensor,
    tf_gates_to_keras_order,
)
from elmo_keras.text.char_ids import MASK_SHIFT

RNG = np.random.default_rng(0)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def test_prepend_padding_char_row():
    original = RNG.normal(size=(261, 4)).astype(np.float32)
    converted = prepend_padding_char_row(original)
    assert converted.shape == (262, 4)
    np.testing.assert_array_equal(converted[0], 0.0)
    # our id = original id + MASK_SHIFT looks up the original row
    for original_id in (0, 65, 256, 260):
        np.testing.assert_array_equal(converted[original_id + MASK_SHIFT], original[original_id])


def test_conv2d_kernel_to_conv1d_matches_tf_conv2d():
    width, char_dim, count, chars = 3, 4, 5, 9
    kernel = RNG.normal(size=(1, width, char_dim, count)).astype(np.float32)
    embedded = RNG.normal(size=(2, chars, char_dim)).astype(np.float32)
    # tf.nn.conv2d(VALID) over a (batch, 1, chars, char_dim) image is a cross-correlation along chars
    expected = np.stack(
        [np.einsum("bwd,wdc->bc", embedded[:, t : t + width], kernel[0]) for t in range(chars - width + 1)], axis=1
    )
    conv = keras.layers.Conv1D(count, width, use_bias=False)
    conv.build((None, chars, char_dim))
    converted = conv2d_kernel_to_conv1d(kernel)
    assert converted.shape == (width, char_dim, count)
    conv.kernel.assign(converted)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(conv(embedded)), expected, atol=1e-5)


def test_conv2d_kernel_rejects_other_layouts():
    with pytest.raises(ValueError, match=r"\(1, width, char_dim, count\)"):
        conv2d_kernel_to_conv1d(np.zeros((3, 4, 5)))


def test_convert_highway_matches_bilm_tf_formula():
    dim = 6
    w_carry, w_transform = RNG.normal(size=(2, dim, dim)).astype(np.float32)
    b_carry, b_transform = RNG.normal(size=(2, dim)).astype(np.float32)
    x = RNG.normal(size=(3, dim)).astype(np.float32)
    # bilm-tf: carry_gate * relu(x W_tr + b_tr) + (1 - carry_gate) * x
    carry_gate = _sigmoid(x @ w_carry + b_carry)
    expected = carry_gate * np.maximum(x @ w_transform + b_transform, 0.0) + (1.0 - carry_gate) * x
    highway = Highway(1)
    highway.build((None, dim))
    converted = convert_highway(w_carry, b_carry, w_transform, b_transform)
    highway.gate_kernels[0].assign(converted["gate_kernel"])
    highway.gate_biases[0].assign(converted["gate_bias"])
    highway.transform_kernels[0].assign(converted["transform_kernel"])
    highway.transform_biases[0].assign(converted["transform_bias"])
    np.testing.assert_allclose(keras.ops.convert_to_numpy(highway(x)), expected, atol=1e-5)


def test_tf_gates_to_keras_order():
    units = 2
    i, j, f, o = (np.full(units, value) for value in (1.0, 2.0, 3.0, 4.0))
    converted = tf_gates_to_keras_order(np.concatenate([i, j, f, o]))
    np.testing.assert_array_equal(converted, [1, 1, 3, 3, 2, 2, 4, 4])  # i, f, g(=j), o
    kernel = np.tile(np.concatenate([i, j, f, o]), (5, 1))  # works on the last axis of a kernel too
    np.testing.assert_array_equal(tf_gates_to_keras_order(kernel)[3], [1, 1, 3, 3, 2, 2, 4, 4])


def test_fold_forget_bias_touches_only_the_forget_block():
    bias = np.arange(8, dtype=np.float32)  # our order i, f, g, o with 2 units
    folded = fold_forget_bias(bias)
    np.testing.assert_array_equal(folded, [0, 1, 2 + TF_LSTM_FORGET_BIAS, 3 + TF_LSTM_FORGET_BIAS, 4, 5, 6, 7])
    np.testing.assert_array_equal(bias, np.arange(8))  # input unchanged


def test_split_lstm_kernel_rows_are_input_then_recurrent():
    w_0 = np.arange(7 * 8).reshape(7, 8)
    kernel, recurrent = split_lstm_kernel(w_0, input_dim=3)
    np.testing.assert_array_equal(kernel, w_0[:3])
    np.testing.assert_array_equal(recurrent, w_0[3:])


def _tf_lstm_step(x, h, c, w_0, b, w_p, cell_clip, proj_clip):
    """tf.nn.rnn_cell.LSTMCell(num_proj, cell_clip, proj_clip, forget_bias=1.0), one step, in NumPy."""
    z = np.concatenate([x, h], axis=-1) @ w_0 + b
    i, j, f, o = np.split(z, 4, axis=-1)
    c = _sigmoid(f + TF_LSTM_FORGET_BIAS) * c + _sigmoid(i) * np.tanh(j)
    c = np.clip(c, -cell_clip, cell_clip)
    m = _sigmoid(o) * np.tanh(c)
    return np.clip(m @ w_p, -proj_clip, proj_clip), c


def test_convert_lstm_cell_matches_tf_lstm_cell():
    input_dim, units, proj = 5, 6, 3
    w_0 = RNG.normal(size=(input_dim + proj, 4 * units)).astype(np.float32)
    b = RNG.normal(size=(4 * units,)).astype(np.float32)
    w_p = RNG.normal(size=(units, proj)).astype(np.float32)
    cell = ProjectedLSTMCell(units, projection_dim=proj, cell_clip=1.5, proj_clip=1.0)
    cell.build((None, input_dim))
    converted = convert_lstm_cell(w_0, b, w_p, input_dim)
    for name in ("kernel", "recurrent_kernel", "bias", "projection_kernel"):
        getattr(cell, name).assign(converted[name])
    x = RNG.normal(size=(4, 3, input_dim)).astype(np.float32) * 2
    h_tf, c_tf = np.zeros((4, proj), np.float32), np.zeros((4, units), np.float32)
    h, c = h_tf, c_tf
    for t in range(3):  # three steps so that the recurrent rows and the clipping matter
        h_tf, c_tf = _tf_lstm_step(x[:, t], h_tf, c_tf, w_0, b, w_p, 1.5, 1.0)
        h, (h, c) = cell(x[:, t], [h, c])
    np.testing.assert_allclose(keras.ops.convert_to_numpy(h), h_tf, atol=1e-5)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(c), c_tf, atol=1e-5)


def test_read_weight_file_reads_every_dataset(tmp_path):
    import h5py

    path = tmp_path / "w.hdf5"
    with h5py.File(path, "w") as handle:
        handle.create_dataset("a/b", data=np.ones((2, 3)))
        handle.create_dataset("c", data=np.zeros(4))
    tensors = read_weight_file(path)
    assert sorted(tensors) == ["a/b", "c"] and tensors["a/b"].shape == (2, 3)


def test_read_weight_file_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.hdf5"):
        read_weight_file(tmp_path / "missing.hdf5")
    text = tmp_path / "weights.hdf5"
    text.write_text("not hdf5")
    with pytest.raises(WeightFileError, match=f"{re.escape(str(text))}: is not an HDF5 file"):
        read_weight_file(text)


def test_take_tensor_names_file_tensor_and_shapes():
    tensors = {"CNN/b_cnn_0": np.zeros(4)}
    with pytest.raises(WeightFileError, match=r"w.hdf5: 'CNN/b_cnn_1' is missing: expected a tensor of shape \(8,\)"):
        take_tensor(tensors, "CNN/b_cnn_1", (8,), "w.hdf5")
    with pytest.raises(WeightFileError, match=r"'CNN/b_cnn_0' has shape \(4,\) but \(5,\) was expected \(from opt\)"):
        take_tensor(tensors, "CNN/b_cnn_0", (5,), "w.hdf5", because="opt")
    assert take_tensor(tensors, "CNN/b_cnn_0", (4,), "w.hdf5").dtype == np.float32


def test_take_tensor_refuses_text_and_non_finite_values():
    """A string tensor used to fail with NumPy's "could not convert string to float", naming nothing; NaN/inf
    used to load and give NaN vectors."""
    strings = {"CNN/b_cnn_0": np.array([b"abcd"] * 4)}
    with pytest.raises(WeightFileError, match=r"w.hdf5: 'CNN/b_cnn_0' holds \|S4 data, not numbers; the weight file "
                                              r"is damaged"):
        take_tensor(strings, "CNN/b_cnn_0", (4,), "w.hdf5")
    broken = np.zeros((2, 3), np.float32)
    broken[1, 2], broken[0, 1] = np.inf, np.nan
    with pytest.raises(WeightFileError, match=r"'CNN/W_cnn_0' holds 2 non-finite value\(s\) \(NaN or inf; the first "
                                              r"at index \(0, 1\)\)"):
        take_tensor({"CNN/W_cnn_0": broken}, "CNN/W_cnn_0", (2, 3), "w.hdf5")
    assert take_tensor({"t": np.arange(3)}, "t", (3,), "w.hdf5").tolist() == [0.0, 1.0, 2.0]  # ints are numbers


@pytest.mark.fixtures
@pytest.mark.parametrize("keep", [0.5, 0.99])
def test_read_weight_file_truncated(model_dir, tmp_path, keep):
    data = (model_dir / "lm_weights.hdf5").read_bytes()
    path = tmp_path / "weights.hdf5"
    path.write_bytes(data[: int(len(data) * keep)])
    with pytest.raises(WeightFileError,
                       match=rf"{re.escape(str(path))}: cannot be read: .*\(truncated or corrupted\?\)"):
        read_weight_file(path)


@pytest.mark.fixtures
def test_read_weight_file_corrupted_inside(model_dir, tmp_path):
    data = bytearray((model_dir / "lm_weights.hdf5").read_bytes())
    data[4000:8000] = np.random.default_rng(0).integers(0, 256, 4000, dtype=np.uint8).tobytes()  # a B-tree node
    path = tmp_path / "weights.hdf5"
    path.write_bytes(bytes(data))
    with pytest.raises(WeightFileError, match=rf"{re.escape(str(path))}: cannot be read: .*corrupted") as info:
        read_weight_file(path)
    assert info.value.path == str(path) and info.value.key is None


def test_is_bilm_tensor_covers_the_bilm_groups_only():
    for name in ("char_embed", "CNN/W_cnn_0", "CNN_high_1/b_carry", "CNN_proj/W_proj",
                 "RNN_0/RNN/MultiRNNCell/Cell0/LSTMCell/B"):
        assert is_bilm_tensor(name), name
    for name in ("softmax/W", "softmax/b", "lm_embeddings/0", "char_embed_extra/x"):
        assert not is_bilm_tensor(name), name


def test_check_all_bilm_tensors_used_lists_unused_and_ignores_other_groups():
    tensors = {name: np.zeros(1) for name in ("char_embed", "CNN/W_cnn_0", "softmax/W", "softmax/b")}
    check_all_bilm_tensors_used(tensors, {"char_embed", "CNN/W_cnn_0"}, "w.hdf5")  # softmax is not the biLM's
    tensors.update({f"CNN_high_{i}/W_carry": np.zeros(1) for i in range(12)})
    with pytest.raises(WeightFileError) as info:
        check_all_bilm_tensors_used(tensors, {"char_embed", "CNN/W_cnn_0"}, "w.hdf5", "opts.json")
    message = str(info.value)
    assert message.startswith("w.hdf5: has 12 biLM tensor(s) not used by the options (opts.json): 'CNN_high_0/W_carry'")
    assert "and 4 more" in message and "probably belong to different models" in message and "softmax" not in message
