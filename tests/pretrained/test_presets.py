"""The one load verb: ``load_preset`` tells every input kind apart (a preset name or alias, an archive URL, a model
directory, an AllenNLP archive or its folder, an options + weights pair or folder) and refuses anything else in one
line; ``from_preset`` on ``ElmoEmbedder``, ``Elmo``, ``BiLM``/``TransformerBiLM`` and ``BiLanguageModel`` loads what
the older spellings (kept as aliases) load. Local fixtures only: the released archive comes from the local fixture
server (tests/support/http_fixture_server.py), never the network."""


import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.embedding.embedder import ElmoEmbedder
from elmo_keras.layers.bilm import BiLM
from elmo_keras.layers.bilm_base import BiLMBase
from elmo_keras.layers.elmo import Elmo
from elmo_keras.layers.transformer_bilm import TransformerBiLM
from elmo_keras.models.bilm.directory import load_bilm
from elmo_keras.models.bilm.language_model import BiLanguageModel
from elmo_keras.pretrained.downloads import cache_path
from elmo_keras.pretrained.loader import load_pretrained_bilm, load_pretrained_elmo
from elmo_keras.pretrained.presets import ARCHIVE, MODEL_DIRECTORY, NAME, PAIR, URL, load_preset, preset_kind
from elmo_keras.pretrained.registry import (
    ALIASES,
    RELEASED_ARCHIVES,
    RELEASED_MODELS,
    ReleasedArchive,
    RemoteFile,
    preset_name,
    preset_names,
)
from elmo_keras.text.char_ids import batch_to_ids
from tests.support.paths import REPO_ROOT

TOY = REPO_ROOT / "elmo_keras" / "data" / "shipped_models" / "toy"
SENTENCE = ["The", "bank", "approved", "the", "loan", "."]
EAGER = {"execution": "eager"}  # a six-token sentence: tracing a graph would cost more than it saves


@pytest.fixture(scope="module")
def transformer_fixture(shared_fixtures):
    folder = shared_fixtures / "transformer_elmo"
    if not (folder / "model.tar.gz").exists():
        pytest.skip(f"AllenNLP's transformer ELMo test archive not found in {folder}")
    return folder


def _pair(shared_fixtures):
    return shared_fixtures / "elmo_bilm_tf" / "options.json", shared_fixtures / "elmo_bilm_tf" / "lm_weights.hdf5"


def _one_line(error) -> str:
    text = str(error.value)
    assert "\n" not in text
    return text


# -- names and aliases ----------------------------------------------------------------------------------------


def test_preset_names_say_what_they_are_and_the_old_names_are_aliases():
    assert preset_names() == ["elmo_small_en", "elmo_medium_en", "elmo_original_en", "elmo_original_5.5b_en",
                              "elmo_transformer_en"]
    assert ALIASES == {"small": "elmo_small_en", "medium": "elmo_medium_en", "original": "elmo_original_en",
                       "original-5.5B": "elmo_original_5.5b_en"}
    for alias, name in ALIASES.items():
        assert preset_name(alias) == name and preset_kind(alias) == (NAME, name)
    assert preset_name("ELMO_TRANSFORMER_EN") == "elmo_transformer_en"
    assert preset_name("elmo_2x4096_512_2048cnn_2xhighway_5.5B") == "elmo_original_5.5b_en"  # AllenNLP's file stem
    transformer = RELEASED_ARCHIVES["elmo_transformer_en"]
    assert transformer.archive.url == "https://allennlp.s3.amazonaws.com/models/transformer-elmo-2019.01.10.tar.gz"
    assert transformer.archive.size is None  # not published: the first download records it
    assert all(name.startswith("elmo_") and name.endswith("_en") for name in preset_names())
    assert set(RELEASED_MODELS) | set(RELEASED_ARCHIVES) == set(preset_names())


# -- every input kind is told apart before any read -----------------------------------------------------------


