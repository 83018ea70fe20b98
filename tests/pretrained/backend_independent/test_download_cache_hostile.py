"""The download cache against hostile URLs, servers and files (issue 36, items 1–3, 7, 9, 11): one entry per URL,
always inside the cache; every known size and every record checked at every load; bounded downloads; stale partials
cleaned; one-line errors that never print credentials. Local servers only, no Keras."""

import os
import pathlib
import signal
import subprocess
import sys
import time
import urllib.request

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elmo_keras.pretrained import downloads
from elmo_keras.pretrained.cache_layout import cache_path, refuse_cache_output, stale_partials
from elmo_keras.pretrained.downloads import CachedFileChangedError, DownloadError, URLError, cached_file
from elmo_keras.pretrained.options import ElmoOptions
from elmo_keras.pretrained.registry import RELEASED_MODELS
from elmo_keras.pretrained.urls import checked_url, normal_url, shown_url
from elmo_keras.pretrained.weights import WeightFileError, read_weight_file
from elmo_keras.safe_files import OutputOverwritesInputError, file_sha256
from tests.support.http_fixture_server import (  # noqa: F401 (fixtures)
    BAD_STATUS,
    DRIP,
    DRIP_HEADERS,
    ENDLESS,
    HOLD_HALF_WAY,
    LONG_HEADER,
    MANY_HEADERS,
    REDIRECT,
    STALL,
    isolate_downloads,
    serving,
)
from tests.support.paths import REPO_ROOT

OPTIONS, WEIGHTS = "/elmo/bilm_tf/options.json", "/elmo/bilm_tf/weights.hdf5"
ROOT = REPO_ROOT


def _leftovers(directory) -> list[str]:
    return sorted(path.name for path in pathlib.Path(directory).rglob("*") if path.is_file()
                  and path.name.startswith("."))


# -- 1. one entry per scheme, and the known size checked at every load ------------------------------------------


def test_http_and_https_never_share_an_entry(tmp_path):
    assert cache_path("http://host/a/w.hdf5", tmp_path) != cache_path("https://host/a/w.hdf5", tmp_path)
    assert cache_path("http://host:8080/w.hdf5", tmp_path) != cache_path("http://host/w.hdf5", tmp_path)
    # the same resource spelled two ways is one entry: case of scheme and host, the default port, a fragment
    assert cache_path("HTTPS://Host:443/w.hdf5#x", tmp_path) == cache_path("https://host/w.hdf5", tmp_path)


@pytest.mark.fixtures
def test_a_recorded_file_of_the_wrong_size_is_refused_at_every_load(server, cache):
    """The poisoning path: a short body recorded in the entry of a URL whose size is known (registry or caller)."""
    url = server.url(OPTIONS)
    size = len(server.files[OPTIONS])
    path = cache_path(url)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"{}" * 24)  # 48 bytes, as the proxy served
    downloads._record_sha256(path, file_sha256(path))  # an intact record of the wrong file
    with pytest.raises(CachedFileChangedError, match=f"has 48 bytes but .* has {size:,}; delete it"):
        cached_file(url, size=size, progress=None)


# -- 2. inside the cache, and injective ------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["http://../x.json", "http://./127.0.0.1_8801/ok/o.json", "http://.../x",
                                 "http:///x.json", "ftp://host/x", "http://host:99999/x", "http://host:0/x",
                                 "http://host:port/x", "http://alice:s3cr3t@host/x", "http://host/a\nb"])
def test_a_url_without_a_usable_host_port_or_scheme_is_one_line_naming_no_secret(url, tmp_path):
    with pytest.raises(URLError) as error:
        cache_path(url, tmp_path)
    message = str(error.value)
    assert "\n" not in message and "s3cr3t" not in message and "Traceback" not in message
    assert not any(tmp_path.parent.iterdir()) or not (tmp_path.parent / "x.json").exists()


