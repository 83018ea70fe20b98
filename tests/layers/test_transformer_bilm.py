"""The contextualizer seam (``BiLMBase``): a tiny ``TransformerBiLM`` and a tiny LSTM ``BiLM`` keep one output
contract (shapes, mask, zero padding, layer count); the transformer biLM's ``.keras`` round trip, batch mates and
padding without effect, dropout only in training, ``Elmo`` and ``BiLanguageModel`` over it (the forward top never sees
the next word, the backward top never the previous one), its refusals (stateful, narrowed matmuls); the LSTM
``BiLM``'s config and weight paths unchanged (the shipped ``.keras`` files depend on them)."""

import h5py
import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.embedding.embedder import ElmoEmbedder
from elmo_keras.layers import BiLM, BiLMBase, CharCNN, Elmo, TransformerBiLM, WordEmbedding
from elmo_keras.models.bilm.language_model import BiLanguageModel
from elmo_keras.text.batching import char_ids_with_boundaries
from elmo_keras.text.char_ids import batch_to_ids
from tests.support.backend_support import to_numpy
from tests.support.layer_checks import check_layer

VOCAB, DIM = 20, 8
IDS = np.array([[2, 7, 9, 4, 3], [2, 5, 3, 0, 0]])  # <S> … </S>; the second sentence padded with 0
MASK = IDS != 0


def _transformer(encoder=None, **kwargs):
    kwargs = {"hidden_dim": 16, "num_layers": 2, "num_heads": 2, **kwargs}
    return TransformerBiLM(encoder or WordEmbedding(VOCAB, DIM), **kwargs)


def _lstm(encoder=None):
    return BiLM(encoder or WordEmbedding(VOCAB, DIM), units=12, projection_dim=DIM, num_layers=2)


def _char_cnn():
    return CharCNN(embedding_dim=4, filters=[[1, 4], [2, 8]], n_highway=1, projection_dim=DIM)


def _activations(bilm, ids, training=None):
    return [to_numpy(layer) for layer in bilm(ids, training=training)["activations"]]


@pytest.mark.parametrize("make", [_transformer, _lstm], ids=["transformer", "lstm"])
@pytest.mark.parametrize("chars", [False, True], ids=["words", "chars"])
def test_both_contextualizers_keep_one_output_contract(make, chars):
    bilm = make(_char_cnn() if chars else None)
    ids = batch_to_ids([["a", "bc", "d", "e", "f"], ["g", "h", "i"]]) if chars else IDS
    outputs = bilm(ids)
    activations, mask = [to_numpy(layer) for layer in outputs["activations"]], to_numpy(outputs["mask"])
    assert isinstance(bilm, BiLMBase) and bilm.token_input == ("char" if chars else "word")
    assert len(activations) == bilm.num_activation_layers == bilm.num_layers + 1 == 3
    assert bilm.output_dim == 2 * DIM
    np.testing.assert_array_equal(mask, [[True] * 5, [True] * 3 + [False] * 2])
    expected_shapes = bilm.compute_output_shape(ids.shape)
    assert [layer.shape for layer in activations] == list(expected_shapes["activations"]) == [(2, 5, 2 * DIM)] * 3
    assert tuple(expected_shapes["mask"]) == mask.shape
    np.testing.assert_array_equal(activations[0][..., :DIM], activations[0][..., DIM:])  # layer 0 = [x; x]
    for layer in activations:
        np.testing.assert_array_equal(layer[~mask], 0.0)
        assert np.abs(layer[mask]).min(axis=-1).max() > 0
    tokens, forward, backward, directional_mask = bilm.directional_outputs(ids)
    np.testing.assert_array_equal(to_numpy(directional_mask), mask)
    for k, (f, b) in enumerate(zip(forward, backward), start=1):
        np.testing.assert_array_equal(np.concatenate([to_numpy(f), to_numpy(b)], -1), activations[k])


