"""Cutting character padding (``trim_character_padding``): the widths it keeps, the same CharCNN vectors as on all
50 positions (float32, 1e-6), and the embedder's vectors unchanged by what else is in the batch (1e-6)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elmo_keras.layers import CharCNN
from elmo_keras.text.batching import char_ids_with_boundaries
from elmo_keras.text.char_ids import MAX_CHARS_PER_TOKEN, batch_to_ids, trim_character_padding
from tests.support.backend_support import to_numpy

WIDEST = 4  # the CNN below: widths 1, 2 and 4
TOLERANCE = 1e-6  # float32: the same windows, convolved as a differently shaped tensor


def _cnn():
    cnn = CharCNN(embedding_dim=5, filters=[[1, 3], [2, 4], [4, 6]], n_highway=1, projection_dim=7, name="cnn")
    cnn.build((None, None, MAX_CHARS_PER_TOKEN))
    return cnn


_TEST_CNN = _cnn()  # one layer for the layer-level tests and every hypothesis example


def test_trim_keeps_the_longest_token_and_the_widest_window():
    ids = batch_to_ids([["a", "hello"], ["abcdefghijkl"]])  # longest: <w> + 12 bytes + </w> = 14 positions
    trimmed = trim_character_padding(ids, 7)
    assert trimmed.shape == (2, 2, 21)
    np.testing.assert_array_equal(trimmed, ids[..., :21])
    assert trim_character_padding(ids, 36).shape == (2, 2, 50)  # 14 + 36 = 50: nothing to cut
    assert trim_character_padding(batch_to_ids([["x" * 48]]), 2).shape == (1, 1, 50)  # a token filling all 50
    assert trim_character_padding(np.zeros((1, 2, 50), "int32"), 7).shape == (1, 2, 7)  # only padding tokens


def test_trimmed_ids_give_the_vectors_of_all_fifty():
    cnn = _TEST_CNN
    # boundary rows, a two-byte character, padding rows
    ids = char_ids_with_boundaries([["the", "bank", "!"], ["a", "riverbank", "é", "ok"], ["x"]])
    trimmed = trim_character_padding(ids, WIDEST)
    assert trimmed.shape[-1] == 11 + WIDEST  # <w> riverbank </w>
    full, cut = to_numpy(cnn(ids)), to_numpy(cnn(trimmed))
    mask = to_numpy(cnn.compute_mask(ids))
    np.testing.assert_array_equal(mask, to_numpy(cnn.compute_mask(trimmed)))
    np.testing.assert_allclose(cut[mask], full[mask], rtol=0, atol=TOLERANCE)


@settings(max_examples=12, deadline=None)  # JAX compiles each new shape: 25 examples took 16 s there
@given(st.lists(st.lists(st.text(alphabet="abcdefghij<>/é€ ", min_size=1, max_size=50).filter(str.strip),
                         min_size=1, max_size=4), min_size=1, max_size=3))
def test_trimming_any_tokens_changes_no_vector(sentences):
    cnn = _TEST_CNN
    ids = batch_to_ids(sentences)
    trimmed = trim_character_padding(ids, WIDEST)
    mask = to_numpy(cnn.compute_mask(ids))
    np.testing.assert_allclose(to_numpy(cnn(trimmed))[mask], to_numpy(cnn(ids))[mask], rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize("execution", ["graph", "eager"])
def test_embedder_vectors_do_not_depend_on_a_long_token_in_the_batch(execution):
    from elmo_keras.embedding import ElmoEmbedder
    from elmo_keras.layers import BiLM

    embedder = ElmoEmbedder(bilm=BiLM(_cnn(), units=16, projection_dim=7), execution=execution)
    sentence = ["the", "bank", "of", "the", "river"]
    alone = embedder.embed_sentence(sentence)
    beside_long = embedder.embed_batch([sentence, ["a", "w" * 47]])[0]  # the long token leaves nothing to cut
    np.testing.assert_allclose(beside_long, alone, rtol=0, atol=TOLERANCE)


def test_the_embedder_cuts_where_its_path_is_traced_for_every_shape(monkeypatch):
    from elmo_keras._backend import compiles_per_shape
    from elmo_keras.embedding import ElmoEmbedder, inference
    from elmo_keras.layers import BiLM

    widths = []
    run = inference.bilm_activations
    monkeypatch.setattr(inference, "bilm_activations", lambda bilm, ids, *a, **k: widths.append(ids.shape[-1])
                        or run(bilm, ids, *a, **k))
    embedder = ElmoEmbedder(bilm=BiLM(_cnn(), units=16, projection_dim=7))
    embedder.embed_sentence(["the", "riverbank"])
    # <w> riverbank </w> + the widest filter; a path compiled per shape (XLA, JAX) keeps all 50 (one compile)
    assert widths == [MAX_CHARS_PER_TOKEN if compiles_per_shape(embedder.execution) else 11 + WIDEST]