_SEGMENT = st.lists(st.sampled_from([*"aZ09._-%~ /?#é\\:@", "..", "%2e%2e", ".sha256", ".lock", "index"]),
                    max_size=5).map("".join)
_HOST = st.sampled_from(["host", "HOST", "h.example", "h_x", "..", ".", "127.0.0.1", "xn--bcher-kva", "bücher",
                         "a-b", "[::1]"])
_URL = st.builds(lambda scheme, host, port, segments, query: (
    f"{scheme}://{host}{port}/{'/'.join(segments)}{query}"),
    st.sampled_from(["http", "https", "HTTP"]), _HOST, st.sampled_from(["", ":80", ":443", ":8080", ":1"]),
    st.lists(_SEGMENT, max_size=4), st.sampled_from(["", "?", "?v=1", "?v=2"]))


def _entry(url, directory):
    try:
        return normal_url(url), cache_path(url, directory)
    except URLError:
        return None


# plain URLs (their own folder in the cache) with names like files, folders and records; and pairs whose second URL
# is often the first one with more path below it (``/a`` and ``/a/b``), which must not collide either
_PLAIN_NAME = st.sampled_from(["a", "d", "b.json", "c.hdf5", "2x4096_5.5B", "v1.x", "e.sha256", "f.tar.gz"])
_PLAIN_URL = st.builds(lambda scheme, host, names: f"{scheme}://{host}/{'/'.join(names)}",
                       st.sampled_from(["http", "https"]), st.sampled_from(["host", "h.example", "127.0.0.1:8080"]),
                       st.lists(_PLAIN_NAME, min_size=1, max_size=3))
_URL_PAIR = st.tuples(st.one_of(_URL, _PLAIN_URL), st.one_of(_URL, _PLAIN_URL),
                      st.lists(st.one_of(_PLAIN_NAME, _SEGMENT), min_size=1, max_size=2), st.booleans()).map(
    lambda drawn: (drawn[0], (drawn[0].split("?")[0].rstrip("/") + "/" + "/".join(drawn[2])) if drawn[3]
                   else drawn[1]))


def _files_of(path) -> set:
    """The files an entry may create: itself, its record, its lock (its partials start with ``.``)."""
    return {path, path.with_name(path.name + ".sha256"), path.with_name(path.name + ".lock")}


@settings(max_examples=300, deadline=None)
@given(pair=_URL_PAIR)
def test_every_entry_lies_inside_the_cache_and_no_two_urls_share_one(pair, tmp_path_factory):
    first, second = pair
    directory = tmp_path_factory.getbasetemp() / "cache-property"
    entries = [entry for entry in (_entry(first, directory), _entry(second, directory)) if entry is not None]
    for normal, path in entries:
        resolved = pathlib.Path(os.path.realpath(path))
        assert pathlib.Path(os.path.realpath(directory)) in resolved.parents
        assert ".." not in path.relative_to(directory).parts and "." not in path.relative_to(directory).parts
        assert not path.name.startswith(".") and not path.name.endswith((".sha256", ".lock"))  # never bookkeeping
    if len(entries) == 2:
        (normal_a, path_a), (normal_b, path_b) = entries
        assert (normal_a == normal_b) == (path_a == path_b), (first, second)
        # no file of one entry is a directory the other needs: both can be cached, in either order
        for files, other in ((_files_of(path_a), path_b), (_files_of(path_b), path_a)):
            assert not files & set(other.parents), (first, second)


