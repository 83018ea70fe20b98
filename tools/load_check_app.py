"""Load check of the explorer: N concurrent browser sessions visit every page, each in its own order.

Usage::

    python tools/load_check_app.py [--sessions 6] [--runs 1] [--mode cold|warm|both] [--models-dir DIR]
                                   [--timeout 900] [--seed S] [--out DIR]

Each run starts the explorer (``python -m elmo_keras explore``) on a free port with a fresh temporary
``ELMO_KERAS_MODELS_DIR``: empty (``cold``: the first visits install or train the first-use models while the pages'
modules are imported by the sessions and the warm-up thread at once) or a copy of a populated one (``warm``:
``--models-dir``, or with ``--mode both`` the directory the run's cold pass just filled). Then ``--sessions``
headless Chromium sessions (separate browser contexts, started together) each open the app and visit all pages in a
shuffled order of their own through the sidebar navigation, as users do, waiting for each page to finish (the visit
has begun: a script run ended, or the title or URL changed; the app is not running and nothing on the page changed
for ``QUIET_SECONDS``; no stale element is left and the navigation is drawn). It prints every visit's seconds, the
title of the page shown and the text of any exception on it (Streamlit's ``stException`` box) or error box, then the
median and maximum visit time, the number of exceptions and of visits that did not finish. The server's log is kept
in ``--out``, with a screenshot of every visit still going after ``SLOW_SECONDS`` (what it showed then is printed).
Exit status 1 if any visit showed an exception or did not finish.

Needs Playwright's Python package and a Chromium binary (``/usr/bin/chromium`` by default; Debian:
``apt-get install chromium``), as ``tools/screenshot_app.py``. Not run in CI, not a project dependency.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import pathlib
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from screenshot_app import wait_for_server  # the tool beside this one (tools/ is on sys.path when run)

REPO = pathlib.Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]
PAGES = ["", "pca", "layer_weights", "decoding", "tagging", "classification", "dialogue", "gradients",
         "corpus_training"]  # url paths; "" is the default page (context similarity)
EXCEPTION = '[data-testid="stException"]'
ALERT = '[data-testid="stAlertContainer"]'
NAVIGATION = '[data-testid="stSidebarNav"]'
MAIN = '[data-testid="stMain"]'
SLOW_SECONDS = 60.0  # a visit still going then is photographed (in --out) and what it shows is printed
QUIET_SECONDS = 2.0
# in the page: every change of the app's script state (data-test-script-state: running, notRunning, ...) as it
# happens, the number of runs seen to finish, and when the state or anything on the page last changed (a short run
# may never show "running": React draws only its end, so a visit also counts as begun when the title or URL changes)
WATCH = """
(() => {
  window.__elmoRuns = 0;
  window.__elmoChanged = performance.now();
  const watch = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app) { setTimeout(watch, 20); return; }
    window.__elmoState = app.getAttribute("data-test-script-state");
    new MutationObserver(records => {
      for (const record of records) {
        if (record.attributeName === "data-test-script-state" && record.oldValue === "running") window.__elmoRuns += 1;
      }
      const current = document.querySelector('[data-testid="stApp"]') || app;  // React may replace it
      window.__elmoState = current.getAttribute("data-test-script-state");
      window.__elmoChanged = performance.now();
    }).observe(document.body, {attributes: true, attributeOldValue: true, childList: true, subtree: true,
                               characterData: true});
  };
  watch();
})();
"""
NEW_DOCUMENT = {"runs": 0, "title": "", "path": "", "now_ms": 0.0}  # what a page opened by URL starts from
STATUS = """() => [window.__elmoState, window.__elmoRuns || 0, performance.now() - (window.__elmoChanged || 0),
                  performance.now(), (document.querySelector("h1") || {}).innerText || "", location.pathname]"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def status(page) -> dict:
    state, runs, idle_ms, now_ms, title, path = await page.evaluate(STATUS)
    return {"state": state, "runs": runs, "idle_ms": idle_ms, "now_ms": now_ms, "title": title.strip(), "path": path}


