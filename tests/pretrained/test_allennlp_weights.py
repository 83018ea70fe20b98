"""The named conversions from AllenNLP's tensors to our layers, each checked against the PyTorch computation it
replaces; the key functions name every tensor of an AllenNLP state dict exactly once."""

import numpy as np
import pytest
import torch

from benchmarks.allennlp_transformer_reference import Highway as AllenNLPHighway
from benchmarks.allennlp_transformer_reference import LanguageModel, PositionalEncoding
from elmo_keras._quiet import keras
from elmo_keras.layers.highway import Highway
from elmo_keras.layers.sinusoidal_position_encoding import sinusoidal_table
from elmo_keras.pretrained.allennlp_weights import (
    POSITION_TABLE_TOLERANCE,
    POSITIONAL_ENCODING,
    char_conv_keys,
    char_embedding_key,
    char_layer_norm_keys,
    conv1d_weight_to_kernel,
    convert_allennlp_highway,
    final_norm_keys,
    highway_keys,
    is_embedding_key,
    is_softmax_key,
    linear_weight_to_kernel,
    positional_encoding_table,
    projection_keys,
    transformer_block_keys,
)
from elmo_keras.pretrained.torch_state_dict import read_torch_state_dict
from tests.support.allennlp_archive_files import transformer_elmo_config
from tests.support.backend_support import to_numpy
from tests.support.paths import SHARED_FIXTURES

RNG = np.random.default_rng(0)


def test_linear_weight_to_kernel_matches_torch_linear():
    linear = torch.nn.Linear(5, 3)
    x = RNG.normal(size=(4, 5)).astype(np.float32)
    dense = keras.layers.Dense(3)
    dense.build((None, 5))
    dense.set_weights([linear_weight_to_kernel(linear.weight.detach().numpy()), linear.bias.detach().numpy()])
    np.testing.assert_allclose(to_numpy(dense(x)), linear(torch.tensor(x)).detach().numpy(), atol=1e-6)
    with pytest.raises(ValueError, match="Linear weight"):
        linear_weight_to_kernel(np.ones(3))


def test_conv1d_weight_to_kernel_matches_torch_conv1d():
    conv = torch.nn.Conv1d(4, 6, kernel_size=3)
    chars = RNG.normal(size=(2, 9, 4)).astype(np.float32)  # (batch, characters, char_dim)
    ours = keras.layers.Conv1D(6, 3)
    ours.build((None, 9, 4))
    ours.set_weights([conv1d_weight_to_kernel(conv.weight.detach().numpy()), conv.bias.detach().numpy()])
    expected = conv(torch.tensor(chars).transpose(1, 2)).transpose(1, 2).detach().numpy()
    np.testing.assert_allclose(to_numpy(ours(chars)), expected, atol=1e-5)
    with pytest.raises(ValueError, match="Conv1d weight"):
        conv1d_weight_to_kernel(np.ones((3, 4)))


def test_convert_allennlp_highway_matches_its_gate_convention():
    dim = 6
    reference = AllenNLPHighway(dim, num_layers=2)
    for parameter in reference.parameters():
        torch.nn.init.normal_(parameter, std=0.7)  # gates well away from 1/2, so a wrong sign or half shows
    ours = Highway(num_layers=2)
    ours.build((None, dim))
    for k, layer in enumerate(reference._layers):
        converted = convert_allennlp_highway(layer.weight.detach().numpy(), layer.bias.detach().numpy())
        for variables, part in ((ours.transform_kernels, "transform_kernel"), (ours.transform_biases,
                                "transform_bias"), (ours.gate_kernels, "gate_kernel"), (ours.gate_biases, "gate_bias")):
            variables[k].assign(converted[part])
    x = RNG.normal(size=(5, dim)).astype(np.float32)
    np.testing.assert_allclose(to_numpy(ours(x)), reference(torch.tensor(x)).detach().numpy(), atol=1e-5)
    with pytest.raises(ValueError, match="highway weight"):
        convert_allennlp_highway(np.ones((6, 6)), np.ones(12))


def test_the_position_table_agrees_with_allennlps_buffer():
    for dim in (16, 32, 512):
        buffer = PositionalEncoding(dim).positional_encoding.numpy()  # (1, 5000, dim), AllenNLP's computation
        table = positional_encoding_table(buffer)
        assert table.shape == (5000, dim)
        np.testing.assert_allclose(table, sinusoidal_table(5000, dim), rtol=0, atol=POSITION_TABLE_TOLERANCE)
        np.testing.assert_allclose(table[:512], sinusoidal_table(512, dim), rtol=0, atol=2e-5)  # sentence lengths
    with pytest.raises(ValueError, match="positional encoding"):
        positional_encoding_table(np.ones((5000, 16)))


@pytest.mark.fixtures
def test_the_position_table_agrees_with_the_fixtures_stored_one():
    path = SHARED_FIXTURES / "transformer_elmo" / "weights.th"
    if not path.exists():
        pytest.skip(f"the transformer ELMo fixture is not at {path.parent} (it lives in ../shared/fixtures)")
    stored = read_torch_state_dict(path, keep=lambda key: key == POSITIONAL_ENCODING)[POSITIONAL_ENCODING]
    np.testing.assert_allclose(positional_encoding_table(stored), sinusoidal_table(5000, 16), rtol=0, atol=1e-6)


@pytest.mark.parametrize("location, layer_norm", [("after_cnn", None), ("after_highway", True)])
def test_the_key_functions_name_every_tensor_of_a_state_dict_once(location, layer_norm):
    config = transformer_elmo_config(num_layers=2, projection_location=location, do_layer_norm=layer_norm)
    state = LanguageModel(config).state_dict()
    named = [char_embedding_key("token_characters"), *projection_keys("token_characters"), POSITIONAL_ENCODING]
    named += [key for i in range(5) for key in char_conv_keys("token_characters", i)]
    named += [key for i in range(2) for key in highway_keys("token_characters", i)]
    named += list(char_layer_norm_keys("token_characters")) if layer_norm else []
    for direction in ("forward", "backward"):
        named += [key for layer in range(2) for key in transformer_block_keys(direction, layer).values()]
        named += list(final_norm_keys(direction))
    assert len(named) == len(set(named))
    assert set(named) == {key for key in state if is_embedding_key(key)}
    assert {key for key in state if not is_embedding_key(key)} == {
        "_softmax_loss.softmax_w.weight", "_softmax_loss.softmax_b.weight", "_last_average_loss"}
    assert all(is_softmax_key(key) for key in state if key.startswith("_softmax_loss"))