@pytest.mark.fixtures
@pytest.mark.parametrize("order", ["short first", "long first"])
def test_a_url_and_one_below_it_are_both_cached_in_either_order(server, cache, monkeypatch, order):
    """``/a`` and ``/a/b.json`` (or ``/a.json`` and ``/a.json/b.json``): neither blocks nor deletes the other."""
    paths = ["/g4/a", "/g4/a/b.json", "/g4/c.json", "/g4/c.json/d.json"]
    for path in paths:
        monkeypatch.setitem(server.files, path, f"[{path!r}]".replace("'", '"').encode())
    pairs = [paths[:2], paths[2:]]
    for short, long in pairs:
        for path in ([short, long] if order == "short first" else [long, short]):
            assert cached_file(server.url(path), progress=None).read_bytes() == server.files[path]
    for path in paths:  # each still there, unchanged
        assert cached_file(server.url(path), progress=None).read_bytes() == server.files[path]
        assert server.requests[path] == 1


def test_the_released_models_keep_their_plain_paths(tmp_path):
    """The layout change that keeps entries from nesting moves none of the released files."""
    for model in RELEASED_MODELS.values():
        for remote in model.files:
            scheme, rest = remote.url.split("://")
            assert cache_path(remote.url, tmp_path) == tmp_path.joinpath(scheme, *rest.split("/")), remote.url