async def wait_until_done(page, started: float, before: dict, target: str, timeout: float, slow=None) -> float:
    """Seconds from ``started`` until the visit has begun (a script run finished since ``before``, or the title or
    the URL changed to ``target``), the app is not running and nothing on the page changed for ``QUIET_SECONDS``
    (later reruns, ``st.rerun`` or a page's own, start the wait again), with no stale element left and the
    navigation (or an exception) drawn. ``slow``: ``(seconds, coroutine function)``, called once with the page and
    what it is doing if the visit lasts that long."""
    while time.monotonic() - started < timeout:
        now = await status(page)
        begun = (now["runs"] > before["runs"] or (now["title"] and now["title"] != before["title"])
                 or (now["path"] == target and before["path"] != target))
        # quiet since the last change on the page, and at least since the visit started
        quiet_ms = min(now["idle_ms"], now["now_ms"] - before["now_ms"])
        if slow is not None and time.monotonic() - started >= slow[0]:
            await slow[1](page, f"script {now['state']}, {now['runs'] - before['runs']} runs finished, "
                                f"unchanged for {now['idle_ms'] / 1000:.1f} s")
            slow = None
        if begun and now["state"] == "notRunning" and quiet_ms >= 1000 * QUIET_SECONDS:
            stale = await page.locator('[data-stale="true"]').count() > 0
            # the pages' navigation is drawn once the frame has a model (not while its first launch installs one)
            drawn = await page.locator(NAVIGATION).count() > 0 or await page.locator(EXCEPTION).count() > 0
            if not stale and drawn:
                return time.monotonic() - quiet_ms / 1000 - started
        await asyncio.sleep(0.1)
    raise TimeoutError(f"not finished after {timeout:.0f} s")


async def shown_problems(page) -> tuple[list[str], list[str]]:
    """The text of every exception box and of every error box on the page."""
    exceptions = [" ".join(text.split())[:400] for text in await page.locator(EXCEPTION).all_inner_texts()]
    errors = [" ".join(text.split())[:200] for text in await page.locator(ALERT).all_inner_texts()
              if "error" in text.lower()]
    return exceptions, errors


async def open_page(page, base: str, path: str, first: bool) -> str:
    """The first visit opens the page's URL; later ones click its link in the sidebar navigation. Returns a note
    for the report: "" when it went that way."""
    if not first:
        link = page.locator(f'{NAVIGATION} a[href="{base}/{path}"]').first
        if await link.count() > 0:
            try:
                await link.click(timeout=30_000)
                return ""
            except Exception:  # noqa: BLE001  (covered or never still for 30 s: click it regardless)
                await link.click(force=True, timeout=30_000)
                return " (its link could not be clicked for 30 s: clicked regardless)"
    await page.goto(f"{base}/{path}")
    return "" if first else " (no sidebar link: opened by URL, a new session)"


async def session(browser, base: str, number: int, order: list[str], timeout: float, visits: list, label: str,
                  out: pathlib.Path) -> None:
    context = await browser.new_context(viewport={"width": 1400, "height": 900})
    await context.add_init_script(WATCH)
    page = await context.new_page()
    try:
        for step, path in enumerate(order):
            started = time.monotonic()
            record = {"session": number, "step": step, "page": path or "context_similarity", "seconds": None,
                      "exceptions": [], "errors": [], "via": "", "shown": "", "failure": None}

            async def snapshot(page, state, record=record, name=f"{label}_s{number}_step{step}"):
                """What a slow visit shows after SLOW_SECONDS: a screenshot, the page's text and script state."""
                image = out / (name.replace(" ", "_") + ".png")
                with contextlib.suppress(Exception):  # a screenshot is a clue, never a failure
                    await page.screenshot(path=str(image))
                text = " ".join((await page.locator(MAIN).all_inner_texts() or [""])[0].split())[:240]
                record["via"] += f"\n      slow: at {SLOW_SECONDS:.0f} s {state}; showing {text!r} ({image})"
            try:
                before = await status(page) if step else NEW_DOCUMENT
                record["via"] = await open_page(page, base, path, step == 0)
                if "opened by URL" in record["via"]:
                    before = NEW_DOCUMENT
                record["seconds"] = await wait_until_done(page, started, before, f"/{path}", timeout,
                                                          (SLOW_SECONDS, snapshot))
                record["exceptions"], record["errors"] = await shown_problems(page)
                titles = await page.locator("h1").all_inner_texts()
                record["shown"] = titles[0].strip() if titles else "(no title)"
            except Exception as error:  # noqa: BLE001  (a timed-out or crashed visit is reported, the rest go on)
                record["failure"] = f"{type(error).__name__}: {str(error).splitlines()[0]}"
            visits.append(record)
            seconds = "     —  " if record["seconds"] is None else f"{record['seconds']:6.1f} s"
            print(f"  session {number} step {step} {record['page']:<18} {seconds}  {record['shown']}{record['via']}"
                  + (f"\n      VISIT FAILED {record['failure']}" if record["failure"] else "")
                  + "".join(f"\n      EXCEPTION {text}" for text in record["exceptions"])
                  + "".join(f"\n      error box {text}" for text in record["errors"]), flush=True)
    finally:
        await context.close()


