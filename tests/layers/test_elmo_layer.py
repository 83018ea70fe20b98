"""Elmo: boundaries added and removed, one ScalarMix per output, raw layers returned, frozen biLM,
dropout in training only, serializable (config and ``.keras``)."""

import numpy as np
import pytest
from keras import ops

from elmo_keras._quiet import keras
from elmo_keras.layers.bilm import BiLM
from elmo_keras.layers.elmo import Elmo
from elmo_keras.layers.lstm_stack import LSTMStack  # noqa: F401  (registers the class for deserialization)
from elmo_keras.layers.word_embedding import WordEmbedding
from elmo_keras.pretrained.loader import load_pretrained_bilm, load_pretrained_elmo
from elmo_keras.text.char_ids import BOS_TOKEN, EOS_TOKEN, batch_to_ids
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID

SENTENCES = [["The", "bank", "was", "closed", "."], ["Hello", "world"]]


@pytest.fixture(scope="module")
def fixture_files(model_dir):
    return model_dir / "options.json", model_dir / "lm_weights.hdf5"


@pytest.fixture(scope="module")
def bilm(fixture_files):
    return load_pretrained_bilm(*fixture_files)


def _numpy(tensors):
    return [ops.convert_to_numpy(t) for t in tensors]


@pytest.fixture(scope="module")
def bilm_layers(bilm):
    """The biLM's activations for SENTENCES, boundaries removed: 3 × (2, 5, 32)."""
    ids = batch_to_ids([[BOS_TOKEN, *s, EOS_TOKEN] for s in SENTENCES])
    activations = _numpy(bilm(ids)["activations"])
    result = [np.zeros((2, 5, 32), np.float32) for _ in activations]
    for layer, full in zip(result, activations):
        for row, sentence in enumerate(SENTENCES):
            layer[row, : len(sentence)] = full[row, 1 : len(sentence) + 1]
    return result


@pytest.mark.fixtures
def test_outputs_mixtures_mask_and_raw_layers(bilm, bilm_layers):
    elmo = Elmo(bilm, 2, dropout=0.0, scalar_mix_parameters=[0.0, 1.0, -1.0])
    outputs = elmo(batch_to_ids(SENTENCES))
    assert sorted(outputs) == ["activations", "elmo_representations", "mask"]
    np.testing.assert_array_equal(ops.convert_to_numpy(outputs["mask"]), [[True] * 5, [True] * 2 + [False] * 3])
    for got, expected in zip(_numpy(outputs["activations"]), bilm_layers):
        np.testing.assert_allclose(got, expected, atol=1e-5)
    weights = np.exp([0.0, 1.0, -1.0]) / np.exp([0.0, 1.0, -1.0]).sum()
    expected_mix = sum(w * layer for w, layer in zip(weights, bilm_layers))
    representations = _numpy(outputs["elmo_representations"])
    assert len(representations) == 2
    for representation in representations:
        assert representation.shape == (2, 5, 32)
        np.testing.assert_allclose(representation, expected_mix, atol=1e-5)


@pytest.mark.fixtures
def test_keep_sentence_boundaries(bilm):
    elmo = Elmo(bilm, 1, dropout=0.0, keep_sentence_boundaries=True)
    outputs = elmo(batch_to_ids(SENTENCES))
    assert tuple(outputs["elmo_representations"][0].shape) == (2, 7, 32)
    np.testing.assert_array_equal(ops.convert_to_numpy(outputs["mask"]).sum(axis=1), [7, 4])
    expected = _numpy(bilm(batch_to_ids([[BOS_TOKEN, *s, EOS_TOKEN] for s in SENTENCES]))["activations"])
    np.testing.assert_allclose(ops.convert_to_numpy(outputs["activations"][2]), expected[2], atol=1e-5)


