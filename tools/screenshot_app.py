"""Open every page of the explorer in headless Chromium and save full-page PNG screenshots.

Usage::

    python tools/screenshot_app.py [--port 8599] [--out screenshots] [--models-dir DIR] [--timeout 900]

Starts ``python -m elmo_keras explore --server.headless true --server.port PORT`` (the explorer shipped in the
package, with ``ELMO_KERAS_MODELS_DIR`` set when ``--models-dir`` is given), waits for the server, then for each
page waits until the app has stopped running and its Plotly charts are drawn, and saves ``OUT/NN_<page>.png``.
Chromium is started before the app, as a user's browser is already running. It prints the seconds from server start
to the first page's charts (cold: includes first-launch training when the models directory is empty) and from a
reload to the charts (warm), and every error or warning box it finds. Exit status 1 if a page shows an exception or
an error box.

Needs Playwright's Python package and a Chromium binary (``/usr/bin/chromium`` by default; Debian:
``apt-get install chromium``). Not run in CI, not a project dependency.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import time
import urllib.request

REPO = pathlib.Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
# (url path, expected Plotly charts when the page is complete); "" is the default page (context similarity)
PAGES = [("", 2), ("pca", 1), ("layer_weights", 7), ("decoding", 2), ("tagging", 6), ("classification", 4),
         ("dialogue", 2), ("gradients", 5), ("corpus_training", 1), ("contextualizers", 2), ("probing", 4)]
RUNNING = '[data-testid="stStatusWidgetRunningIcon"]'
QUIET_SECONDS = 2.0
VIEWPORT = {"width": 1500, "height": 1000}


def wait_for_server(port: int, process: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited with status {process.returncode}")
        try:
            with urllib.request.urlopen(f"http://localhost:{port}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise TimeoutError(f"streamlit did not answer on port {port} within {timeout:.0f} s")


def wait_until_done(page, charts: int, timeout: float) -> float:
    """Wait until the script stopped running for QUIET_SECONDS and ``charts`` Plotly plots exist; return seconds."""
    started = time.monotonic()
    quiet_since = None
    while time.monotonic() - started < timeout:
        running = page.locator(RUNNING).count() > 0
        drawn = page.locator(".js-plotly-plot").count()
        failed = page.locator('[data-testid="stException"]').count() > 0
        if running or (drawn < charts and not failed):
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since >= QUIET_SECONDS:
            return quiet_since - started
        page.wait_for_timeout(200)
    raise TimeoutError(f"page still running or missing charts after {timeout:.0f} s")


def boxes(page) -> list[str]:
    """Text of every exception and alert box on the page."""
    found = []
    for selector, kind in (('[data-testid="stException"]', "EXCEPTION"), ('[data-testid="stAlertContainer"]', "alert")):
        for i in range(page.locator(selector).count()):
            found.append(f"{kind}: {page.locator(selector).nth(i).inner_text()[:300]!r}")
    return found


def screenshot(page, path: pathlib.Path) -> None:
    """Grow the viewport to the page's content height (Streamlit scrolls inside a container), then shoot."""
    height = page.evaluate("""() => {
        const main = document.querySelector('[data-testid="stMain"]') || document.body;
        return Math.max(main.scrollHeight, document.body.scrollHeight);
    }""")
    page.set_viewport_size({"width": VIEWPORT["width"], "height": int(min(max(height + 40, 800), 12000))})
    page.wait_for_timeout(1200)  # Plotly re-lays out to the new size
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size(VIEWPORT)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8599)
    parser.add_argument("--out", default=str(REPO / "screenshots"))
    parser.add_argument("--models-dir", help="sets ELMO_KERAS_MODELS_DIR for the app")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds to wait for one page")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--pages", nargs="+", help="only these pages (url paths) after the first, context_similarity, "
                        "which always opens first: a new session that opens another page's URL is shown the first")
    args = parser.parse_args(argv)
    pages = [(path, charts) for path, charts in PAGES
             if not args.pages or not path or path in args.pages]

    from playwright.sync_api import sync_playwright

    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    if args.models_dir:
        env["ELMO_KERAS_MODELS_DIR"] = args.models_dir
    command = [sys.executable, "-m", "elmo_keras", "explore", "--server.headless", "true",
               "--server.port", str(args.port), "--browser.gatherUsageStats", "false"]
    log = open(out / "streamlit.log", "w", encoding="utf-8")
    problems = 0
    with sync_playwright() as playwright:
        # the browser is up before the app starts, as a user's is: the times below are the app's, not Chromium's
        browser = playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport=VIEWPORT)
        started = time.monotonic()
        server = subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_for_server(args.port, server, 120)
            print(f"server up after {time.monotonic() - started:.1f} s")
            for number, (path, charts) in enumerate(pages):
                opened = time.monotonic()
                page.goto(f"http://localhost:{args.port}/{path}")
                seconds = wait_until_done(page, charts, args.timeout)
                if number == 0:  # complete = when the page went quiet, not after the quiet period
                    print(f"cold: first page complete {opened + seconds - started:.1f} s after the server started")
                    page.reload()
                    warm = wait_until_done(page, charts, args.timeout)
                    print(f"warm: first page complete {warm:.1f} s after a reload")
                name = path or "context_similarity"
                target = out / f"{number:02d}_{name}.png"
                screenshot(page, target)
                found = boxes(page)
                drawn = page.locator(".js-plotly-plot").count()
                print(f"{name}: {seconds:.1f} s, {drawn} Plotly charts -> {target}")
                for line in found:
                    print("   ", line)
                problems += sum(line.startswith("EXCEPTION") or "Error" in line for line in found)
        finally:
            browser.close()
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
            log.close()
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
