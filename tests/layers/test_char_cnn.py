"""CharCNN: mask and shape, bad configurations, character ids checked, the standard layer checks."""

import numpy as np
import pytest

from elmo_keras.layers import (
    CharCNN,
)
from elmo_keras.text import batch_to_ids
from tests.support.backend_support import to_numpy
from tests.support.layer_checks import check_layer


def test_char_cnn_mask_and_shape():
    layer = CharCNN(embedding_dim=4, filters=[[1, 4], [2, 8], [3, 16]], n_highway=1, projection_dim=6)
    ids = batch_to_ids([["a", "bank"], ["river"]])
    out = layer(ids)
    assert tuple(out.shape) == (2, 2, 6)
    np.testing.assert_array_equal(to_numpy(layer.compute_mask(ids)), [[True, True], [True, False]])


@pytest.mark.parametrize("bad", [dict(filters=[]), dict(filters=[[60, 2]]), dict(activation="gelu")])
def test_char_cnn_rejects_bad_config(bad):
    with pytest.raises(ValueError):
        CharCNN(**bad)


def test_char_ids_are_checked():
    layer = CharCNN(embedding_dim=4, filters=[[1, 4], [2, 4]], n_highway=1, projection_dim=6)
    with pytest.raises(ValueError, match=r"expects character ids \(batch, time, 50\)"):
        layer(np.ones((1, 3), "int32"))
    with pytest.raises(ValueError, match=r"received id 300, outside \[0, 262\)"):
        layer(np.full((1, 3, 50), 300, "int32"))
    with pytest.raises(ValueError, match="empty character axis"):
        layer(np.ones((1, 1, 0), "int32"))
    with pytest.raises(ValueError, match="expects 50 character ids per token .* keeps at least 2.* received 60"):
        layer(np.ones((1, 2, 60), "int32"))
    with pytest.raises(ValueError, match="expects 50 character ids per token .* keeps at least 2.* received 1 "):
        layer(np.ones((1, 2, 1), "int32"))


def test_layer_checks_char_cnn(tmp_path):
    ids = batch_to_ids([["The", "bank"], ["A", "river", "bank"]])
    check_layer(lambda: CharCNN(4, [[1, 4], [2, 4]], 1, projection_dim=5, name="char_cnn"), ids, tmp_path, "int32")
