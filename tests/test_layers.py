"""Layer tests: reference math, masks, determinism, serialization."""

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.layers import (
    BiLM,
    CharCNN,
    Highway,
    LSTMStack,
    ProjectedLSTMCell,
    WordEmbedding,
    add_sentence_boundaries,
    remove_sentence_boundaries,
    reverse_within_length,
)
from elmo_keras.text import batch_to_ids
from tests.layer_checks import check_layer

RNG = np.random.default_rng(0)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def numpy_projected_lstm(x, kernel, recurrent, bias, projection, cell_clip, proj_clip):
    """Reference re-derivation of ProjectedLSTMCell over a whole sequence `(B, T, D)` (float64)."""
    batch, steps, _ = x.shape
    units = kernel.shape[1] // 4
    h = np.zeros((batch, recurrent.shape[0]))
    c = np.zeros((batch, units))
    outputs = []
    for t in range(steps):
        z = x[:, t] @ kernel + bias + h @ recurrent
        i, f, g, o = (sigmoid(z[:, :units]), sigmoid(z[:, units:2 * units]), np.tanh(z[:, 2 * units:3 * units]),
                      sigmoid(z[:, 3 * units:]))
        c = np.clip(f * c + i * g, -cell_clip, cell_clip)
        h = np.clip((o * np.tanh(c)) @ projection, -proj_clip, proj_clip)
        outputs.append(h)
    return np.stack(outputs, axis=1)


def test_projected_lstm_cell_matches_numpy_rederivation():
    cell = ProjectedLSTMCell(8, projection_dim=3, cell_clip=0.5, proj_clip=0.3)
    rnn = keras.layers.RNN(cell, return_sequences=True)
    x = RNG.normal(size=(2, 6, 5)).astype("float32") * 2.0
    rnn(x)  # build
    # large weights so that both clips are active
    weights = [RNG.normal(size=w.shape).astype("float32") for w in cell.weights]
    cell.set_weights(weights)
    ours = np.asarray(rnn(x))
    reference = numpy_projected_lstm(x.astype("float64"), *[w.astype("float64") for w in weights], 0.5, 0.3)
    assert np.abs(reference).max() == pytest.approx(0.3)  # the projection clip was reached
    np.testing.assert_allclose(ours, reference, atol=1e-6, rtol=0)


def test_lstm_stack_matches_cell_under_keras_rnn():
    stack = LSTMStack(8, num_layers=1, projection_dim=4, cell_clip=3.0, proj_clip=3.0)
    x = RNG.normal(size=(3, 7, 5)).astype("float32")
    ours = np.asarray(stack(x)[0])
    rnn = keras.layers.RNN(stack.cells[0], return_sequences=True)
    np.testing.assert_allclose(ours, np.asarray(rnn(x)), atol=1e-6)


@pytest.mark.parametrize("unroll", [False, True])
def test_lstm_stack_backward_reads_within_length(unroll):
    stack = LSTMStack(6, num_layers=2, go_backwards=True, unroll=unroll)
    x = RNG.normal(size=(1, 7, 4)).astype("float32")
    mask = np.array([[1, 1, 1, 1, 1, 0, 0]], bool)
    ours = [np.asarray(o) for o in stack(x, mask=mask)]
    forward_twin = LSTMStack(6, num_layers=2)
    forward_twin.build(x.shape)
    forward_twin.set_weights(stack.get_weights())
    reversed_real = x[:, 4::-1]
    expected = [np.asarray(o)[:, ::-1] for o in forward_twin(reversed_real)]
    for layer_out, layer_expected in zip(ours, expected):
        np.testing.assert_allclose(layer_out[:, :5], layer_expected, atol=1e-6)
        assert np.all(layer_out[:, 5:] == 0.0)


def test_skip_connections_add_the_layer_input():
    plain = LSTMStack(4, num_layers=2)
    skip = LSTMStack(4, num_layers=2, use_skip_connections=True)
    x = RNG.normal(size=(2, 5, 4)).astype("float32")
    plain.build(x.shape)
    skip.build(x.shape)
    skip.set_weights(plain.get_weights())
    p, s = [np.asarray(o) for o in plain(x)], [np.asarray(o) for o in skip(x)]
    np.testing.assert_allclose(s[0], p[0], atol=1e-7)
    assert not np.allclose(s[1], p[1])
    # layer 2 with skip = LSTM(layer-1 output) + layer-1 output

    manual = np.asarray(keras.layers.RNN(skip.cells[1], return_sequences=True)(s[0])) + s[0]
    np.testing.assert_allclose(s[1], manual, atol=1e-6)


