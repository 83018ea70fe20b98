"""BidirectionalTransformer: the contextualizer contract (every layer, forward half first, padding zero), each
direction blind to the other side, the final norm on the last layer only, padding and batch-mates without effect,
deterministic inference, the Keras mask from a CharCNN, the layer checks."""

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.layers.bidirectional_transformer import BidirectionalTransformer
from elmo_keras.layers.char_cnn import CharCNN
from elmo_keras.text.char_ids import batch_to_ids
from tests.support.backend_support import to_numpy
from tests.support.layer_checks import check_layer

RNG = np.random.default_rng(0)
DIM = 16


def _transformer(**kwargs):
    layer = BidirectionalTransformer(input_dim=DIM, hidden_dim=24, num_layers=3, **kwargs)
    layer.build((None, None, DIM))
    return layer


def _layers(layer, x, mask=None, training=None):
    return [to_numpy(output) for output in layer(x, mask=mask, training=training)]


def test_the_contract():
    layer = _transformer()
    assert (layer.num_layers, layer.output_dim) == (3, 2 * DIM)
    x = RNG.normal(size=(2, 6, DIM)).astype(np.float32)
    mask = np.array([[True] * 6, [True] * 4 + [False] * 2])
    outputs = _layers(layer, x, mask)
    assert [output.shape for output in outputs] == [(2, 6, 2 * DIM)] * 3
    for output in outputs:
        np.testing.assert_array_equal(output[1, 4:], 0.0)
    assert np.abs(outputs[0][1, :4]).min(axis=-1).max() > 0


def test_each_half_sees_one_side():
    layer = _transformer()
    x = RNG.normal(size=(2, 6, DIM)).astype(np.float32)
    changed = x.copy()
    changed[:, 3] += RNG.normal(size=DIM) * 3  # not a uniform shift, which every LayerNorm would remove
    for before, after in zip(_layers(layer, x), _layers(layer, changed)):
        np.testing.assert_allclose(after[:, :3, :DIM], before[:, :3, :DIM], atol=1e-6)  # forward: the past only
        np.testing.assert_allclose(after[:, 4:, DIM:], before[:, 4:, DIM:], atol=1e-6)  # backward: the future only
        assert np.abs(after[:, 3:, :DIM] - before[:, 3:, :DIM]).max() > 1e-3
        assert np.abs(after[:, :4, DIM:] - before[:, :4, DIM:]).max() > 1e-3


def test_the_final_norm_is_on_the_last_layer_only():
    outputs = _layers(_transformer(), RNG.normal(size=(2, 6, DIM)).astype(np.float32) * 3)
    for half in (slice(0, DIM), slice(DIM, 2 * DIM)):  # gamma = 1, beta = 0: zero mean, unit (biased) std
        last = outputs[-1][..., half]
        np.testing.assert_allclose(last.mean(-1), 0.0, atol=1e-5)
        np.testing.assert_allclose(last.std(-1), 1.0, atol=1e-4)
        assert np.abs(outputs[0][..., half].std(-1) - 1.0).max() > 0.1


def test_padding_and_batch_mates_change_nothing():
    layer = _transformer()
    sentences = [RNG.normal(size=(n, DIM)).astype(np.float32) for n in (6, 4)]  # the shapes of the other tests
    alone = [_layers(layer, s[None]) for s in sentences]
    batch = np.zeros((2, 6, DIM), np.float32)
    mask = np.zeros((2, 6), bool)
    for i, s in enumerate(sentences):
        batch[i, : len(s)], mask[i, : len(s)] = s, True
    batch[~mask] = RNG.normal(size=(int((~mask).sum()), DIM)) * 100  # padding holds anything
    together = _layers(layer, batch, mask)
    for i, s in enumerate(sentences):
        for k in range(3):
            np.testing.assert_allclose(together[k][i, : len(s)], alone[i][k][0], rtol=1e-5, atol=1e-5)


def test_deterministic_in_inference_dropout_in_training():
    layer = _transformer(dropout=0.3, input_dropout=0.2)
    x = RNG.normal(size=(2, 6, DIM)).astype(np.float32)
    first = _layers(layer, x)
    for _ in range(3):
        for a, b in zip(first, _layers(layer, x, training=False)):
            np.testing.assert_array_equal(a, b)
    assert np.abs(_layers(layer, x, training=True)[-1] - first[-1]).max() > 1e-3


def test_the_mask_comes_from_a_char_cnn_in_a_functional_model():
    cnn = CharCNN(embedding_dim=4, filters=[[1, 4], [2, 8]], n_highway=1, projection_dim=DIM)
    layer = BidirectionalTransformer(input_dim=DIM, hidden_dim=8, num_layers=2)
    ids_input = keras.Input((None, 50), dtype="int32")
    model = keras.Model(ids_input, layer(cnn(ids_input)))
    ids = batch_to_ids([["a", "b", "c"], ["d"]])
    outputs = [to_numpy(output) for output in model(ids)]
    explicit = _layers(layer, cnn(ids), mask=np.array([[True] * 3, [True, False, False]]))
    for got, expected in zip(outputs, explicit):
        np.testing.assert_allclose(got, expected, atol=1e-6)
        np.testing.assert_array_equal(got[1, 1:], 0.0)


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="input_dim must be a multiple of num_heads=8, received 12"):
        BidirectionalTransformer(input_dim=12, hidden_dim=8, num_layers=1)
    with pytest.raises(ValueError, match="num_layers must be a positive int"):
        BidirectionalTransformer(input_dim=16, hidden_dim=8, num_layers=0)
    with pytest.raises(ValueError, match="input_dim=16, received token vectors of width 8"):
        BidirectionalTransformer(input_dim=16, hidden_dim=8, num_layers=1)(np.zeros((1, 2, 8), "float32"))


def test_layer_checks_bidirectional_transformer(tmp_path):
    check_layer(lambda: BidirectionalTransformer(input_dim=8, hidden_dim=12, num_layers=1, num_heads=2,
                                                 input_dropout=0.1, max_length=32, name="transformer"),
                RNG.normal(size=(3, 5, 8)).astype("float32"), tmp_path)
