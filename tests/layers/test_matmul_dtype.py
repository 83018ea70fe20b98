"""layers.matmul_dtype: products in a kernel's dtype with results in the input's, the argument checks, the layers
that take ``matmul_dtype`` (float32 unchanged, bfloat16 close to it, training refused), and the fused elementwise step
of the bfloat16 inference loop (``_backend.fused_elementwise``)."""

import numpy as np
import pytest
from keras import ops

from elmo_keras._backend import fused_elementwise
from elmo_keras._quiet import keras
from elmo_keras.layers import BiLM, CharCNN, Highway, LSTMStack, WordEmbedding
from elmo_keras.layers.matmul_dtype import check_matmul_dtype, kernel_for, product
from elmo_keras.layers.recurrence.cell_math import cell_update
from elmo_keras.text.char_ids import batch_to_ids

BFLOAT16_RELATIVE = 2.0**-7  # the inputs rounded to 8 significant bits (2⁻⁹ each) and the product's own rounding


def _bfloat16_rounded(x):
    return ops.convert_to_numpy(ops.cast(ops.cast(x, "bfloat16"), "float32")).astype(np.float64)


def _cosines(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return (a * b).sum(-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))


def test_product_in_the_same_dtype_is_a_plain_matmul():
    rng = np.random.default_rng(0)
    x, kernel = rng.normal(size=(3, 5, 8)).astype("float32"), rng.normal(size=(8, 6)).astype("float32")
    result = product(ops.convert_to_tensor(x), ops.convert_to_tensor(kernel))
    np.testing.assert_array_equal(ops.convert_to_numpy(result), ops.convert_to_numpy(ops.matmul(x, kernel)))


def test_bfloat16_kernel_rounds_the_inputs_and_returns_float32():
    rng = np.random.default_rng(1)
    x = ops.convert_to_tensor(rng.normal(size=(4, 64)).astype("float32"))
    kernel = ops.cast(ops.convert_to_tensor(rng.normal(size=(64, 32)).astype("float32")), "bfloat16")
    result = product(x, kernel)
    assert keras.backend.standardize_dtype(result.dtype) == "float32"
    exact = _bfloat16_rounded(x) @ _bfloat16_rounded(kernel)  # what the bfloat16 inputs multiply to
    scale = np.abs(_bfloat16_rounded(x)) @ np.abs(_bfloat16_rounded(kernel))
    assert np.all(np.abs(ops.convert_to_numpy(result) - exact) <= BFLOAT16_RELATIVE * scale)


def test_kernel_for_casts_to_the_matmul_dtype_else_the_compute_dtype():
    variable = keras.Variable(np.ones((2, 3), "float32"))
    assert keras.backend.standardize_dtype(kernel_for(variable, "bfloat16", "float32").dtype) == "bfloat16"
    assert keras.backend.standardize_dtype(kernel_for(variable, None, "float32").dtype) == "float32"


@pytest.mark.parametrize("bad", ["float16", "bf16", 16])
def test_check_matmul_dtype_names_the_choices(bad):
    with pytest.raises(ValueError, match="matmul_dtype must be None or one of"):
        check_matmul_dtype(bad)


def test_matmul_dtype_is_refused_in_training():
    check_matmul_dtype("bfloat16", training=False)
    with pytest.raises(ValueError, match="is for inference.*mixed_bfloat16"):
        check_matmul_dtype("bfloat16", training=True)
    bilm = BiLM(WordEmbedding(20, 8), units=8, num_layers=1)
    with pytest.raises(ValueError, match="is for inference"):
        bilm(np.array([[2, 5, 3]]), training=True, matmul_dtype="bfloat16")


def test_char_cnn_in_float32_gives_its_keras_layers_numbers():
    """The convolution's bias is added after the max over positions: the same numbers as each Conv1D layer's own
    call followed by the max (rounding is monotonic), and the Dense projection's."""
    keras.utils.set_random_seed(0)
    cnn = CharCNN(embedding_dim=4, filters=((1, 4), (3, 8)), n_highway=1, projection_dim=6)
    ids = batch_to_ids([["Hello", "world", "!"], ["Hi"]])
    outputs = ops.convert_to_numpy(cnn(ids))  # (2, 3, 6)
    embedded = cnn.char_embedding(ops.reshape(ops.cast(ids, "int32"), (-1, 50)))
    pooled = [ops.relu(ops.max(conv(embedded), axis=1)) for conv in cnn.convolutions]  # the layers' own calls
    reference = cnn.projection(cnn.highway(ops.concatenate(pooled, axis=-1)))
    np.testing.assert_allclose(outputs.reshape(-1, 6), ops.convert_to_numpy(reference), rtol=1e-6, atol=1e-6)