def test_an_entry_resolving_outside_the_cache_through_a_symlink_is_refused(tmp_path, cache, server):
    """A symlink planted in the cache (here the server's host folder) never sends a download outside it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    url = server.url(OPTIONS)
    host_folder = cache_path(url).relative_to(cache).parts[:2]
    cache.joinpath(host_folder[0]).mkdir(parents=True)
    cache.joinpath(*host_folder).symlink_to(outside, target_is_directory=True)
    for call in (lambda: cache_path(url), lambda: cached_file(url, progress=None)):
        with pytest.raises(OutputOverwritesInputError, match=r"resolves to .*outside.* outside the cache .*remove the "
                                                             r"link") as error:
            call()
        assert "\n" not in str(error.value)
    assert list(outside.rglob("*")) == [] and server.requests[OPTIONS] == 0


# -- 3. a damaged record is an error, never a fresh start -----------------------------------------------------


@pytest.mark.fixtures
@pytest.mark.parametrize("record", [b"", b"\xff\xfe not ascii", b"abc  weights.hdf5\n", b"0" * 64 + b"  other.hdf5\n",
                                    b"0" * 64 + b"  weights.hdf5\n" * 400, "directory"])
def test_a_damaged_record_is_an_error_naming_it_and_is_not_rewritten(server, cache, record):
    url = server.url(WEIGHTS)
    path = cached_file(url, progress=None)
    path.write_bytes(b"tampered")
    sidecar = path.with_name(path.name + ".sha256")
    sidecar.unlink()
    if record == "directory":
        sidecar.mkdir()
    else:
        sidecar.write_bytes(record)
    with pytest.raises(CachedFileChangedError, match=r"weights\.hdf5\.sha256: is damaged .* delete weights\.hdf5 and "
                                                     r"weights\.hdf5\.sha256 to download"):
        cached_file(url, progress=None)
    if record != "directory":
        assert sidecar.read_bytes() == record  # not re-recorded with the tampered file's digest


def test_no_output_may_be_a_record_a_lock_a_partial_or_inside_the_cache(tmp_path, cache):
    weights = tmp_path / "w.hdf5"
    weights.write_bytes(b"w")
    for output in (f"{weights}.sha256", f"{weights}.lock", tmp_path / ".w.hdf5.download-abcd1234.tmp",
                   cache / "https" / "host" / "out.h5"):
        with pytest.raises(OutputOverwritesInputError, match="choose"):
            refuse_cache_output(output)
    refuse_cache_output(tmp_path / "out.h5")  # an ordinary output
    refuse_cache_output(tmp_path / "notes.sha256")  # no file beside it that it could guard


# -- 7. bounded downloads -------------------------------------------------------------------------------------


@pytest.mark.fixtures
def test_an_endless_body_stops_at_the_ceiling_of_its_kind(server, cache, monkeypatch):
    server.modes[OPTIONS] = ENDLESS
    started = time.monotonic()
    with pytest.raises(DownloadError, match=r"passed 1,048,576 bytes, the most a file of its kind may have"):
        cached_file(server.url(OPTIONS), progress=None)
    assert time.monotonic() - started < 20 and _leftovers(cache) == []
    monkeypatch.setattr(downloads, "DOWNLOAD_CEILINGS", ((".json", 1 << 20), ("", 3 << 20)))
    server.modes[WEIGHTS] = ENDLESS
    with pytest.raises(DownloadError, match=r"passed 3,145,728 bytes"):
        cached_file(server.url(WEIGHTS), progress=None)
    assert _leftovers(cache) == []


@pytest.mark.fixtures
@pytest.mark.parametrize("mode", [DRIP, STALL])
def test_a_dripping_or_stalled_server_is_stopped_after_the_window(server, cache, monkeypatch, mode):
    monkeypatch.setattr(downloads, "RATE_WINDOW_SECONDS", 0.6)
    monkeypatch.setattr(downloads, "MIN_BYTES_PER_WINDOW", 1000)
    server.modes[WEIGHTS] = mode
    seen = []
    started = time.monotonic()
    with pytest.raises(DownloadError, match=r"is too slow: \d+ bytes in 1? ?s?.*below the minimum of 1,000 bytes per"
                                            r" 1 s.*nothing was kept") as error:
        cached_file(server.url(WEIGHTS), progress=lambda name, done, total: seen.append(done))
    assert "\n" not in str(error.value) and time.monotonic() - started < 10
    assert _leftovers(cache) == [] and (mode == STALL or seen)  # a drip shows progress as it comes


@pytest.mark.fixtures
@pytest.mark.parametrize("mode, what", [(MANY_HEADERS, "more than 100 headers"), (LONG_HEADER, "LineTooLong"),
                                        (BAD_STATUS, "BadStatusLine")])
def test_a_malformed_response_head_is_one_line_naming_the_url(server, cache, mode, what):
    server.modes[OPTIONS] = mode
    url = server.url(OPTIONS)
    with pytest.raises(DownloadError, match=f"cannot download {url}: the server's response is malformed .*{what}"
                       ) as error:
        cached_file(url, progress=None)
    message = str(error.value)
    assert not any(character in message for character in "\r\n\x1b") and len(message) < 400
    assert not cache_path(url).exists() and _leftovers(cache) == []


@pytest.mark.fixtures
def test_a_malformed_response_head_through_the_cli_is_one_line(server, cache, tmp_path):
    server.modes[OPTIONS] = BAD_STATUS
    corpus = tmp_path / "in.txt"
    corpus.write_text("a b\n")
    run = subprocess.run([sys.executable, "-m", "elmo_keras", "embed", str(corpus), str(tmp_path / "o.h5"),
                          "--options", server.url(OPTIONS), "--weights", server.url(WEIGHTS), "--quiet"], cwd=ROOT,
                         capture_output=True, text=True, env={**os.environ}, timeout=120)
    assert run.returncode == 1 and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert "malformed" in run.stderr and server.url(OPTIONS) in run.stderr and "\x1b" not in run.stderr


@pytest.mark.fixtures
def test_response_headers_dripping_in_are_stopped_after_the_window(server, cache, monkeypatch):
    """One header line every 0.25 s never lets a 0.6 s read timeout fire; the head as a whole has one window."""
    monkeypatch.setattr(downloads, "RATE_WINDOW_SECONDS", 0.6)
    server.modes[OPTIONS] = DRIP_HEADERS
    url = server.url(OPTIONS)
    started = time.monotonic()
    with pytest.raises(DownloadError, match=f"the download of {url} is too slow: its response headers did not "
                                            r"arrive within 0.6 s.*nothing was kept") as error:
        cached_file(url, progress=None)
    assert time.monotonic() - started < 3 and "\n" not in str(error.value)
    assert not cache_path(url).exists() and _leftovers(cache) == []


@pytest.mark.fixtures
def test_a_body_larger_than_the_free_space_is_refused_before_it_is_read(server, cache, monkeypatch):
    monkeypatch.setattr(downloads.shutil, "disk_usage", lambda path: type("U", (), {"free": 100})())
    with pytest.raises(DownloadError, match="only 100 are free in the cache; free some space"):
        cached_file(server.url(WEIGHTS), progress=None)


# -- 9. partials of killed downloads ----------------------------------------------------------------------------


@pytest.mark.fixtures
def test_a_partial_left_by_a_killed_download_is_deleted_by_the_next(server, cache):
    url = server.url(WEIGHTS)
    server.modes[WEIGHTS] = HOLD_HALF_WAY
    code = f"from elmo_keras.pretrained.downloads import cached_file; cached_file({url!r}, progress=None)"
    child = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env={**os.environ})
    try:
        server.wait_for_requests(WEIGHTS, 1)
        deadline = time.monotonic() + 30
        while not stale_partials(cache_path(url)) and time.monotonic() < deadline:
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    finally:
        if child.poll() is None:
            child.kill()
    left = stale_partials(cache_path(url))
    assert len(left) == 1 and left[0].name.startswith(".weights.hdf5.download-")  # named as ours
    server.modes.clear()
    server.release.set()
    assert cached_file(url, progress=None).read_bytes() == server.files[WEIGHTS]
    assert stale_partials(cache_path(url)) == [] and _leftovers(cache) == []


# -- 11. URLs that urllib cannot take as they are, credentials, redirects, damaged copies -------------------------


@pytest.mark.fixtures
@pytest.mark.parametrize("path", ["/elmo/bilm tf/options.json", "/elmo/bilm_tf/optiöns.json"])
def test_a_space_or_a_non_ascii_letter_is_sent_percent_encoded(server, cache, path):
    with pytest.raises(DownloadError, match="HTTP 404 Not Found") as error:
        cached_file(server.url(path), progress=None)
    assert "\n" not in str(error.value)
    assert any("%20" in requested or "%C3%B6" in requested for requested in server.requests)


def test_credentials_are_refused_and_never_printed(tmp_path, cache):
    url = "http://alice:s3cr3t@127.0.0.1:9/w.hdf5"
    assert shown_url(url) == "http://***@127.0.0.1:9/w.hdf5"
    with pytest.raises(URLError, match=r"holds credentials .* download the file yourself") as error:
        cached_file(url, progress=None)
    assert "s3cr3t" not in str(error.value)
    corpus = tmp_path / "in.txt"
    corpus.write_text("a b\n")
    hidden = "http://alice:s3/cr3t@127.0.0.1:9/w.hdf5"  # a '/' in the password ends the authority where urllib looks
    run = subprocess.run([sys.executable, "-m", "elmo_keras", "embed", str(corpus), str(tmp_path / "o.h5"),
                          "--options", hidden, "--weights", url, "--quiet"], cwd=ROOT, capture_output=True,
                         text=True, env={**os.environ}, timeout=120)
    printed = run.stderr + run.stdout
    assert run.returncode != 0 and not any(secret in printed for secret in ("alice", "s3", "cr3t"))
    assert len(run.stderr.strip().splitlines()) == 1 and "***@127.0.0.1:9" in run.stderr


_SECRET_START, _SECRET_END = "topsecretstart", "topsecretend"


@pytest.mark.parametrize("separator", ["/", "#", "?", "@", ":", "/@", "?#/", "%2F"])
def test_a_password_holding_url_delimiters_is_never_printed(separator, tmp_path):
    """``/``, ``#`` and ``?`` end the authority where urllib looks, so the password ends up in the port, path, query
    or fragment: the whole of it is still masked, and urllib's own words (which quote the port) are not shown."""
    url = f"http://alice:{_SECRET_START}{separator}{_SECRET_END}@127.0.0.1:9/w.hdf5"
    messages = [shown_url(url)]
    for call in (lambda: checked_url(url), lambda: normal_url(url), lambda: cache_path(url, tmp_path),
                 lambda: cached_file(url, progress=None, directory=tmp_path)):
        with pytest.raises(URLError) as error:
            call()
        messages.append(str(error.value))
    for message in messages:
        assert _SECRET_START not in message and _SECRET_END not in message and "alice" not in message, message
        assert "\n" not in message
    assert messages[0] == "http://***@127.0.0.1:9/w.hdf5" and not any(tmp_path.iterdir())


