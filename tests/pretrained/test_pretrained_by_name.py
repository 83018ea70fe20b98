"""A released model by name or URL loads the same model as its local files: ``load_pretrained_bilm``,
``load_pretrained_elmo``, ``ElmoEmbedder.from_name`` / URLs and ``embed --model``, over the local fixture server
(tests/support/http_fixture_server.py) through a test registry entry. The download cases themselves are in
tests/pretrained/backend_independent/test_pretrained_downloads.py (no Keras)."""

import h5py
import numpy as np
import pytest

from elmo_keras.cli import main
from elmo_keras.embedding.embedder import ElmoEmbedder
from elmo_keras.pretrained.downloads import cache_path
from elmo_keras.pretrained.loader import load_pretrained_bilm, load_pretrained_elmo
from elmo_keras.pretrained.registry import RELEASED_MODELS, ReleasedModel, RemoteFile
from elmo_keras.text.char_ids import batch_to_ids
from tests.support.http_fixture_server import isolate_downloads, serving

pytestmark = pytest.mark.fixtures

OPTIONS, WEIGHTS = "/elmo/skip/options.json", "/elmo/skip/weights.hdf5"  # the model with skip connections
SENTENCE = ["The", "bank", "approved", "the", "loan", "."]


@pytest.fixture(scope="module")
def server(shared_fixtures):
    with serving(shared_fixtures) as running:
        yield running


@pytest.fixture
def fixture_model(server, tmp_path, monkeypatch):
    """"fixture" in the registry: the skip-connection test model on the local server; an empty cache."""
    isolate_downloads(monkeypatch, tmp_path / "cache")
    model = ReleasedModel("fixture", "elmo_fixture_skip", "the skip-connection test model", 32,
                          RemoteFile(server.url(OPTIONS), len(server.files[OPTIONS])),
                          RemoteFile(server.url(WEIGHTS), len(server.files[WEIGHTS])))
    monkeypatch.setitem(RELEASED_MODELS, "fixture", model)
    return model


def test_by_name_and_by_url_load_what_the_local_files_load(shared_fixtures, fixture_model, server):
    local = shared_fixtures / "elmo_skip"
    reference = load_pretrained_bilm(local / "options.json", local / "lm_weights.hdf5")
    by_name = load_pretrained_bilm("fixture")
    by_url = load_pretrained_bilm(server.url(OPTIONS), server.url(WEIGHTS))
    for bilm in (by_name, by_url):
        assert bilm.pretrained_files == {"options_file": str(cache_path(server.url(OPTIONS))),
                                         "weight_file": str(cache_path(server.url(WEIGHTS)))}
        for ours, theirs in zip(bilm.get_weights(), reference.get_weights()):
            np.testing.assert_array_equal(ours, theirs)
    assert server.requests[WEIGHTS] == 1  # the URL load found the name load's download

    elmo = load_pretrained_elmo("fixture", num_output_representations=2)
    vectors = elmo(batch_to_ids([SENTENCE]))["elmo_representations"]
    assert len(vectors) == 2 and tuple(vectors[0].shape) == (1, len(SENTENCE), fixture_model.output_dim)

    eager = {"execution": "eager"}  # a six-token sentence: tracing a graph would cost more than it saves
    expected = ElmoEmbedder(local / "options.json", local / "lm_weights.hdf5", **eager).embed_sentence(SENTENCE)
    for embedder in (ElmoEmbedder.from_name("fixture", **eager),
                     ElmoEmbedder(server.url(OPTIONS), server.url(WEIGHTS), **eager)):
        np.testing.assert_array_equal(embedder.embed_sentence(SENTENCE), expected)  # the same weights, bit for bit
        assert embedder.source_files["the weights file"] == str(cache_path(server.url(WEIGHTS)))


def test_the_embed_command_takes_a_model_by_name(fixture_model, shared_fixtures, tmp_path, capsys):
    text, output = tmp_path / "input.txt", tmp_path / "out.hdf5"
    text.write_text(" ".join(SENTENCE) + "\n", encoding="utf-8")
    assert main(["embed", str(text), str(output), "--model", "fixture", "--top", "--execution", "eager"]) == 0
    err = capsys.readouterr().err
    assert "downloading weights.hdf5: " in err and "(100%)" in err  # the download's progress line
    local = shared_fixtures / "elmo_skip"
    embedder = ElmoEmbedder(local / "options.json", local / "lm_weights.hdf5", execution="eager")
    expected = embedder.embed_sentence(SENTENCE)[-1]
    with h5py.File(output, "r") as handle:
        np.testing.assert_array_equal(handle["0"][...], expected)
    # the cached files are what the command read: it refuses to write its output over them
    assert main(["embed", str(text), str(cache_path(fixture_model.weights.url)), "--model", "fixture"]) == 1
    assert "is the weights file" in capsys.readouterr().err