def test_each_input_kind_is_recognised(shared_fixtures, tmp_path):
    options, weights = _pair(shared_fixtures)
    assert preset_kind("elmo_small_en") == (NAME, "elmo_small_en")
    assert preset_kind("HTTPS://Host/m/model.tar.gz") == (URL, "https://host/m/model.tar.gz")
    assert preset_kind(TOY) == (MODEL_DIRECTORY, str(TOY))
    assert preset_kind(str(TOY)) == (MODEL_DIRECTORY, str(TOY))
    assert preset_kind((options, weights)) == (PAIR, (options, weights))
    assert preset_kind(("https://host/o.json", "https://host/w.hdf5"))[0] == PAIR
    assert preset_kind(options.parent) == (PAIR, (str(options), str(weights)))  # a folder of the two files
    archive = tmp_path / "model.tar.gz"
    archive.write_bytes(b"")
    assert preset_kind(archive) == (ARCHIVE, str(archive))
    (tmp_path / "allennlp").mkdir()
    (tmp_path / "allennlp" / "config.json").write_text("{}")
    assert preset_kind(tmp_path / "allennlp") == (ARCHIVE, str(tmp_path / "allennlp"))


@pytest.mark.parametrize("make, error, message", [
    (lambda tmp: 3, TypeError, "from_preset takes a str or path, received int"),
    (lambda tmp: "elmo_large_en", ValueError, "'elmo_large_en' is not a released ELMo preset; the names are "
                                              "elmo_small_en"),
    (lambda tmp: "https://host/elmo_options.json", ValueError, "is not a model.tar.gz"),
    (lambda tmp: "ftp://host/model.tar.gz", ValueError, "is not an http(s) URL: download it yourself"),
    (lambda tmp: tmp / "missing", FileNotFoundError, "no such file or folder"),
    (lambda tmp: tmp, ValueError, "holds no model: a model directory has model.keras"),
    (lambda tmp: ("only-one",), ValueError, "a pair is (options.json, weights.hdf5), received 1 items"),
    (lambda tmp: (tmp / "o.json", 2), TypeError, "the pair's weights file must be a path"),
    (lambda tmp: (tmp / "o.json", tmp / "w.hdf5"), FileNotFoundError, "the pair's options file"),
])
def test_a_bad_input_is_one_line_naming_what_to_pass(make, error, message, tmp_path):
    with pytest.raises(error) as raised:
        preset_kind(make(tmp_path))
    assert message in _one_line(raised)


@pytest.mark.parametrize("name, message", [("options.json", "an options file alone: pass (options.json"),
                                           ("model.keras", "a .keras file: from_preset takes its model directory"),
                                           ("notes.txt", "is no model file")])
def test_a_lone_file_of_another_kind_says_what_to_pass(name, message, tmp_path):
    (tmp_path / name).write_text("{}")
    with pytest.raises(ValueError) as raised:
        load_preset(tmp_path / name)
    assert message in _one_line(raised)


# -- from_preset on every class -------------------------------------------------------------------------------


def test_a_pair_loads_through_every_from_preset_as_the_old_spellings_do(shared_fixtures):
    options, weights = _pair(shared_fixtures)
    reference = load_pretrained_bilm(options, weights)
    for bilm in (BiLM.from_preset((options, weights)), BiLMBase.from_preset(options.parent),
                 load_preset((str(options), str(weights))).bilm):
        assert isinstance(bilm, BiLM)
        for ours, theirs in zip(bilm.get_weights(), reference.get_weights()):
            np.testing.assert_array_equal(ours, theirs)
    ids = batch_to_ids([SENTENCE])
    elmo = Elmo.from_preset((options, weights), num_output_representations=2, dropout=0.0)
    old = load_pretrained_elmo(options, weights, num_output_representations=2, dropout=0.0)
    assert not elmo.bilm.trainable and len(elmo(ids)["elmo_representations"]) == 2
    np.testing.assert_allclose(keras.ops.convert_to_numpy(elmo(ids)["elmo_representations"][0]),
                               keras.ops.convert_to_numpy(old(ids)["elmo_representations"][0]))
    embedder = ElmoEmbedder.from_preset((options, weights), **EAGER)
    np.testing.assert_array_equal(embedder.embed_sentence(SENTENCE),
                                  ElmoEmbedder(options, weights, **EAGER).embed_sentence(SENTENCE))
    assert embedder.source_files == {"the options file": str(options), "the weights file": str(weights)}
    with pytest.raises(TypeError) as raised:
        TransformerBiLM.from_preset((options, weights))
    assert "holds a BiLM, not a TransformerBiLM" in _one_line(raised)