@settings(max_examples=200, deadline=None)
@given(user=st.text("QXZJ/#?@:%", max_size=8), password=st.text("QXZJ/#?@:%", max_size=12),
       tail=st.sampled_from(["/w.hdf5", "", "/a@b/w.hdf5", "?q=1", "#f"]))
def test_shown_url_never_shows_what_precedes_the_last_at_sign(user, password, tail):
    """Whatever the user and password hold (upper-case letters here, the rest of the URL lower-case), none of it
    is shown."""
    shown = shown_url(f"https://{user}:{password}@host.example{tail}")
    assert not any(character.isupper() for character in shown), shown


@pytest.mark.fixtures
@pytest.mark.parametrize("target", ["ftp://127.0.0.1/x.json", "file:///etc/passwd"])
def test_a_redirect_off_http_is_refused_in_one_line(server, cache, target):
    server.modes[OPTIONS] = REDIRECT
    server.redirects[OPTIONS] = target
    with pytest.raises(DownloadError, match=r"(?i)redirect.*(which is not http\(s\); refused|is not allowed)") as error:
        cached_file(server.url(OPTIONS), progress=None)
    assert "\n" not in str(error.value) and "cannot be reached" not in str(error.value)


def test_a_redirect_from_https_down_to_http_is_refused():
    handler = downloads._SafeRedirects()
    request = urllib.request.Request("https://host/w.hdf5")
    with pytest.raises(DownloadError, match="a plain-http .* refused"):
        handler.redirect_request(request, None, 302, "Found", {}, "http://host/w.hdf5")


