"""Released models by name or URL (pretrained.registry, downloads, model_files): downloads from a local HTTP server
(tests/support/http_fixture_server.py) into a temporary cache, checked whole, recorded and verified; offline,
interrupted,
wrong-sized, missing, changed and concurrent cases. No test touches the internet, and none imports Keras."""

import hashlib
import os
import socket
import subprocess
import sys
import threading

import pytest

from elmo_keras.cli import main
from elmo_keras.pretrained import downloads
from elmo_keras.pretrained.downloads import (
    CachedFileChangedError,
    DownloadError,
    OfflineError,
    cache_path,
    cached_file,
    is_offline,
    pretrained_directory,
)
from elmo_keras.pretrained.model_files import local_model_files, model_file_paths
from elmo_keras.pretrained.registry import RELEASED_MODELS, ReleasedModel, RemoteFile, released_model
from tests.support.http_fixture_server import (  # noqa: F401 (fixtures)
    DROP_HALF_WAY,
    HOLD_HALF_WAY,
    NO_LENGTH,
    isolate_downloads,
    serving,
)
from tests.support.paths import REPO_ROOT

OPTIONS, WEIGHTS = "/elmo/bilm_tf/options.json", "/elmo/bilm_tf/weights.hdf5"
ROOT = str(REPO_ROOT)


@pytest.fixture
def fixture_model(server, monkeypatch):
    """A test registry entry, "fixture": the bilm-tf test model on the local server, with its true sizes."""
    model = ReleasedModel("fixture", "elmo_fixture_bilm_tf", "the bilm-tf test model", 32,
                          RemoteFile(server.url(OPTIONS), len(server.files[OPTIONS])),
                          RemoteFile(server.url(WEIGHTS), len(server.files[WEIGHTS])))
    monkeypatch.setitem(RELEASED_MODELS, "fixture", model)
    return model


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _leftovers(directory) -> list[str]:
    """Files in the cache other than finished downloads, their records and their lock files."""
    return sorted(path.name for path in directory.rglob("*") if path.is_file() and path.name.startswith("."))


# -- the registry ---------------------------------------------------------------------------------------------


def test_the_registry_lists_allennlps_four_models():
    assert list(RELEASED_MODELS)[:4] == ["elmo_small_en", "elmo_medium_en", "elmo_original_en",
                                         "elmo_original_5.5b_en"]
    base = "https://s3-us-west-2.amazonaws.com/allennlp/models/elmo"
    small = RELEASED_MODELS["elmo_small_en"]
    assert small.options.url == f"{base}/2x1024_128_2048cnn_1xhighway/elmo_2x1024_128_2048cnn_1xhighway_options.json"
    assert small.weights.url == f"{base}/2x1024_128_2048cnn_1xhighway/elmo_2x1024_128_2048cnn_1xhighway_weights.hdf5"
    original = RELEASED_MODELS["elmo_original_en"]
    assert (original.options.size, original.weights.size) == (336, 374_434_792)
    assert RELEASED_MODELS["elmo_original_5.5b_en"].weights.url.endswith(
        "/2x4096_512_2048cnn_2xhighway_5.5B/elmo_2x4096_512_2048cnn_2xhighway_5.5B_weights.hdf5")
    assert [RELEASED_MODELS[name].output_dim for name in ("elmo_small_en", "elmo_medium_en", "elmo_original_en")
            ] == [256, 512, 1024]


def test_a_name_alias_or_stem_finds_its_model_and_an_unknown_name_lists_them():
    assert released_model("Small") is RELEASED_MODELS["elmo_small_en"]  # the round 1–3 alias
    assert released_model("ELMO_small_en") is RELEASED_MODELS["elmo_small_en"]
    assert released_model("original-5.5B") is RELEASED_MODELS["elmo_original_5.5b_en"]
    assert released_model("elmo_2x2048_256_2048cnn_1xhighway") is RELEASED_MODELS["elmo_medium_en"]
    with pytest.raises(ValueError, match="'large' is not a released ELMo preset; the names are elmo_small_en, "
                                         "elmo_medium_en"):
        released_model("large")
    with pytest.raises(ValueError, match="'elmo_transformer_en' is an AllenNLP archive.*from_preset"):
        released_model("elmo_transformer_en")
    with pytest.raises(TypeError, match="load_pretrained_elmo\\('elmo_small_en', num_output_representations=2\\)"):
        local_model_files("small", 2)
    with pytest.raises(ValueError, match="'options.json' is not a released ELMo preset.*options.json, weights.hdf5"):
        local_model_files("options.json")