@pytest.mark.fixtures
def test_padding_and_batch_mates_do_not_change_outputs(bilm):
    elmo = Elmo(bilm, 1, dropout=0.0, do_layer_norm=True)
    together = ops.convert_to_numpy(elmo(batch_to_ids(SENTENCES))["elmo_representations"][0])
    alone = ops.convert_to_numpy(elmo(batch_to_ids(SENTENCES[1:]))["elmo_representations"][0])
    np.testing.assert_allclose(together[1, :2], alone[0], atol=1e-5)
    assert np.all(together[1, 2:] == 0.0)


@pytest.mark.fixtures
@pytest.mark.parametrize("statistics", ["batch", "sentence"])
def test_layer_norm_counts_the_sentence_boundaries(bilm, statistics):
    """AllenNLP's order: every layer is normalised over <S> … </S>, mixed, and only then are the boundaries
    removed (NumPy re-derivation; equal weights, gamma 1)."""
    elmo = Elmo(bilm, 1, dropout=0.0, do_layer_norm=True, layer_norm_statistics=statistics)
    got = ops.convert_to_numpy(elmo(batch_to_ids(SENTENCES))["elmo_representations"][0])  # (2, 5, 32)
    full = _numpy(bilm(batch_to_ids([[BOS_TOKEN, *s, EOS_TOKEN] for s in SENTENCES]))["activations"])  # 3 × (2, 7, 32)
    lengths = np.array([len(s) + 2 for s in SENTENCES])
    real = np.arange(7)[None, :] < lengths[:, None]  # (2, 7): boundaries included
    normalised = []
    for layer in full:
        groups = [real] if statistics == "batch" else [real & (np.arange(2)[:, None] == row) for row in range(2)]
        result = np.zeros_like(layer)
        for group in groups:
            values = layer[group]
            rows = group.any(axis=1)
            result[rows] = (layer[rows] - values.mean()) / np.sqrt(values.var() + 1e-12)
        normalised.append(result)
    mixed = sum(normalised) / len(normalised)
    expected = np.zeros_like(got)
    for row, sentence in enumerate(SENTENCES):
        expected[row, : len(sentence)] = mixed[row, 1 : len(sentence) + 1]
    np.testing.assert_allclose(got, expected, atol=1e-5)


@pytest.mark.fixtures
def test_dropout_only_in_training(bilm):
    elmo = Elmo(bilm, 1, dropout=0.5)
    ids = batch_to_ids(SENTENCES)
    first, second = (ops.convert_to_numpy(elmo(ids)["elmo_representations"][0]) for _ in range(2))
    np.testing.assert_array_equal(first, second)
    dropped = ops.convert_to_numpy(elmo(ids, training=True)["elmo_representations"][0])
    zeroed = (dropped == 0.0) & (first != 0.0)
    assert 0.2 < zeroed.mean() < 0.8


@pytest.mark.fixtures
def test_frozen_bilm_and_trainable_mixtures(fixture_files):
    elmo = load_pretrained_elmo(*fixture_files, num_output_representations=2)
    elmo.build((None, None, 50))
    assert len(elmo.trainable_weights) == 4  # (w, gamma) per mixture; the biLM is frozen
    fixed = load_pretrained_elmo(*fixture_files, num_output_representations=1, scalar_mix_parameters=[1.0, 0.0, 0.0])
    fixed.build((None, None, 50))
    assert fixed.trainable_weights == []
    tuned = load_pretrained_elmo(*fixture_files, num_output_representations=1, requires_grad=True)
    tuned.build((None, None, 50))
    assert len(tuned.trainable_weights) == 2 + len(tuned.bilm.trainable_weights) > 20