async def one_run(args, label: str, models_dir: pathlib.Path, rng: random.Random, log_path: pathlib.Path) -> list:
    from playwright.async_api import async_playwright

    port = free_port()
    env = dict(os.environ, ELMO_KERAS_MODELS_DIR=str(models_dir))
    command = [sys.executable, "-m", "elmo_keras", "explore", "--server.headless", "true",
               "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"]
    visits: list = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS, headless=True)
        with open(log_path, "w", encoding="utf-8") as log:
            started = time.monotonic()
            server = subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
            try:
                wait_for_server(port, server, 180)
                print(f"{label}: server up after {time.monotonic() - started:.1f} s (port {port}, models in "
                      f"{models_dir})", flush=True)
                orders = [rng.sample(PAGES, len(PAGES)) for _ in range(args.sessions)]
                await asyncio.gather(*(session(browser, f"http://127.0.0.1:{port}", number, order, args.timeout,
                                               visits, label, log_path.parent)
                                       for number, order in enumerate(orders)))
            finally:  # the server first: closing the browser may be cancelled (Ctrl-C)
                server.terminate()
                try:
                    server.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    server.kill()
                await browser.close()
    tracebacks = log_path.read_text(encoding="utf-8", errors="replace").count("Traceback (most recent call last)")
    summarise(label, visits, tracebacks)
    return visits


def summarise(label: str, visits: list, tracebacks: int | None = None) -> None:
    times = sorted(v["seconds"] for v in visits if v["seconds"] is not None)
    line = f"{label}: {len(visits)} visits"
    if times:
        line += f", median {statistics.median(times):.1f} s, max {times[-1]:.1f} s"
    line += (f", {sum(bool(v['exceptions']) for v in visits)} with an exception"
             f", {sum(bool(v['failure']) for v in visits)} not finished")
    if tracebacks is not None:
        line += f", {tracebacks} tracebacks in the server log"
    print(line, flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=6, help="concurrent browser sessions")
    parser.add_argument("--runs", type=int, default=1, help="fresh servers, one after another")
    parser.add_argument("--mode", choices=("cold", "warm", "both"), default="cold")
    parser.add_argument("--models-dir", help="a populated models directory, copied for each warm run")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds to wait for one visit")
    parser.add_argument("--seed", type=int, help="the pages' orders (default: new ones every time)")
    parser.add_argument("--out", default=str(pathlib.Path(tempfile.gettempdir()) / "elmo_keras_load_check"),
                        help="where the server logs go")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # a terminated check still stops its server
    if args.mode == "warm" and not args.models_dir:
        parser.error("--mode warm needs --models-dir (or use --mode both)")
    seed = args.seed if args.seed is not None else random.randrange(10**6)
    rng = random.Random(seed)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"{args.runs} run(s), {args.sessions} sessions, mode {args.mode}, seed {seed}", flush=True)
    results: dict[str, list] = {"cold": [], "warm": []}
    for run in range(1, args.runs + 1):
        with tempfile.TemporaryDirectory(prefix="elmo_keras_load_check_") as scratch:
            cold_dir, warm_dir = pathlib.Path(scratch) / "cold", pathlib.Path(scratch) / "warm"
            cold_dir.mkdir()
            if args.mode in ("cold", "both"):
                results["cold"] += asyncio.run(one_run(args, f"run {run} cold", cold_dir, rng,
                                                       out / f"run{run}_cold.log"))
            if args.mode in ("warm", "both"):
                shutil.copytree(args.models_dir if args.mode == "warm" else cold_dir, warm_dir)
                results["warm"] += asyncio.run(one_run(args, f"run {run} warm", warm_dir, rng,
                                                       out / f"run{run}_warm.log"))
    for mode, visits in results.items():
        if visits:
            summarise(f"all {mode} runs", visits)
    return 1 if any(v["exceptions"] or v["failure"] for visits in results.values() for v in visits) else 0


if __name__ == "__main__":
    sys.exit(main())