# -- where files go -------------------------------------------------------------------------------------------


def test_the_cache_directory_and_the_offline_switch(tmp_path):
    assert pretrained_directory({"ELMO_KERAS_PRETRAINED_DIR": str(tmp_path)}) == tmp_path
    assert pretrained_directory({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "elmo_keras" / "pretrained"
    assert pretrained_directory({"HOME": str(tmp_path)}) == tmp_path / ".cache" / "elmo_keras" / "pretrained"
    assert [is_offline({"ELMO_KERAS_OFFLINE": value}) for value in ("1", "true", "YES", "0", "")] == [
        True, True, True, False, False]


def test_a_urls_file_lies_under_its_scheme_host_and_path(tmp_path):
    url = RELEASED_MODELS["elmo_small_en"].weights.url
    assert cache_path(url, tmp_path) == tmp_path.joinpath(
        "https", "s3-us-west-2.amazonaws.com", "allennlp", "models", "elmo", "2x1024_128_2048cnn_1xhighway",
        "elmo_2x1024_128_2048cnn_1xhighway_weights.hdf5")
    local = cache_path("http://127.0.0.1:8000/a/w.hdf5", tmp_path)
    assert local == tmp_path / "http" / "127.0.0.1_8000" / "a" / "w.hdf5"
    # a query, or characters that had to change, put the entry under hashed/<SHA-256 of the URL>: no two URLs share one
    with_query = cache_path("https://host/w.hdf5?version=2", tmp_path)
    assert with_query.parent.parent == tmp_path / "hashed" and with_query.name == "w.hdf5"
    assert cache_path("https://host/w.hdf5?version=3", tmp_path) != with_query
    escaping = cache_path("https://host/a/../../../etc/passwd", tmp_path)
    assert tmp_path in escaping.parents and ".." not in escaping.parts


# -- downloads ------------------------------------------------------------------------------------------------


@pytest.mark.fixtures
def test_a_model_by_name_is_downloaded_once_recorded_and_then_read_from_the_cache(server, cache, fixture_model):
    calls = []
    options, weights = local_model_files("fixture", progress=lambda *call: calls.append(call))
    assert (options, weights) == model_file_paths("fixture")
    assert open(options, "rb").read() == server.files[OPTIONS]
    assert open(weights, "rb").read() == server.files[WEIGHTS]
    assert calls[-1] == ("weights.hdf5", len(server.files[WEIGHTS]), len(server.files[WEIGHTS]))
    recorded = open(weights + ".sha256", encoding="ascii").read()
    assert recorded == f"{_sha256(server.files[WEIGHTS])}  weights.hdf5\n"  # sha256sum's format
    assert local_model_files("fixture") == (options, weights)
    assert server.requests == {OPTIONS: 1, WEIGHTS: 1}
    assert _leftovers(cache) == []


@pytest.mark.fixtures
def test_any_url_is_downloaded_and_a_local_path_passes_through(server, cache, tmp_path):
    path = cached_file(server.url(WEIGHTS), progress=None)
    host = "127.0.0.1_{}".format(server.httpd.server_address[1])
    assert path == cache / "http" / host / "elmo" / "bilm_tf" / "weights.hdf5"
    local_options = tmp_path / "options.json"
    local_options.write_bytes(server.files[OPTIONS])
    assert local_model_files(local_options, server.url(WEIGHTS)) == (str(local_options), str(path))
    assert server.requests[WEIGHTS] == 1


@pytest.mark.fixtures
def test_a_connection_dropped_half_way_keeps_nothing_and_the_next_try_downloads(server, cache):
    server.modes[WEIGHTS] = DROP_HALF_WAY
    size = len(server.files[WEIGHTS])
    with pytest.raises(DownloadError, match=f"stopped after {size // 2:,} of {size:,} bytes.*nothing was kept"):
        cached_file(server.url(WEIGHTS), progress=None)
    assert not cache_path(server.url(WEIGHTS)).exists() and _leftovers(cache) == []
    del server.modes[WEIGHTS]
    assert cached_file(server.url(WEIGHTS), progress=None).read_bytes() == server.files[WEIGHTS]


@pytest.mark.fixtures
def test_a_size_other_than_the_registrys_is_refused(server, cache):
    size = len(server.files[WEIGHTS])
    with pytest.raises(DownloadError, match=f"the server sends {size:,} bytes but the file has {size + 1:,}"):
        cached_file(server.url(WEIGHTS), size=size + 1, progress=None)
    server.modes[WEIGHTS] = NO_LENGTH  # no Content-Length: found out as the body passes the known size
    with pytest.raises(DownloadError, match=f"passed {size - 1:,} bytes, the length it was announced with; nothing"):
        cached_file(server.url(WEIGHTS), size=size - 1, progress=None)
    with pytest.raises(DownloadError, match=f"stopped after {size:,} of {size + 1:,} bytes"):
        cached_file(server.url(WEIGHTS), size=size + 1, progress=None)
    assert not cache_path(server.url(WEIGHTS)).exists() and _leftovers(cache) == []
    assert cached_file(server.url(WEIGHTS), size=size, progress=None).stat().st_size == size


@pytest.mark.fixtures
def test_a_published_checksum_is_checked(server, cache):
    with pytest.raises(DownloadError, match="has SHA-256 .* not the published 00000"):
        cached_file(server.url(WEIGHTS), sha256="0" * 64, progress=None)
    assert not cache_path(server.url(WEIGHTS)).exists() and _leftovers(cache) == []
    assert cached_file(server.url(WEIGHTS), sha256=_sha256(server.files[WEIGHTS]).upper(), progress=None).is_file()


@pytest.mark.fixtures
def test_a_missing_file_is_an_http_error_naming_the_url(server, cache):
    with pytest.raises(DownloadError, match="cannot download http://127.0.0.1:.*/nothing.hdf5: HTTP 404"):
        cached_file(server.url("/nothing.hdf5"), progress=None)
    assert not cache.exists() or _leftovers(cache) == []


@pytest.mark.fixtures
def test_offline_a_missing_model_is_one_line_saying_where_to_put_its_files(server, cache, fixture_model, monkeypatch):
    monkeypatch.setenv("ELMO_KERAS_OFFLINE", "1")
    with pytest.raises(OfflineError) as raised:
        local_model_files("fixture")
    message = str(raised.value)
    options_path, weights_path = model_file_paths("fixture")
    assert "\n" not in message and message.startswith("ELMo model 'fixture' is not in the cache (ELMO_KERAS_OFFLINE=1")
    for url, path in ((server.url(OPTIONS), options_path), (server.url(WEIGHTS), weights_path)):
        assert f"{url} to {path}" in message
    assert message.endswith("unset ELMO_KERAS_OFFLINE") and not server.requests
    # the files put there by hand are used offline, checked against the registry's sizes, and recorded
    for path, served in ((options_path, OPTIONS), (weights_path, WEIGHTS)):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(server.files[served][:-1] if served == WEIGHTS else server.files[served])
    with pytest.raises(CachedFileChangedError, match=f"weights.hdf5: has {len(server.files[WEIGHTS]) - 1:,} bytes"):
        local_model_files("fixture")
    with open(weights_path, "wb") as handle:
        handle.write(server.files[WEIGHTS])
    assert local_model_files("fixture") == (options_path, weights_path) and not server.requests
    assert os.path.isfile(weights_path + ".sha256")


def test_an_unreachable_network_is_the_same_one_line_error(cache):
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    urls = [f"http://127.0.0.1:{port}/o.json", f"http://127.0.0.1:{port}/w.hdf5"]
    with pytest.raises(OfflineError, match=f"cannot download the ELMo files \\({urls[0]} cannot be reached") as raised:
        local_model_files(*urls)
    assert f"{urls[1]} to {cache_path(urls[1])}" in str(raised.value) and "\n" not in str(raised.value)


@pytest.mark.fixtures
def test_a_changed_cached_file_is_an_error_until_it_is_deleted(server, cache):
    path = cached_file(server.url(WEIGHTS), progress=None)
    with open(path, "r+b") as handle:
        handle.seek(100)
        handle.write(b"\0\1\2")
    with pytest.raises(CachedFileChangedError, match=f"{path}: changed since it was downloaded from .*delete it"):
        cached_file(server.url(WEIGHTS), progress=None)
    path.unlink()
    assert cached_file(server.url(WEIGHTS), progress=None).read_bytes() == server.files[WEIGHTS]
    assert server.requests[WEIGHTS] == 2


CHILD = """
import sys
from elmo_keras.pretrained.downloads import cached_file
print(cached_file(sys.argv[1], progress=None))
"""


@pytest.mark.fixtures
def test_two_processes_downloading_one_file_take_turns(server, cache):
    """The second process waits for the first one's lock, then finds the file: one download, one whole file."""
    server.modes[WEIGHTS] = HOLD_HALF_WAY
    url = server.url(WEIGHTS)
    env = dict(os.environ, PYTHONPATH=ROOT)
    first = subprocess.Popen([sys.executable, "-c", CHILD, url], env=env, stdout=subprocess.PIPE, text=True)
    server.wait_for_requests(WEIGHTS, 1)  # the first holds the lock, half-way through
    second = subprocess.Popen([sys.executable, "-c", CHILD, url], env=env, stdout=subprocess.PIPE, text=True)
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            second.wait(timeout=3)  # waiting for the lock (its start-up takes well under this)
        assert server.requests[WEIGHTS] == 1
    finally:
        server.release.set()
    outputs = [process.communicate(timeout=60)[0].strip() for process in (first, second)]
    assert [first.returncode, second.returncode] == [0, 0]
    assert outputs == [str(cache_path(url))] * 2
    assert cache_path(url).read_bytes() == server.files[WEIGHTS] and server.requests[WEIGHTS] == 1
    assert _leftovers(cache) == []


@pytest.mark.fixtures
def test_without_the_lock_two_downloads_at_once_still_leave_one_whole_file(server, cache, monkeypatch):
    """Where there is no flock, each download writes its own partial file and renames it whole."""
    monkeypatch.setattr(downloads, "fcntl", None)
    server.modes[WEIGHTS] = HOLD_HALF_WAY
    url, results = server.url(WEIGHTS), []
    threads = [threading.Thread(target=lambda: results.append(cached_file(url, progress=None))) for _ in range(2)]
    for thread in threads:
        thread.start()
    server.wait_for_requests(WEIGHTS, 2)  # both half-way, at once
    server.release.set()
    for thread in threads:
        thread.join(timeout=60)
    assert results == [cache_path(url)] * 2
    assert cache_path(url).read_bytes() == server.files[WEIGHTS] and _leftovers(cache) == []
    assert cached_file(url, progress=None).is_file()  # the record matches the file


# -- the command line -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("argv, message", [
    (["--model", "large"], "'large' is not a released ELMo preset; the names are elmo_small_en, elmo_medium_en"),
    (["--model", "small", "--options", "o.json", "--weights", "w.hdf5"], "either --options/--weights or --model,"),
    (["--model", "small", "--model-dir", "d"], "use either --model-dir or --model, not both"),
    (["--options", "https://host/o.json"], "needs --options FILE and --weights FILE (paths or URLs), --model NAME"),
])
def test_the_embed_commands_model_arguments(argv, message, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["embed", "in.txt", "out.hdf5", *argv])
    assert exited.value.code == 2 and message in capsys.readouterr().err