def test_transformer_bilm_layer_checks_and_keras_round_trip(tmp_path):
    check_layer(lambda: _transformer(_char_cnn(), input_dropout=0.1, max_length=64, name="transformer_bilm"),
                batch_to_ids([["a", "bc", "d"], ["e"]]), tmp_path, input_dtype="int32")


def test_a_saved_model_over_it_reloads_with_every_layer(tmp_path):
    bilm = _transformer()
    inputs = keras.Input((None,), dtype="int32")
    model = keras.Model(inputs, bilm(inputs)["activations"])
    path = tmp_path / "transformer_bilm.keras"
    model.save(path)
    reloaded = keras.saving.load_model(path)
    for got, expected in zip(reloaded(IDS), _activations(bilm, IDS)):
        np.testing.assert_array_equal(to_numpy(got), expected)
    assert isinstance(reloaded.layers[-1], TransformerBiLM)


def test_batch_mates_and_padding_change_no_sentence():
    bilm = _transformer()
    alone = [_activations(bilm, IDS[i : i + 1, : int(MASK[i].sum())]) for i in range(2)]
    together = _activations(bilm, IDS)
    longer = _activations(bilm, np.pad(IDS, ((0, 0), (0, 4))))  # more padding
    for i, length in enumerate(MASK.sum(1)):
        for k in range(bilm.num_activation_layers):
            np.testing.assert_allclose(together[k][i, :length], alone[i][k][0], rtol=0, atol=1e-6)
            np.testing.assert_allclose(longer[k][i, :length], alone[i][k][0], rtol=0, atol=1e-6)
            np.testing.assert_array_equal(longer[k][i, length:], 0.0)


def test_dropout_only_in_training():
    """The seed issue's loop: ten inference calls give bit-identical sums; training draws dropout."""
    bilm = _transformer(dropout=0.3, input_dropout=0.2)
    sums = {float(np.sum(_activations(bilm, IDS)[-1])) for _ in range(10)}
    assert len(sums) == 1, sums
    assert np.abs(_activations(bilm, IDS, training=True)[-1] - _activations(bilm, IDS)[-1]).max() > 1e-3


def test_elmo_over_a_transformer_bilm():
    bilm = _transformer()
    bilm(IDS)
    elmo = Elmo(bilm, num_output_representations=2, dropout=0.0)
    outputs = elmo(IDS[:, 1:-1] * (IDS[:, 1:-1] != 3))  # Elmo adds the boundaries itself
    assert elmo.bilm is not bilm and not elmo.bilm.trainable and bilm.trainable  # frozen copy, same numbers
    assert len(outputs["activations"]) == bilm.num_activation_layers
    assert [tuple(r.shape) for r in outputs["elmo_representations"]] == [(2, 3, 2 * DIM)] * 2
    expected = _activations(bilm, IDS)
    np.testing.assert_allclose(to_numpy(outputs["activations"][2])[0], expected[2][0, 1:-1], rtol=0, atol=1e-6)
    mix = np.mean(expected, axis=0)[0, 1:-1]  # untrained mixes: weights 1 / (L + 1), gamma 1
    np.testing.assert_allclose(to_numpy(outputs["elmo_representations"][0])[0], mix, rtol=1e-5, atol=1e-6)
    config = elmo.get_config()
    assert Elmo.from_config(config).bilm.get_config() == elmo.bilm.get_config()


def test_the_language_model_tops_see_one_side_each():
    """``BiLanguageModel`` over a ``TransformerBiLM``: forward logits at ``t`` ignore tokens after ``t``, backward
    logits ignore tokens before ``t`` (so each predicts its target without seeing it); the loss is finite."""
    model = BiLanguageModel(_transformer(), vocab_size=VOCAB)
    ids = np.array([[2, 7, 9, 4, 3]])
    changed = ids.copy()
    changed[0, 3] = 11
    before, after = model(ids), model(changed)
    for name, same in (("forward_logits", slice(0, 3)), ("backward_logits", slice(4, 5))):
        np.testing.assert_allclose(to_numpy(after[name])[0, same], to_numpy(before[name])[0, same], atol=1e-6)
        assert np.abs(to_numpy(after[name]) - to_numpy(before[name])).max() > 1e-4
    loss = model.compute_loss(x=ids, y=ids, y_pred=before)
    assert np.isfinite(to_numpy(loss))
    assert BiLanguageModel.from_config(model.get_config()).bilm.get_config() == model.bilm.get_config()


