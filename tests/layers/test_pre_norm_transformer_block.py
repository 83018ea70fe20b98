"""PreNormTransformerBlock: AllenNLP's EncoderLayer (the PyTorch reference) with the same weights; dropout only in
training; the layer checks."""

import numpy as np
import pytest
import torch

from benchmarks.allennlp_transformer_reference import make_model, subsequent_mask
from elmo_keras.layers.pre_norm_transformer_block import PreNormTransformerBlock
from elmo_keras.pretrained.allennlp_weights import linear_weight_to_kernel
from tests.support.backend_support import to_numpy
from tests.support.layer_checks import check_layer

RNG = np.random.default_rng(0)


def _set_from_encoder_layer(block, layer):
    """Our block's weights from AllenNLP's ``EncoderLayer`` (as the loader maps them)."""
    attention = block.attention
    for dense, linear in zip((attention.query_dense, attention.key_dense, attention.value_dense,
                              attention.output_dense), layer.self_attn.linears):
        dense.set_weights([linear_weight_to_kernel(linear.weight.detach().numpy()), linear.bias.detach().numpy()])
    for dense, linear in ((block.feed_forward_inner, layer.feed_forward.w_1),
                          (block.feed_forward_outer, layer.feed_forward.w_2)):
        dense.set_weights([linear_weight_to_kernel(linear.weight.detach().numpy()), linear.bias.detach().numpy()])
    for norm, sublayer in zip((block.attention_norm, block.feed_forward_norm), layer.sublayer):
        norm.set_weights([sublayer.norm.gamma.detach().numpy(), sublayer.norm.beta.detach().numpy()])


def test_against_allennlps_encoder_layer():
    torch.manual_seed(0)
    layer = make_model(num_layers=1, input_size=16, hidden_size=24, heads=8, dropout=0.1).layers[0].eval()
    for parameter in layer.parameters():
        torch.nn.init.normal_(parameter, std=0.4)
    block = PreNormTransformerBlock(hidden_dim=24, num_heads=8, direction="forward")
    block.build((None, None, 16))
    _set_from_encoder_layer(block, layer)
    x = RNG.normal(size=(2, 6, 16)).astype(np.float32)
    mask = np.array([[True] * 6, [True] * 4 + [False] * 2])
    attention_mask = torch.tensor(mask).int().unsqueeze(-1) & subsequent_mask(6)  # AllenNLP's forward mask
    with torch.no_grad():
        expected = layer(torch.tensor(x), attention_mask).numpy()
    np.testing.assert_allclose(to_numpy(block(x, mask=mask))[mask], expected[mask], rtol=1e-5, atol=1e-5)


def test_dropout_only_in_training():
    block = PreNormTransformerBlock(hidden_dim=8, num_heads=2, dropout=0.5)
    x = RNG.normal(size=(2, 5, 8)).astype(np.float32)
    np.testing.assert_array_equal(to_numpy(block(x)), to_numpy(block(x)))
    assert np.abs(to_numpy(block(x, training=True)) - to_numpy(block(x))).max() > 1e-3


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="hidden_dim must be a positive int, received 0"):
        PreNormTransformerBlock(hidden_dim=0)
    with pytest.raises(ValueError, match="dropout must be in"):
        PreNormTransformerBlock(hidden_dim=4, dropout=1.0)


def test_layer_checks_pre_norm_transformer_block(tmp_path):
    check_layer(lambda: PreNormTransformerBlock(hidden_dim=12, num_heads=2, direction="backward", name="block"),
                RNG.normal(size=(3, 5, 8)).astype("float32"), tmp_path)