@pytest.mark.fixtures
@pytest.mark.parametrize("body", [b"<html><body>502 Bad Gateway</body></html>", b'{"char_cnn": {"embed'])
def test_a_cached_error_page_or_cut_body_says_delete_it_to_download_again(server, cache, body):
    path = cache_path(server.url(OPTIONS))
    path.parent.mkdir(parents=True)
    path.write_bytes(body)  # put there by hand, or a server that answered 200 with an error page
    cached = cached_file(server.url(OPTIONS), progress=None)
    with pytest.raises(ValueError, match="downloaded copy in the cache .* delete it and options.json.sha256"):
        ElmoOptions.load(cached)


@pytest.mark.fixtures
@pytest.mark.parametrize("kind", ["error page", "cut body"])
def test_a_damaged_cached_weights_file_says_delete_it_to_download_again(server, cache, kind):
    path = cache_path(server.url(WEIGHTS))
    path.parent.mkdir(parents=True)
    whole = server.files[WEIGHTS]
    body = b"<html><body>502 Bad Gateway</body></html>" if kind == "error page" else whole[: len(whole) // 2]
    path.write_bytes(body)  # an error page answered with 200, or a body cut short, put there by hand
    cached = cached_file(server.url(WEIGHTS), progress=None)
    with pytest.raises(WeightFileError, match=r"weights\.hdf5: .*; it is a downloaded copy in the cache .*: delete "
                                              r"it and weights\.hdf5\.sha256 to download it again$") as error:
        read_weight_file(cached)
    assert "\n" not in str(error.value)
    outside = cache.parent / "weights.hdf5"
    outside.write_bytes(body)  # the same file outside the cache: no such hint
    with pytest.raises(WeightFileError) as error:
        read_weight_file(outside)
    assert "download it again" not in str(error.value)
