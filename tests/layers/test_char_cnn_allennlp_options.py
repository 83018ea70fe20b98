"""CharCNN's AllenNLP options: the projection after the CNN or after the highways and the optional layer norm, each
against AllenNLP's CnnHighwayEncoder (the PyTorch reference); the default unchanged."""

import numpy as np
import pytest
import torch

from benchmarks.allennlp_transformer_reference import CnnHighwayEncoder
from elmo_keras.layers.char_cnn import CharCNN
from elmo_keras.pretrained.allennlp_weights import (
    conv1d_weight_to_kernel,
    convert_allennlp_highway,
    linear_weight_to_kernel,
)
from elmo_keras.text.char_ids import batch_to_ids
from tests.support.backend_support import to_numpy
from tests.support.layer_checks import check_layer

FILTERS = [[1, 4], [2, 8], [3, 12]]
IDS = batch_to_ids([["Highway", "layers", "!"], ["ok"]])


def _pair(location, layer_norm):
    torch.manual_seed(0)
    reference = CnnHighwayEncoder(embedding_dim=4, filters=FILTERS, num_highway=2, projection_dim=8,
                                  projection_location=location, do_layer_norm=layer_norm)
    for parameter in reference.parameters():
        torch.nn.init.normal_(parameter, std=0.5)
    embedding = np.random.default_rng(0).normal(size=(262, 4)).astype(np.float32)
    cnn = CharCNN(embedding_dim=4, filters=FILTERS, n_highway=2, projection_dim=8, projection_location=location,
                  layer_norm=layer_norm)
    cnn.build((None, None, 50))
    cnn.char_embedding.embeddings.assign(embedding)
    for conv, torch_conv in zip(cnn.convolutions, reference._convolutions):
        conv.kernel.assign(conv1d_weight_to_kernel(torch_conv.weight.detach().numpy()))
        conv.bias.assign(torch_conv.bias.detach().numpy())
    for k, layer in enumerate(reference._highways._layers):
        parts = convert_allennlp_highway(layer.weight.detach().numpy(), layer.bias.detach().numpy())
        cnn.highway.transform_kernels[k].assign(parts["transform_kernel"])
        cnn.highway.transform_biases[k].assign(parts["transform_bias"])
        cnn.highway.gate_kernels[k].assign(parts["gate_kernel"])
        cnn.highway.gate_biases[k].assign(parts["gate_bias"])
    cnn.projection.kernel.assign(linear_weight_to_kernel(reference._projection.weight.detach().numpy()))
    cnn.projection.bias.assign(reference._projection.bias.detach().numpy())
    if layer_norm:
        cnn.output_norm.gamma.assign(reference._layer_norm.gamma.detach().numpy() + 0.5)
        cnn.output_norm.beta.assign(reference._layer_norm.beta.detach().numpy() - 0.25)
        reference._layer_norm.gamma.data += 0.5
        reference._layer_norm.beta.data -= 0.25
    with torch.no_grad():
        embedded = torch.tensor(embedding)[torch.tensor(IDS.reshape(-1, 50)).long()]  # (tokens, 50, 4)
        expected = reference(embedded).numpy().reshape(2, 3, 8)
    return cnn, expected


@pytest.mark.parametrize("location", ["after_cnn", "after_highway"])
@pytest.mark.parametrize("layer_norm", [False, True])
def test_against_allennlps_cnn_highway_encoder(location, layer_norm):
    cnn, expected = _pair(location, layer_norm)
    assert cnn.highway_dim == (8 if location == "after_cnn" else 24)
    mask = IDS.any(-1)
    np.testing.assert_allclose(to_numpy(cnn(IDS))[mask], expected[mask], rtol=1e-5, atol=1e-5)


def test_the_default_is_todays_char_cnn():
    cnn = CharCNN(embedding_dim=4, filters=FILTERS, n_highway=1, projection_dim=8)
    assert (cnn.projection_location, cnn.layer_norm, cnn.output_norm) == ("after_highway", False, None)
    config = cnn.get_config()
    old_config = {key: value for key, value in config.items() if key not in ("projection_location", "layer_norm")}
    restored = CharCNN.from_config(old_config)  # a config saved before the options existed
    cnn(IDS), restored(IDS)
    restored.set_weights(cnn.get_weights())
    np.testing.assert_array_equal(to_numpy(restored(IDS)), to_numpy(cnn(IDS)))
    assert [w.path for w in restored.weights] == [w.path for w in cnn.weights]


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="projection_location must be one of .* received 'before_cnn'"):
        CharCNN(projection_location="before_cnn")
    with pytest.raises(ValueError, match="layer_norm must be a bool, received 'yes'"):
        CharCNN(layer_norm="yes")


def test_layer_checks_char_cnn_after_cnn_with_layer_norm(tmp_path):
    check_layer(lambda: CharCNN(embedding_dim=4, filters=FILTERS, n_highway=1, projection_dim=8,
                                projection_location="after_cnn", layer_norm=True, name="char_cnn"),
                IDS, tmp_path, input_dtype="int32")