def test_char_cnn_and_highway_in_bfloat16_stay_float32_and_close():
    keras.utils.set_random_seed(1)
    cnn = CharCNN(embedding_dim=8, filters=((1, 16), (2, 16), (3, 32)), n_highway=2, projection_dim=16)
    ids = batch_to_ids([["Hello", "world", "!"], ["Hi", "there"]])
    full, narrow = cnn(ids), cnn(ids, matmul_dtype="bfloat16")
    assert keras.backend.standardize_dtype(narrow.dtype) == "float32"
    mask = ops.convert_to_numpy(cnn.compute_mask(ids))
    assert _cosines(ops.convert_to_numpy(full)[mask], ops.convert_to_numpy(narrow)[mask]).min() >= 0.9999
    highway = Highway(num_layers=2)
    x = np.random.default_rng(2).normal(size=(5, 32)).astype("float32")
    assert _cosines(ops.convert_to_numpy(highway(x)), ops.convert_to_numpy(highway(x, matmul_dtype="bfloat16"))).min() \
        >= 0.9999


def test_lstm_stack_direction_casts_kernels_once_and_keeps_the_bias():
    stack = LSTMStack(8, num_layers=2, projection_dim=4)
    stack.build((None, None, 4))
    cell = stack.direction("bfloat16").cells[1]
    dtypes = [keras.backend.standardize_dtype(t.dtype) for t in cell]
    assert dtypes == ["bfloat16", "float32", "bfloat16", "bfloat16"]  # kernel, bias, recurrent, projection


def test_stateful_and_stateless_stacks_run_in_bfloat16():
    keras.utils.set_random_seed(3)
    inputs = np.random.default_rng(3).normal(size=(2, 6, 32)).astype("float32")
    mask = np.array([[True] * 6, [True] * 4 + [False] * 2])
    for stateful in (False, True):
        # 32 wide: the per-token cosine of an untrained 8-wide stack's small outputs drops to 0.9998 on some backends
        stack = LSTMStack(128, num_layers=2, projection_dim=32, cell_clip=3.0, proj_clip=3.0, stateful=stateful)
        stack.build(inputs.shape)
        full = [ops.convert_to_numpy(layer) for layer in stack(inputs, mask=mask)]
        stack.reset_states()
        narrow = [ops.convert_to_numpy(layer) for layer in stack(inputs, mask=mask, matmul_dtype="bfloat16")]
        for a, b in zip(full, narrow):
            assert np.all(b[~mask] == 0.0)
            assert _cosines(a[mask], b[mask]).min() >= 0.9999


def test_the_fused_cell_update_gives_the_op_by_op_numbers():
    """The bfloat16 inference loop runs ``cell_update`` fused by XLA on TensorFlow: the same equations, float32."""
    rng = np.random.default_rng(4)
    gates = ops.convert_to_tensor(rng.normal(size=(3, 16)).astype("float32"))
    recurrent = ops.cast(ops.convert_to_tensor(rng.normal(size=(3, 16)).astype("float32")), "bfloat16")
    c = ops.convert_to_tensor(rng.normal(size=(3, 4)).astype("float32"))
    fused = fused_elementwise(cell_update)
    assert fused is fused_elementwise(cell_update)  # compiled once per function
    if keras.backend.backend() != "tensorflow":
        assert fused is cell_update
    for got, expected in zip(fused(gates, recurrent, c, 0.5), cell_update(gates, recurrent, c, 0.5)):
        assert keras.backend.standardize_dtype(got.dtype) == "float32"
        np.testing.assert_allclose(ops.convert_to_numpy(got), ops.convert_to_numpy(expected), rtol=1e-5, atol=1e-6)
