"""A local HTTP server in a thread, serving the two original ELMo test models (../shared/fixtures) for the download
tests, with the faults a real download meets: a connection dropped half-way, no ``Content-Length``, a 404, and a
response held half-way until the test lets it go; and hostile ones (``modes``): endless, dripping or stalled bodies,
malformed or dripping response heads, redirects. Nothing here reaches beyond 127.0.0.1."""

from __future__ import annotations

import collections
import contextlib
import http.server
import threading
import time
from collections.abc import Iterator

import pytest

# the files served, by URL path: (model folder in ../shared/fixtures, file name there)
FIXTURE_FILES = {
    "/elmo/bilm_tf/options.json": ("elmo_bilm_tf", "options.json"),
    "/elmo/bilm_tf/weights.hdf5": ("elmo_bilm_tf", "lm_weights.hdf5"),
    "/elmo/skip/options.json": ("elmo_skip", "options.json"),
    "/elmo/skip/weights.hdf5": ("elmo_skip", "lm_weights.hdf5"),
}
NORMAL, DROP_HALF_WAY, NO_LENGTH, HOLD_HALF_WAY = "normal", "drop half-way", "no Content-Length", "hold half-way"
# hostile servers: a body that never ends (no Content-Length), one byte every DRIP_SECONDS, the headers and then
# nothing, and a redirect to ``redirects[path]``
ENDLESS, DRIP, STALL, REDIRECT = "endless", "drip", "stall", "redirect"
DRIP_SECONDS = 0.05
# hostile response heads: more headers than http.client takes (100), a header line over its 64 KiB, a status line
# that is not HTTP (with a line break and a terminal escape in it), and one header line every DRIP_HEADER_SECONDS
MANY_HEADERS, LONG_HEADER, BAD_STATUS, DRIP_HEADERS = "many headers", "long header", "bad status line", "drip headers"
BAD_STATUS_LINE = b"GARBAGE \x1b[31mnot http\r\nX-Injected: yes\r\n\r\n"
DRIP_HEADER_SECONDS = 0.25
HOLD_TIMEOUT_SECONDS = 30  # a held response is let go after this even if the test forgot to


class FixtureServer:
    """``files`` (``{url path: bytes}``) over HTTP on 127.0.0.1; ``modes[path]`` picks a fault, ``requests`` counts
    the GETs per path, ``release`` lets held responses go on."""

    def __init__(self, files: dict[str, bytes]):
        self.files = dict(files)
        self.modes: dict[str, str] = {}
        self.requests: collections.Counter = collections.Counter()
        self.release = threading.Event()
        self.redirects: dict[str, str] = {}
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (the name http.server calls)
                server.requests[self.path] += 1
                mode = server.modes.get(self.path, NORMAL)
                if mode == REDIRECT:
                    self.send_response(302)
                    self.send_header("Location", server.redirects[self.path])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = server.files.get(self.path)
                if body is None:
                    self.send_error(404, "Not Found")
                    return
                if mode in (ENDLESS, DRIP, STALL):
                    self._hostile_body(mode)
                    return
                if mode in (MANY_HEADERS, LONG_HEADER, BAD_STATUS, DRIP_HEADERS):
                    self._hostile_head(mode, body)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                if mode != NO_LENGTH:
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                half = len(body) // 2
                if mode == DROP_HALF_WAY:
                    self.wfile.write(body[:half])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                if mode == HOLD_HALF_WAY:
                    self.wfile.write(body[:half])
                    self.wfile.flush()
                    server.release.wait(HOLD_TIMEOUT_SECONDS)
                    self.wfile.write(body[half:])
                    return
                self.wfile.write(body)

            def _hostile_body(self, mode):
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.end_headers()
                deadline = time.monotonic() + HOLD_TIMEOUT_SECONDS
                try:
                    while time.monotonic() < deadline and not server.release.is_set():
                        if mode == ENDLESS:
                            self.wfile.write(b"x" * 65536)
                        elif mode == DRIP:
                            self.wfile.write(b"x")
                            self.wfile.flush()
                            time.sleep(DRIP_SECONDS)
                        else:
                            self.wfile.flush()
                            server.release.wait(0.05)
                except OSError:  # the client gave up: what it should do
                    pass
                self.close_connection = True

            def _hostile_head(self, mode, body):
                self.close_connection = True
                try:
                    if mode == BAD_STATUS:
                        self.wfile.write(BAD_STATUS_LINE)
                        return
                    self.wfile.write(b"HTTP/1.0 200 OK\r\n")
                    if mode == DRIP_HEADERS:
                        deadline = time.monotonic() + HOLD_TIMEOUT_SECONDS
                        for index in range(1000):
                            if time.monotonic() > deadline or server.release.is_set():
                                return
                            self.wfile.write(b"X-Drip-%d: x\r\n" % index)
                            self.wfile.flush()
                            time.sleep(DRIP_HEADER_SECONDS)
                        return
                    lines = ([b"X-Header-%d: x" % index for index in range(150)] if mode == MANY_HEADERS
                             else [b"X-Long: " + b"a" * 70_000])
                    self.wfile.write(b"\r\n".join([*lines, b"Content-Length: %d" % len(body), b"", body]))
                except OSError:  # the client gave up: what it should do
                    pass

            def log_message(self, *args):  # quiet
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"

    def wait_for_requests(self, path: str, count: int, timeout: float = 30.0) -> None:
        """Block until ``path`` has been requested ``count`` times (fails the test after ``timeout`` seconds)."""
        deadline = time.monotonic() + timeout
        while self.requests[path] < count:
            if time.monotonic() > deadline:
                pytest.fail(f"{path} was requested {self.requests[path]} times, expected {count}")
            time.sleep(0.01)


@contextlib.contextmanager
def serving(shared_fixtures) -> Iterator[FixtureServer]:
    """A started ``FixtureServer`` over ``FIXTURE_FILES`` (read from ``shared_fixtures``), stopped at the end."""
    files = {path: (shared_fixtures / folder / name).read_bytes() for path, (folder, name) in FIXTURE_FILES.items()}
    server = FixtureServer(files)
    server.thread.start()
    try:
        yield server
    finally:
        server.release.set()
        server.httpd.shutdown()
        server.httpd.server_close()


PROXY_VARIABLES = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY")


def isolate_downloads(monkeypatch, cache) -> None:
    """Downloads into ``cache``, online, straight to 127.0.0.1 (no proxy from the environment in between)."""
    monkeypatch.setenv("ELMO_KERAS_PRETRAINED_DIR", str(cache))
    monkeypatch.delenv("ELMO_KERAS_OFFLINE", raising=False)
    for variable in PROXY_VARIABLES:
        monkeypatch.delenv(variable, raising=False)


# -- the fixtures the download tests share (imported by name into each test module) ---------------------------


@pytest.fixture(scope="module")
def running_server(shared_fixtures):
    with serving(shared_fixtures) as running:
        yield running


@pytest.fixture
def server(running_server):
    """The fixture server with no faults, redirects or requests counted yet; held bodies let go at the end."""
    running_server.modes.clear()
    running_server.requests.clear()
    running_server.redirects.clear()
    running_server.release.clear()
    yield running_server
    running_server.release.set()


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache for this test, online, with no proxy in the way."""
    isolate_downloads(monkeypatch, tmp_path / "cache")
    return tmp_path / "cache"
