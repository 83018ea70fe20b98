"""transformer_elmo_from_archive: layers built from the config alone, every tensor placed, and a missing, extra,
mis-shaped or non-finite tensor refused in one line naming it (and the config field its shape comes from)."""

import io

import numpy as np
import pytest
import torch

from benchmarks.allennlp_transformer_reference import random_language_model
from elmo_keras.pretrained.allennlp_config import ArchiveError, TransformerElmoConfig
from elmo_keras.pretrained.transformer_loader import transformer_elmo_from_archive, transformer_elmo_from_config
from tests.support.allennlp_archive_files import transformer_elmo_config, write_archive
from tests.support.backend_support import to_numpy

CONFIG = transformer_elmo_config(num_layers=2)
CONV_0 = "_text_field_embedder.token_embedder_token_characters._encoder._module.char_conv_0.weight"
QUERY = "_contextualizer._backward_transformer.layers.1.self_attn.linears.0.weight"


def _archive(tmp_path, change=None, config=CONFIG):
    state = random_language_model(config).state_dict()
    if change:
        change(state)
    buffer = io.BytesIO()
    torch.save(state, buffer)
    return write_archive(tmp_path / "model.tar.gz", config, buffer.getvalue()), state


def test_building_from_the_config_needs_no_file():
    bilm = transformer_elmo_from_config(TransformerElmoConfig.from_dict(CONFIG))
    char_cnn, contextualizer = bilm.token_encoder, bilm.contextualizer
    assert (char_cnn.projection_location, char_cnn.projection_dim, char_cnn.n_characters) == ("after_cnn", 16, 262)
    assert (contextualizer.num_layers, contextualizer.output_dim, contextualizer.num_heads) == (2, 32, 8)
    assert (bilm.num_activation_layers, bilm.output_dim, bilm.token_input) == (3, 32, "char")
    assert not bilm.built and not char_cnn.built and not contextualizer.built


def test_every_tensor_is_placed(tmp_path):
    path, state = _archive(tmp_path)
    loaded = transformer_elmo_from_archive(path)
    assert loaded.softmax is None and loaded.archive == str(path)
    np.testing.assert_array_equal(to_numpy(loaded.char_cnn.convolutions[0].kernel),
                                  state[CONV_0].numpy().transpose(2, 1, 0))
    np.testing.assert_array_equal(to_numpy(loaded.contextualizer.backward_blocks[1].attention.query_dense.kernel),
                                  state[QUERY].numpy().T)
    np.testing.assert_array_equal(to_numpy(loaded.contextualizer.position_encoding.positional_encoding),
                                  state["_contextualizer._position.positional_encoding"].numpy()[0])
    assert loaded.contextualizer.input_dropout == 0.1 and loaded.contextualizer.dropout == 0.1


def test_the_softmax_is_read_only_when_asked(tmp_path):
    path, state = _archive(tmp_path)
    loaded = transformer_elmo_from_archive(path, include_softmax=True)
    assert sorted(loaded.softmax) == ["_softmax_loss.softmax_b.weight", "_softmax_loss.softmax_w.weight"]
    np.testing.assert_array_equal(loaded.softmax["_softmax_loss.softmax_w.weight"],
                                  state["_softmax_loss.softmax_w.weight"].numpy())


def _drop(key):
    return lambda state: state.pop(key)


def _set(key, value):
    return lambda state: state.__setitem__(key, value)


@pytest.mark.parametrize("change, fragments", [
    (_drop(QUERY), [QUERY, "is missing: expected a tensor of shape (16, 16)", "model.contextualizer"]),
    (_set(CONV_0, torch.ones(4, 4, 2)), [CONV_0, "has shape (4, 4, 2) but (4, 4, 1)", "filters[0] = [1, 4]"]),
    (_set("_contextualizer._forward_transformer.layers.2.feed_forward.w_1.bias", torch.ones(7)),
     ["1 tensor(s)", "layers.2.feed_forward.w_1.bias", "different models"]),
    (_set(QUERY, torch.full((16, 16), float("nan"))), [QUERY, "256 NaN or infinite"]),
    (_set(QUERY, torch.ones(16, 16, dtype=torch.bool)), [QUERY, "not real numbers"]),
    (_set("_contextualizer._position.positional_encoding", torch.ones(1, 5000, 16)),
     ["positional_encoding", "differs from the sinusoidal formula"]),
])
def test_a_wrong_tensor_is_named(change, fragments, tmp_path):
    path, _ = _archive(tmp_path, change)
    with pytest.raises(ArchiveError) as caught:
        transformer_elmo_from_archive(path)
    message = str(caught.value)
    assert "\n" not in message and "weights.th" in message
    for fragment in fragments:
        assert fragment in message, message


def test_weights_of_another_model_are_refused(tmp_path):
    buffer = io.BytesIO()
    torch.save(random_language_model(CONFIG).state_dict(), buffer)
    path = write_archive(tmp_path / "mixed.tar.gz", transformer_elmo_config(num_layers=2, hidden_dim=9),
                         buffer.getvalue())
    with pytest.raises(ArchiveError, match=r"w_1.weight' has shape \(7, 16\) but \(9, 16\).*hidden_dim"):
        transformer_elmo_from_archive(path)