def test_highway_formula():
    layer = Highway(num_layers=1)
    x = RNG.normal(size=(3, 5)).astype("float32")
    layer(x)
    w_h, b_h, w_t, b_t = [RNG.normal(size=w.shape).astype("float32") for w in layer.weights]
    layer.set_weights([w_h, b_h, w_t, b_t])
    gate = sigmoid(x @ w_t + b_t)
    expected = gate * np.maximum(x @ w_h + b_h, 0) + (1 - gate) * x
    np.testing.assert_allclose(np.asarray(layer(x)), expected, atol=1e-5)


def test_char_cnn_mask_and_shape():
    layer = CharCNN(embedding_dim=4, filters=[[1, 4], [2, 8], [3, 16]], n_highway=1, projection_dim=6)
    ids = batch_to_ids([["a", "bank"], ["river"]])
    out = layer(ids)
    assert tuple(out.shape) == (2, 2, 6)
    np.testing.assert_array_equal(np.asarray(layer.compute_mask(ids)), [[True, True], [True, False]])


@pytest.mark.parametrize("bad", [dict(filters=[]), dict(filters=[[60, 2]]), dict(activation="gelu")])
def test_char_cnn_rejects_bad_config(bad):
    with pytest.raises(ValueError):
        CharCNN(**bad)


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


def test_char_ids_are_checked():
    layer = CharCNN(embedding_dim=4, filters=[[1, 4], [2, 4]], n_highway=1, projection_dim=6)
    with pytest.raises(ValueError, match=r"expects character ids \(batch, time, 50\)"):
        layer(np.ones((1, 3), "int32"))
    with pytest.raises(ValueError, match=r"received id 300, outside \[0, 262\)"):
        layer(np.full((1, 3, 50), 300, "int32"))
    with pytest.raises(ValueError, match="empty character axis"):
        layer(np.ones((1, 1, 0), "int32"))
    with pytest.raises(ValueError, match="expects 50 character ids per token .* received 40"):
        layer(np.ones((1, 2, 40), "int32"))


# --- standard layer checks (config, symbolic/eager, .keras, fit) -------------------------------------------

def test_layer_checks_highway(tmp_path):
    check_layer(lambda: Highway(2, name="highway"), RNG.normal(size=(4, 6)).astype("float32"), tmp_path)


def test_layer_checks_char_cnn(tmp_path):
    ids = batch_to_ids([["The", "bank"], ["A", "river", "bank"]])
    check_layer(lambda: CharCNN(4, [[1, 4], [2, 4]], 1, projection_dim=5, name="char_cnn"), ids, tmp_path, "int32")


def test_layer_checks_word_embedding(tmp_path):
    ids = np.array([[2, 5, 6, 3], [2, 7, 3, 0]], "int32")
    check_layer(lambda: WordEmbedding(10, 4, projection_dim=6, name="words"), ids, tmp_path, "int32")


def test_layer_checks_lstm_stack(tmp_path):
    x = RNG.normal(size=(3, 5, 4)).astype("float32")
    check_layer(lambda: LSTMStack(6, 2, projection_dim=3, cell_clip=3.0, proj_clip=3.0, go_backwards=True,
                                  name="stack"), x, tmp_path)


def test_layer_checks_bilm(tmp_path):
    ids = np.array([[2, 5, 6, 3], [2, 7, 3, 0]], "int32")
    check_layer(lambda: BiLM(WordEmbedding(10, 4, projection_dim=6), units=8, projection_dim=6, name="bilm"), ids,
                tmp_path, "int32")


# --- masks, determinism, dropout -------------------------------------------------------------------------

def _tiny_bilm(**kwargs):
    keras.utils.set_random_seed(1)
    return BiLM(WordEmbedding(30, 8, projection_dim=6), units=10, num_layers=2, projection_dim=6, cell_clip=3.0,
                proj_clip=3.0, **kwargs)


@pytest.mark.parametrize("unroll", [False, True])
def test_padding_and_batch_mates_do_not_change_activations(unroll):
    bilm = _tiny_bilm()
    bilm.forward_lstm.unroll = bilm.backward_lstm.unroll = unroll
    sentence = np.array([[2, 5, 9, 11, 3]], "int32")
    alone = [np.asarray(a) for a in bilm(sentence)["activations"]]
    for pad in (1, 4, 17):
        padded = np.pad(sentence, ((0, 0), (0, pad)))
        out = [np.asarray(a) for a in bilm(padded)["activations"]]
        for a, b in zip(out, alone):
            np.testing.assert_allclose(a[:, :5], b, atol=1e-5)
            assert np.all(a[:, 5:] == 0)
    batch = np.zeros((3, 9), "int32")
    batch[0, :9] = [2, 7, 7, 8, 12, 13, 14, 15, 3]
    batch[1, :5] = sentence[0]
    batch[2, :3] = [2, 4, 3]
    out = [np.asarray(a) for a in bilm(batch)["activations"]]
    for a, b in zip(out, alone):
        np.testing.assert_allclose(a[1:2, :5], b, atol=1e-5)