@pytest.mark.fixtures
def test_config_and_keras_file_round_trip(bilm, tmp_path):
    elmo = Elmo(bilm, 2, dropout=0.25, do_layer_norm=True, keep_sentence_boundaries=False,
                scalar_mix_parameters=None, layer_norm_statistics="batch", name="elmo")
    config = elmo.get_config()
    for key, value in {"num_output_representations": 2, "dropout": 0.25, "do_layer_norm": True,
                       "keep_sentence_boundaries": False, "scalar_mix_parameters": None, "requires_grad": False,
                       "layer_norm_statistics": "batch"}.items():
        assert config[key] == value
    restored = Elmo.from_config(config)
    assert restored.get_config() == config

    inputs = keras.Input((None, 50), dtype="int32")
    model = keras.Model(inputs, elmo(inputs)["elmo_representations"][1])
    ids = batch_to_ids(SENTENCES)
    elmo.scalar_mixes[1].scalar_parameters.assign([2.0, -1.0, 0.5])
    expected = ops.convert_to_numpy(model(ids))
    path = tmp_path / "elmo.keras"
    model.save(path)
    loaded = keras.saving.load_model(path)
    np.testing.assert_allclose(ops.convert_to_numpy(loaded(ids)), expected, atol=1e-5)
    # the reloaded biLM stays frozen to its last sublayer: only (w, gamma) per mixture train
    assert [w.path for w in loaded.trainable_weights] == [w.path for w in model.trainable_weights]
    assert len(loaded.trainable_weights) == 4


def test_word_level_bilm_gets_word_boundaries():
    encoder = WordEmbedding(12, 6, name="words")
    bilm = BiLM(encoder, units=6, num_layers=1)
    bilm.build((None, None))
    elmo = Elmo(bilm, 1, dropout=0.0, scalar_mix_parameters=[0.0, 0.0])
    ids = np.array([[5, 6, 7], [8, 0, 0]], np.int32)
    outputs = elmo(ids)
    with_boundaries = np.array([[BOS_ID, 5, 6, 7, EOS_ID], [BOS_ID, 8, EOS_ID, 0, 0]], np.int32)
    direct = _numpy(bilm(with_boundaries)["activations"])
    np.testing.assert_allclose(ops.convert_to_numpy(outputs["activations"][1])[0], direct[1][0, 1:4], atol=1e-6)
    np.testing.assert_allclose(ops.convert_to_numpy(outputs["activations"][1])[1, :1], direct[1][1, 1:2], atol=1e-6)
    np.testing.assert_array_equal(ops.convert_to_numpy(outputs["mask"]), [[1, 1, 1], [1, 0, 0]])


def test_a_trainable_bilm_passed_in_is_copied_not_frozen():
    """``Elmo(lm.bilm, 1)`` must not freeze the language model: the frozen Elmo runs a copy of the weights."""
    bilm = BiLM(WordEmbedding(12, 6, name="words"), units=6, num_layers=1)
    bilm.build((None, None))
    trainable_before = len(bilm.trainable_weights)
    elmo = Elmo(bilm, 1, dropout=0.0)
    assert bilm.trainable and len(bilm.trainable_weights) == trainable_before > 0
    assert elmo.bilm is not bilm and not elmo.bilm.trainable
    ids = np.array([[5, 6, 7]], np.int32)
    outputs = elmo(ids)
    assert len(elmo.trainable_weights) == 2  # the mixture's w and gamma only
    direct = _numpy(bilm(np.array([[BOS_ID, 5, 6, 7, EOS_ID]], np.int32))["activations"])
    np.testing.assert_allclose(ops.convert_to_numpy(outputs["activations"][1])[0], direct[1][0, 1:4], atol=1e-6)
    bilm.trainable = False  # frozen by its owner: shared, not copied
    assert Elmo(bilm, 1).bilm is bilm
    assert Elmo(bilm, 1, requires_grad=True).bilm is bilm  # fine-tuning shares the layer


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"bilm": "options.json"}, "bilm must be a biLM layer \\(BiLM or TransformerBiLM"),
        ({"num_output_representations": 0}, "num_output_representations must be a positive int, received 0"),
        ({"dropout": 1.0}, r"dropout must be in \[0, 1\), received 1.0"),
    ],
)
def test_invalid_arguments(kwargs, message):
    bilm = BiLM(WordEmbedding(8, 4), units=4, num_layers=1)
    arguments = {"bilm": bilm, "num_output_representations": 1, **kwargs}
    with pytest.raises(ValueError, match=message):
        Elmo(**arguments)