def test_a_model_directory_loads_through_every_from_preset():
    model = BiLanguageModel.from_preset(TOY)
    assert isinstance(model, BiLanguageModel) and model.vocabulary is not None
    for ours, theirs in zip(load_bilm(TOY).get_weights(), model.get_weights()):  # the alias loads the same
        np.testing.assert_array_equal(ours, theirs)
    loaded = load_preset(TOY)
    assert loaded.kind == MODEL_DIRECTORY and loaded.model is not None
    assert loaded.directories == {"the model directory": str(TOY)}
    embedder = ElmoEmbedder.from_preset(TOY, **EAGER)
    np.testing.assert_array_equal(embedder.embed_sentence(["the", "bank"]),
                                  ElmoEmbedder.from_model_dir(TOY, **EAGER).embed_sentence(["the", "bank"]))
    assert embedder.source_directories == {"the model directory": str(TOY)}
    with pytest.raises(FileNotFoundError) as raised:
        BiLanguageModel.from_preset("elmo_small_en")  # a released preset has no softmax
    assert "use BiLM.from_preset or ElmoEmbedder.from_preset" in _one_line(raised)


def test_an_allennlp_archive_and_its_folder_load_the_transformer(transformer_fixture):
    from elmo_keras.pretrained.transformer_loader import transformer_elmo_from_archive

    reference = transformer_elmo_from_archive(transformer_fixture / "model.tar.gz").bilm
    for source in (transformer_fixture / "model.tar.gz", transformer_fixture):
        bilm = TransformerBiLM.from_preset(source)
        for ours, theirs in zip(bilm.get_weights(), reference.get_weights()):
            np.testing.assert_array_equal(ours, theirs)
    with pytest.raises(TypeError) as raised:
        BiLM.from_preset(transformer_fixture)
    assert "holds a TransformerBiLM, not a BiLM" in _one_line(raised)
    elmo = Elmo.from_preset(transformer_fixture, dropout=0.0)
    vectors = elmo(batch_to_ids([SENTENCE]))["elmo_representations"][0]
    assert tuple(vectors.shape) == (1, len(SENTENCE), reference.output_dim)
    embedder = ElmoEmbedder.from_preset(transformer_fixture / "model.tar.gz", **EAGER)
    assert embedder.embed_sentence(SENTENCE).shape == (reference.num_activation_layers, len(SENTENCE),
                                                       reference.output_dim)
    assert embedder.source_files == {"the archive": str(transformer_fixture / "model.tar.gz")}


def test_a_released_archive_by_name_downloads_once(transformer_fixture, server, cache, monkeypatch):
    path = "/transformer/model.tar.gz"
    server.files[path] = (transformer_fixture / "model.tar.gz").read_bytes()
    try:
        monkeypatch.setitem(RELEASED_ARCHIVES, "elmo_fixture_en",
                            ReleasedArchive("elmo_fixture_en", "the test archive", 32, RemoteFile(server.url(path))))
        by_name = load_preset("elmo_fixture_en", progress=None)
        by_url = load_preset(server.url(path), progress=None)
        assert by_name.kind == by_url.kind == URL and server.requests[path] == 1  # the URL found the name's copy
        assert by_name.files == {"the archive": str(cache_path(server.url(path)))}
        for ours, theirs in zip(by_name.bilm.get_weights(), by_url.bilm.get_weights()):
            np.testing.assert_array_equal(ours, theirs)
    finally:
        del server.files[path]


# -- training sizes are "sizes"; the old spellings are aliases ------------------------------------------------


def test_training_sizes_are_sizes_and_the_preset_spellings_are_aliases():
    import argparse

    from elmo_keras.cli.train import add_train_arguments
    from elmo_keras.models.bilm.presets import LARGE_PRESETS, LARGE_SIZES, PRESETS, SIZES, get_preset, get_size

    assert PRESETS is SIZES and LARGE_PRESETS is LARGE_SIZES and get_preset("tiny") is get_size("tiny")
    with pytest.raises(ValueError, match="unknown size 'huge'"):
        get_size("huge")
    parser = argparse.ArgumentParser()
    add_train_arguments(parser)
    assert parser.parse_args(["out", "--size", "tiny"]).size == "tiny"
    assert parser.parse_args(["out", "--preset", "tiny"]).size == "tiny"  # the round 1–3 flag
    assert parser.parse_args(["out"]).size == "toy"