def test_unrolled_loop_matches_the_symbolic_loop():
    """The unrolled path (XLA inference; each direction's matmuls separate) computes what the scan path does."""
    bilm = _tiny_bilm()
    ids = np.array([[2, 5, 9, 11, 3, 0], [2, 6, 3, 0, 0, 0]], "int32")
    symbolic = [np.asarray(a) for a in bilm(ids)["activations"]]
    bilm.forward_lstm.unroll = bilm.backward_lstm.unroll = True
    unrolled = [np.asarray(a) for a in bilm(ids)["activations"]]
    for a, b in zip(unrolled, symbolic):
        np.testing.assert_allclose(a, b, atol=1e-6)


def test_repeated_inference_is_bit_identical():
    bilm = _tiny_bilm(dropout=0.5)
    ids = np.array([[2, 5, 9, 11, 3], [2, 6, 3, 0, 0]], "int32")
    first = np.asarray(bilm(ids)["activations"][-1])
    for _ in range(100):
        assert np.array_equal(np.asarray(bilm(ids)["activations"][-1]), first)


def test_dropout_only_in_training():
    bilm = _tiny_bilm(dropout=0.5)
    ids = np.array([[2, 5, 9, 11, 3]], "int32")
    inference = np.asarray(bilm(ids, training=False)["activations"][-1])
    assert np.array_equal(np.asarray(bilm(ids)["activations"][-1]), inference)
    trained = [np.asarray(bilm(ids, training=True)["activations"][-1]) for _ in range(2)]
    assert not np.allclose(trained[0], inference) and not np.allclose(trained[0], trained[1])


def test_bilm_output_contract():
    bilm = _tiny_bilm()
    ids = np.array([[2, 5, 9, 3], [2, 6, 3, 0]], "int32")
    out = bilm(ids)
    assert len(out["activations"]) == bilm.num_activation_layers == 3
    assert all(tuple(a.shape) == (2, 4, 12) for a in out["activations"])
    layer0 = np.asarray(out["activations"][0])
    np.testing.assert_array_equal(layer0[..., :6], layer0[..., 6:])  # [x; x]
    np.testing.assert_array_equal(np.asarray(out["mask"]), ids != 0)


def test_stateful_stack_carries_state_per_row_and_resets():
    stack = LSTMStack(5, num_layers=2, stateful=True)
    first = RNG.normal(size=(3, 4, 3)).astype("float32")
    second = RNG.normal(size=(2, 4, 3)).astype("float32")
    stack(first)
    carried = np.asarray(stack(second)[-1])
    stateless = LSTMStack(5, num_layers=2)
    stateless.build(first.shape)
    stateless.set_weights(stack.get_weights())
    _, final = stateless.run(first)
    expected, _ = stateless.run(second, initial_states=[(h[:2], c[:2]) for h, c in final])
    np.testing.assert_allclose(carried, np.asarray(expected[-1]), atol=1e-6)
    stack.reset_states()
    np.testing.assert_allclose(np.asarray(stack(second)[-1]), np.asarray(stateless(second)[-1]), atol=1e-6)


def test_sentence_boundaries_round_trip():
    ids = np.array([[5, 6, 7], [8, 0, 0]], "int32")
    mask = ids != 0
    wrapped, wrapped_mask = add_sentence_boundaries(ids, mask, 2, 3)
    np.testing.assert_array_equal(np.asarray(wrapped), [[2, 5, 6, 7, 3], [2, 8, 3, 0, 0]])
    np.testing.assert_array_equal(np.asarray(wrapped_mask), np.asarray(wrapped) != 0)
    features = np.asarray(wrapped, "float32")[..., None]
    inner, inner_mask = remove_sentence_boundaries(features, wrapped_mask)
    np.testing.assert_array_equal(np.asarray(inner)[..., 0], ids)
    np.testing.assert_array_equal(np.asarray(inner_mask), mask)
    chars = batch_to_ids([["a", "b"], ["c"]])
    wrapped_chars, _ = add_sentence_boundaries(chars, chars.any(-1), batch_to_ids([["<S>"]])[0, 0],
                                               batch_to_ids([["</S>"]])[0, 0])
    np.testing.assert_array_equal(np.asarray(wrapped_chars)[1],
                                  batch_to_ids([["<S>", "c", "</S>", "x"]])[0] * np.array([1, 1, 1, 0])[:, None])


def test_reverse_within_length_is_an_involution():
    x = RNG.normal(size=(2, 5, 3)).astype("float32")
    mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], bool)
    once = np.asarray(reverse_within_length(x, mask))
    np.testing.assert_array_equal(once[0, :3], x[0, 2::-1])
    np.testing.assert_array_equal(once[0, 3:], x[0, 3:])
    np.testing.assert_array_equal(np.asarray(reverse_within_length(once, mask)), x)
