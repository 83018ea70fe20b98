"""DirectionalSelfAttention: a NumPy re-derivation of the masked attention; each direction blind to one side and to
padding; dropout only in training."""

import numpy as np
import pytest

from elmo_keras.layers.directional_self_attention import DirectionalSelfAttention
from tests.support.backend_support import to_numpy
from tests.support.layer_checks import check_layer

RNG = np.random.default_rng(0)


def _numpy_attention(x, mask, weights, heads, direction):
    (wq, bq, wk, bk, wv, bv, wo, bo) = weights
    batch, time, dim = x.shape
    split = lambda y: y.reshape(batch, time, heads, dim // heads).transpose(0, 2, 1, 3)  # noqa: E731
    q, k, v = split(x @ wq + bq), split(x @ wk + bk), split(x @ wv + bv)
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(dim // heads)
    i, j = np.arange(time)[:, None], np.arange(time)[None, :]
    allowed = (j <= i if direction == "forward" else j >= i)[None, None] & mask[:, None, None, :]
    scores = np.where(allowed, scores, -1e9)
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return (p @ v).transpose(0, 2, 1, 3).reshape(batch, time, dim) @ wo + bo


def _layer(direction, dim=16, heads=4, dropout=0.0):
    layer = DirectionalSelfAttention(num_heads=heads, direction=direction, dropout=dropout)
    layer.build((None, None, dim))
    layer.set_weights([RNG.normal(size=w.shape).astype(np.float32) * 0.5 for w in layer.get_weights()])
    return layer


@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_against_numpy(direction):
    layer = _layer(direction)
    x = RNG.normal(size=(2, 6, 16)).astype(np.float32)
    mask = np.array([[True] * 6, [True] * 4 + [False] * 2])
    expected = _numpy_attention(x, mask, layer.get_weights(), 4, direction)
    got = to_numpy(layer(x, mask=mask))
    np.testing.assert_allclose(got[mask], expected[mask], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_each_direction_never_sees_the_other_side_nor_padding(direction):
    layer = _layer(direction)
    x = RNG.normal(size=(1, 7, 16)).astype(np.float32)
    changed = x.copy()
    changed[:, 3] += 5.0  # position 3 changes
    before, after = to_numpy(layer(x)), to_numpy(layer(changed))
    unchanged = slice(0, 3) if direction == "forward" else slice(4, 7)  # the positions that may not see 3
    np.testing.assert_allclose(after[:, unchanged], before[:, unchanged], atol=1e-6)
    assert np.abs(after[:, 3] - before[:, 3]).max() > 1e-3
    mask = np.array([[True] * 5 + [False] * 2])
    padded = x.copy()
    padded[:, 5:] = RNG.normal(size=(1, 2, 16)) * 100  # padding holds anything
    np.testing.assert_allclose(to_numpy(layer(padded, mask=mask))[:, :5], to_numpy(layer(x[:, :5]))[:, :5],
                               atol=1e-5)


def test_dropout_only_in_training():
    layer = _layer("forward", dropout=0.5)
    x = RNG.normal(size=(2, 5, 16)).astype(np.float32)
    np.testing.assert_array_equal(to_numpy(layer(x)), to_numpy(layer(x, training=False)))
    assert np.abs(to_numpy(layer(x, training=True)) - to_numpy(layer(x))).max() > 1e-3


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="direction must be one of"):
        DirectionalSelfAttention(direction="both")
    with pytest.raises(ValueError, match="multiple of num_heads=8"):
        DirectionalSelfAttention(num_heads=8)(np.zeros((1, 2, 12), "float32"))


def test_layer_checks_directional_self_attention(tmp_path):
    check_layer(lambda: DirectionalSelfAttention(num_heads=2, direction="backward", name="attention"),
                RNG.normal(size=(3, 5, 8)).astype("float32"), tmp_path)


def test_a_row_hiding_every_key_stays_finite_in_float16():
    layer = DirectionalSelfAttention(num_heads=2, direction="backward", dtype="float16")
    mask = np.array([[True, True, False, False]])  # the padded queries 2, 3 see no key in the backward direction
    output = to_numpy(layer(np.ones((1, 4, 8), "float16"), mask=mask))
    assert np.isfinite(output).all()
