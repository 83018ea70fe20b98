"""ElmoOptions: the typed options.json, with errors that name the file and the field."""

import json
import re

import pytest

from elmo_keras.pretrained.options import ElmoOptions, OptionsError

OPTIONS = {
    "lstm": {"cell_clip": 3, "use_skip_connections": False, "n_layers": 2, "proj_clip": 3, "projection_dim": 16,
             "dim": 64},
    "char_cnn": {
        "embedding": {"dim": 4}, "filters": [[1, 4], [2, 8], [3, 16], [4, 32], [5, 64]], "n_highway": 2,
        "n_characters": 262, "max_characters_per_token": 50, "activation": "relu",
    },
    "n_epochs": 10,  # training-only keys are ignored
}


def _with(path, value):
    data = json.loads(json.dumps(OPTIONS))
    *parents, last = path.split(".")
    target = data
    for part in parents:
        target = target[part]
    if value is _DELETE:
        del target[last]
    else:
        target[last] = value
    return data


_DELETE = object()


def test_reads_every_field():
    options = ElmoOptions.from_dict(OPTIONS)
    assert options.char_cnn.filters == ((1, 4), (2, 8), (3, 16), (4, 32), (5, 64))
    assert options.char_cnn.n_filters == 124
    assert (options.char_cnn.embedding_dim, options.char_cnn.n_highway, options.char_cnn.activation) == (4, 2, "relu")
    assert (options.lstm.dim, options.lstm.projection_dim, options.lstm.n_layers) == (64, 16, 2)
    assert (options.lstm.cell_clip, options.lstm.proj_clip) == (3.0, 3.0)
    assert options.lstm.has_projection and not options.lstm.use_skip_connections


def test_to_dict_round_trip():
    options = ElmoOptions.from_dict(OPTIONS)
    assert ElmoOptions.from_dict(options.to_dict()) == options


def test_optional_fields_default():
    data = _with("lstm.use_skip_connections", _DELETE)
    del data["lstm"]["cell_clip"], data["lstm"]["proj_clip"]
    options = ElmoOptions.from_dict(data)
    assert options.lstm.use_skip_connections is False
    assert options.lstm.cell_clip is None and options.lstm.proj_clip is None


def test_projection_equal_to_dim_means_no_projection_and_no_proj_clip():
    options = ElmoOptions.from_dict(_with("lstm.projection_dim", 64))
    assert not options.lstm.has_projection
    assert options.lstm.proj_clip is None  # TensorFlow ignores proj_clip without a projection
    assert options.lstm.output_dim == 64


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("lstm.projection_dim", _DELETE, "'lstm.projection_dim' is missing"),
        ("char_cnn.embedding", _DELETE, "'char_cnn.embedding.dim' is missing"),
        ("lstm.projection_dim", 128, r"'lstm.projection_dim' must be a positive int <= lstm.dim \(64\), received 128"),
        ("lstm.dim", "64", "'lstm.dim' must be a positive int, received '64'"),
        ("lstm.n_layers", True, "'lstm.n_layers' must be a positive int, received True"),
        ("char_cnn.activation", "gelu", "'char_cnn.activation' must be one of"),
        ("char_cnn.filters", [[1, 4], [2]], "'char_cnn.filters' must be a non-empty list"),
        ("char_cnn.max_characters_per_token", 30, "'char_cnn.max_characters_per_token' must be 50"),
        ("char_cnn.n_characters", 300, "'char_cnn.n_characters' must be one of"),
        ("lstm.cell_clip", -1, "'lstm.cell_clip' must be a finite positive number or null"),
        ("lstm.cell_clip", float("nan"), "'lstm.cell_clip' must be a finite positive number or null"),
        ("lstm.proj_clip", float("inf"), "'lstm.proj_clip' must be a finite positive number or null"),
    ],
)
def test_invalid_field_is_named(field, value, message):
    with pytest.raises(OptionsError, match=message):
        ElmoOptions.from_dict(_with(field, value), source="my_options.json")


def test_error_names_the_file(tmp_path):
    path = tmp_path / "options.json"
    path.write_text(json.dumps(_with("lstm.dim", 0)))
    with pytest.raises(OptionsError) as info:
        ElmoOptions.load(path)
    assert str(path) in str(info.value) and "'lstm.dim'" in str(info.value)
    assert info.value.path == str(path) and info.value.key == "lstm.dim"


def test_n_characters_261_is_accepted():
    assert ElmoOptions.from_dict(_with("char_cnn.n_characters", 261)).char_cnn.n_characters == 261


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.json"):
        ElmoOptions.load(tmp_path / "nope.json")


def test_not_json(tmp_path):
    path = tmp_path / "options.json"
    path.write_text("lstm: 3")
    with pytest.raises(OptionsError, match=f"{re.escape(str(path))}: is not a JSON options file"):
        ElmoOptions.load(path)


def test_not_an_object(tmp_path):
    path = tmp_path / "options.json"
    path.write_text("[1, 2]")
    with pytest.raises(OptionsError, match="must hold a JSON object"):
        ElmoOptions.load(path)


@pytest.mark.parametrize("text", ["[" * 100_000, '{"lstm": ' * 50_000 + "1" + "}" * 50_000])
def test_deeply_nested_json_is_one_error_naming_the_file(tmp_path, text):
    """Python's JSON parser recurses once per level: a RecursionError traceback before the fix."""
    path = tmp_path / "options.json"
    path.write_text(text)
    with pytest.raises(OptionsError, match=f"{re.escape(str(path))}: is not an ELMo options file: its JSON is nested "
                                           "too deeply to read"):
        ElmoOptions.load(path)
