"""BiLM: argument and id checks, masks and batch-mates, the unrolled and symbolic loops agree, determinism,
dropout only in training, the output contract, the standard layer checks."""

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.layers import (
    BiLM,
    CharCNN,
    LSTMStack,
    ProjectedLSTMCell,
    WordEmbedding,
)
from tests.support.backend_support import to_numpy
from tests.support.layer_checks import check_layer


def test_bad_arguments_name_the_argument():
    with pytest.raises(ValueError, match="units"):
        ProjectedLSTMCell(0)
    with pytest.raises(ValueError, match="proj_clip"):
        ProjectedLSTMCell(4, proj_clip=1.0)
    with pytest.raises(ValueError, match="dropout"):
        LSTMStack(4, dropout=1.5)
    with pytest.raises(ValueError, match="output width"):
        BiLM(WordEmbedding(10, 8), units=16)


@pytest.mark.parametrize(
    "ids, message",
    [
        ([[2, -5, 3]], r"received id -5, outside \[0, 20\)"),  # would silently pick row 15
        ([[2, 25, 3]], r"received id 25, outside \[0, 20\)"),
        ([[2.0, 5.9, 3.0]], "expects integer word ids"),  # would silently become 5
        (np.zeros((0, 4), "int32"), "empty batch axis"),
        (np.zeros((2, 0), "int32"), "empty time axis"),
        (np.ones((1, 3, 50), "int32"), r"expects word ids \(batch, time\), received a tensor of shape \(1, 3, 50\)"),
    ],
)
def test_word_ids_are_checked(ids, message):
    bilm = BiLM(WordEmbedding(20, 8), units=8, num_layers=1)
    bilm(np.array([[2, 5, 3]]))
    with pytest.raises(ValueError, match=message):
        bilm(np.asarray(ids))
    bilm(np.array([[2.0, 5.0, 3.0]]))  # whole numbers in a float array are fine


def test_padding_inside_a_sentence_is_an_error():
    """The backward direction reverses within the length, so padding must come after the real tokens."""
    bilm = BiLM(WordEmbedding(20, 8), units=8, num_layers=1)
    with pytest.raises(ValueError, match="row 1 has a real token at step 2 after padding"):
        bilm(np.array([[2, 5, 3, 0], [2, 0, 5, 3]]))
    stack = LSTMStack(4, num_layers=1, go_backwards=True)
    with pytest.raises(ValueError, match="row 0 has a real token at step 1 after padding"):
        stack(np.ones((1, 3, 2), "float32"), mask=np.array([[False, True, True]]))


def test_layer_checks_bilm(tmp_path):
    ids = np.array([[2, 5, 6, 3], [2, 7, 3, 0]], "int32")
    check_layer(lambda: BiLM(WordEmbedding(10, 4, projection_dim=6), units=8, projection_dim=6, name="bilm"), ids,
                tmp_path, "int32")


def _tiny_bilm(**kwargs):
    keras.utils.set_random_seed(1)
    return BiLM(WordEmbedding(30, 8, projection_dim=6), units=10, num_layers=2, projection_dim=6, cell_clip=3.0,
                proj_clip=3.0, **kwargs)


@pytest.mark.parametrize("unroll", [False, True])
def test_padding_and_batch_mates_do_not_change_activations(unroll):
    bilm = _tiny_bilm()
    bilm.forward_lstm.unroll = bilm.backward_lstm.unroll = unroll
    sentence = np.array([[2, 5, 9, 11, 3]], "int32")
    alone = [to_numpy(a) for a in bilm(sentence)["activations"]]
    for pad in (1, 4, 17):
        padded = np.pad(sentence, ((0, 0), (0, pad)))
        out = [to_numpy(a) for a in bilm(padded)["activations"]]
        for a, b in zip(out, alone):
            np.testing.assert_allclose(a[:, :5], b, atol=1e-5)
            assert np.all(a[:, 5:] == 0)
    batch = np.zeros((3, 9), "int32")
    batch[0, :9] = [2, 7, 7, 8, 12, 13, 14, 15, 3]
    batch[1, :5] = sentence[0]
    batch[2, :3] = [2, 4, 3]
    out = [to_numpy(a) for a in bilm(batch)["activations"]]
    for a, b in zip(out, alone):
        np.testing.assert_allclose(a[1:2, :5], b, atol=1e-5)


def test_unrolled_loop_matches_the_symbolic_loop():
    """The unrolled path (XLA inference; each direction's matmuls separate) computes what the scan path does."""
    bilm = _tiny_bilm()
    ids = np.array([[2, 5, 9, 11, 3, 0], [2, 6, 3, 0, 0, 0]], "int32")
    symbolic = [to_numpy(a) for a in bilm(ids)["activations"]]
    bilm.forward_lstm.unroll = bilm.backward_lstm.unroll = True
    unrolled = [to_numpy(a) for a in bilm(ids)["activations"]]
    for a, b in zip(unrolled, symbolic):
        np.testing.assert_allclose(a, b, atol=1e-6)


def test_repeated_inference_is_bit_identical():
    bilm = _tiny_bilm(dropout=0.5)
    ids = np.array([[2, 5, 9, 11, 3], [2, 6, 3, 0, 0]], "int32")
    first = to_numpy(bilm(ids)["activations"][-1])
    for _ in range(100):
        assert np.array_equal(to_numpy(bilm(ids)["activations"][-1]), first)


def test_dropout_only_in_training():
    bilm = _tiny_bilm(dropout=0.5)
    ids = np.array([[2, 5, 9, 11, 3]], "int32")
    inference = to_numpy(bilm(ids, training=False)["activations"][-1])
    assert np.array_equal(to_numpy(bilm(ids)["activations"][-1]), inference)
    trained = [to_numpy(bilm(ids, training=True)["activations"][-1]) for _ in range(2)]
    assert not np.allclose(trained[0], inference) and not np.allclose(trained[0], trained[1])


def test_bilm_output_contract():
    bilm = _tiny_bilm()
    ids = np.array([[2, 5, 9, 3], [2, 6, 3, 0]], "int32")
    out = bilm(ids)
    assert len(out["activations"]) == bilm.num_activation_layers == 3
    assert all(tuple(a.shape) == (2, 4, 12) for a in out["activations"])
    layer0 = to_numpy(out["activations"][0])
    np.testing.assert_array_equal(layer0[..., :6], layer0[..., 6:])  # [x; x]
    np.testing.assert_array_equal(to_numpy(out["mask"]), ids != 0)


def test_copy_keeps_weights_and_takes_overrides():
    bilm = BiLM(WordEmbedding(20, 8), units=8, num_layers=2)
    assert bilm.token_input == "word" and bilm.input_ids_shape == (None, None)
    ids = np.array([[2, 5, 7, 3, 0]], "int32")
    expected = [to_numpy(a) for a in bilm(ids)["activations"]]
    copy = bilm.copy(stateful=True)
    assert copy.stateful and not bilm.stateful and copy is not bilm
    for ours, theirs in zip(copy(ids)["activations"], expected):
        np.testing.assert_allclose(to_numpy(ours), theirs, atol=1e-6)
    unbuilt = BiLM(CharCNN(filters=((1, 4),), projection_dim=8), units=8).copy()
    assert not unbuilt.built and unbuilt.token_input == "char" and unbuilt.input_ids_shape == (None, None, 50)
