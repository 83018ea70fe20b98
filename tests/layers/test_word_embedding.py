"""WordEmbedding: the standard layer checks."""

import numpy as np

from elmo_keras.layers import (
    WordEmbedding,
)
from tests.support.layer_checks import check_layer


def test_layer_checks_word_embedding(tmp_path):
    ids = np.array([[2, 5, 6, 3], [2, 7, 3, 0]], "int32")
    check_layer(lambda: WordEmbedding(10, 4, projection_dim=6, name="words"), ids, tmp_path, "int32")
