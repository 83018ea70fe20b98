"""The transformer-ELMo ``config.json``: the fixture's and the released model's fields read, defaults as AllenNLP's,
and every invalid field refused in one line naming it."""

import json

import pytest

from elmo_keras.pretrained.allennlp_config import NUM_HEADS, ArchiveError, TransformerElmoConfig
from tests.support.allennlp_archive_files import DELETE, set_field, transformer_elmo_config
from tests.support.paths import SHARED_FIXTURES

ENCODER = "model.text_field_embedder.token_embedders.token_characters.encoder"
RELEASED_FILTERS = ((1, 32), (2, 32), (3, 64), (4, 128), (5, 256), (6, 512), (7, 1024))


def test_the_fixture_shaped_config():
    config = TransformerElmoConfig.from_dict(transformer_elmo_config(), source="config.json")
    cnn, transformer = config.char_cnn, config.contextualizer
    assert (cnn.embedding_dim, cnn.num_embeddings, cnn.num_highway, cnn.projection_dim) == (4, 262, 2, 16)
    assert cnn.filters == ((1, 4), (2, 8), (3, 16), (4, 32), (5, 64)) and cnn.num_filters == 124
    assert (cnn.projection_location, cnn.do_layer_norm, cnn.highway_dim, cnn.dropout) == ("after_cnn", False, 16, 0.0)
    assert (transformer.input_dim, transformer.hidden_dim, transformer.num_layers) == (16, 7, 3)
    assert (transformer.dropout, transformer.input_dropout, transformer.num_heads) == (0.1, 0.1, NUM_HEADS)
    assert config.token_name == "token_characters" and config.source == "config.json"


@pytest.mark.fixtures
def test_the_fixture_config_itself():
    path = SHARED_FIXTURES / "transformer_elmo" / "config.json"
    if not path.exists():
        pytest.skip(f"the transformer ELMo fixture is not at {path.parent} (it lives in ../shared/fixtures)")
    config = TransformerElmoConfig.from_dict(json.loads(path.read_text()), str(path))
    assert config == TransformerElmoConfig.from_dict(transformer_elmo_config(), str(path))


def test_the_released_model_shape_and_its_parameter_count():
    data = transformer_elmo_config(input_dim=512, hidden_dim=2048, num_layers=6, filters=RELEASED_FILTERS, char_dim=16,
                                   projection_location="after_highway", do_layer_norm=True)
    config = TransformerElmoConfig.from_dict(data)
    assert config.char_cnn.highway_dim == 2048 and config.char_cnn.do_layer_norm
    # the issue's ~56 M parameters without the softmax
    assert 50e6 < config.parameter_count() < 60e6


def test_defaults_are_allennlps():
    data = transformer_elmo_config()
    for field in ("activation", "projection_location"):
        data = set_field(data, f"{ENCODER}.{field}", DELETE)
    for field in ("dropout", "input_dropout"):
        data = set_field(data, f"model.contextualizer.{field}", DELETE)
    data = set_field(data, "model.text_field_embedder.token_embedders.token_characters.embedding.num_embeddings",
                     DELETE)
    config = TransformerElmoConfig.from_dict(data)
    assert (config.char_cnn.activation, config.char_cnn.projection_location) == ("relu", "after_highway")
    assert (config.contextualizer.dropout, config.contextualizer.input_dropout) == (0.1, None)
    assert config.char_cnn.num_embeddings == 262


def test_the_legacy_text_field_embedder_layout_and_a_multiprocess_reader():
    data = transformer_elmo_config()
    embedders = data["model"]["text_field_embedder"].pop("token_embedders")
    data["model"]["text_field_embedder"].update(embedders)
    data["dataset_reader"] = {"type": "multiprocess", "base_reader": data["dataset_reader"]}
    assert TransformerElmoConfig.from_dict(data).token_name == "token_characters"
    bad = set_field(data, "dataset_reader.base_reader.token_indexers.token_characters.type", "characters")
    with pytest.raises(ArchiveError, match="base_reader.token_indexers.token_characters.type"):
        TransformerElmoConfig.from_dict(bad)


@pytest.mark.parametrize("field, value, fragment", [
    ("model.type", "simple_tagger", "one of ('language_model',)"),
    ("model.bidirectional", False, "must be true"),
    ("model.contextualizer.type", "lstm", "load_pretrained_bilm"),
    ("model.contextualizer.input_dim", 12, "multiple of the 8 attention heads"),
    ("model.contextualizer.input_dim", DELETE, "is missing"),
    ("model.contextualizer.hidden_dim", 0, "positive int"),
    ("model.contextualizer.num_layers", "3", "positive int"),
    ("model.contextualizer.dropout", 1.0, "[0, 1)"),
    ("model.contextualizer.input_dropout", -0.1, "[0, 1)"),
    (f"{ENCODER}.type", "cnn", "cnn-highway"),
    (f"{ENCODER}.filters", [[1, 4], [2]], "[width, count]"),
    (f"{ENCODER}.filters", [[51, 4]], "width above the 50"),
    (f"{ENCODER}.num_highway", -1, "an int >= 0"),
    (f"{ENCODER}.projection_dim", 32, "must equal model.contextualizer.input_dim (16)"),
    (f"{ENCODER}.projection_location", None, "after_highway"),
    (f"{ENCODER}.do_layer_norm", "yes", "must be bool"),
    (f"{ENCODER}.activation", "gelu", "relu"),
    (f"{ENCODER}.embedding_dim", 5, "must equal"),
    ("model.text_field_embedder.token_embedders.token_characters.type", "embedding", "character_encoding"),
    ("model.text_field_embedder.token_embedders.tokens", {"type": "embedding"}, "exactly one token embedder"),
    ("dataset_reader.token_indexers.token_characters.type", "characters", "elmo_characters"),
])
def test_invalid_fields_are_named(field, value, fragment):
    data = set_field(transformer_elmo_config(), field, value)
    with pytest.raises(ArchiveError) as caught:
        TransformerElmoConfig.from_dict(data, source="model.tar.gz:config.json")
    message = str(caught.value)
    assert "\n" not in message and "model.tar.gz:config.json" in message and fragment in message, message
    assert field.rsplit(".", 1)[0] in message  # the field, or (a second embedder) the embedders it joins


def test_a_model_too_large_for_memory_names_the_field(monkeypatch):
    monkeypatch.setattr("elmo_keras.limits.memory_shortfall",  # the one memory check's
                        lambda parameters, copies: "it would need 1.0 TiB" if parameters > 10**9 else None)
    data = transformer_elmo_config(hidden_dim=10**9)
    with pytest.raises(ArchiveError, match="'contextualizer.hidden_dim' = 1,000,000,000 is too large"):
        TransformerElmoConfig.from_dict(data)


def test_a_config_that_is_not_an_object():
    with pytest.raises(ArchiveError, match="must hold a JSON object"):
        TransformerElmoConfig.from_dict([1, 2])