def test_stateful_and_narrowed_matmuls_are_refused():
    bilm = _transformer()
    bilm(IDS)
    assert bilm.stateful is False
    bilm.reset_states()  # nothing to reset
    assert bilm.copy(stateful=False).get_config() == bilm.get_config()
    with pytest.raises(ValueError, match="no state to carry across calls"):
        bilm.copy(stateful=True)
    with pytest.raises(ValueError, match="TransformerBiLM takes matmul_dtype None, received 'bfloat16'"):
        bilm(IDS, matmul_dtype="bfloat16")
    with pytest.raises(ValueError, match="output width"):
        TransformerBiLM(keras.layers.Identity(), hidden_dim=16, num_layers=1)


def test_the_embedder_takes_a_transformer_bilm_in_float32():
    bilm = _transformer(_char_cnn(), num_layers=3)
    embedder = ElmoEmbedder(bilm=bilm)
    assert embedder.matmul_dtype is None  # "auto" is float32: no bfloat16 matmuls here
    vectors = embedder.embed_sentence(["I", "sat", "by", "the", "bank"])
    assert vectors.shape == (bilm.num_activation_layers, 5, 2 * DIM) == (4, 5, 16)
    layers = np.stack(_activations(bilm, char_ids_with_boundaries([["I", "sat", "by", "the", "bank"]])))
    # the layer's own call, <S> </S> cut: the embedder runs the traced graph (its character padding cut) and the
    # call runs eagerly, so the kernels differ and float32 rounding may (1.01e-6 seen on a 2-core Xeon in CI)
    np.testing.assert_allclose(vectors, layers[:, 0, 1:-1], rtol=0, atol=1e-5)
    with pytest.raises(ValueError, match="precision='bfloat16' needs a biLM with bfloat16 matmuls"):
        ElmoEmbedder(bilm=bilm, precision="bfloat16")
    with pytest.raises(ValueError, match="no state to carry across calls"):
        ElmoEmbedder(bilm=bilm, stateful=True)


def test_copy_keeps_the_class_and_the_numbers():
    bilm = _transformer()
    copy = bilm.copy(dropout=0.0)
    assert isinstance(copy, TransformerBiLM) and not copy.built  # an unbuilt biLM has no weights to copy
    bilm(IDS)
    copy = bilm.copy()
    for got, expected in zip(_activations(copy, IDS), _activations(bilm, IDS)):
        np.testing.assert_array_equal(got, expected)


def test_the_lstm_bilm_keeps_its_config_and_weight_paths(tmp_path):
    """The shipped ``.keras`` models and users' files store the LSTM biLM's weights under its sublayers' attribute
    names; its config keys are what those files hold."""
    bilm = _lstm()
    inputs = keras.Input((None,), dtype="int32")
    model = keras.Model(inputs, bilm(inputs)["activations"])
    assert sorted(bilm.get_config()) == sorted(
        ["name", "trainable", "dtype", "token_encoder", "units", "num_layers", "projection_dim", "cell_clip",
         "proj_clip", "use_skip_connections", "dropout", "stateful", "unroll"])
    path = tmp_path / "bilm.weights.h5"
    model.save_weights(path)
    groups = []
    with h5py.File(path, "r") as file:
        file.visit(groups.append)
    stored = {name.split("/")[2] for name in groups if name.startswith("layers/bi_lm/") and name.count("/") > 3}
    assert stored == {"token_encoder", "forward_lstm", "backward_lstm"}
