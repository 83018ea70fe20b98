"""A page module imported while another thread is half-way through importing pandas waits for pandas to finish.

Found by ``test_concurrent_imports`` in CI (1 process in 3, on PyTorch): ``elmo_keras.explorer.app.page_common``
failed with ``AttributeError: partially initialized module 'pandas' has no attribute 'Series'``. ``import
streamlit`` configures Plotly's theme, and Plotly's validators take pandas from ``sys.modules`` without importing it
(``_plotly_utils.optional_imports.get_module(..., should_load=False)``), so they read ``pandas.Series`` from a
pandas that another thread has only begun to import. ``import pandas`` first waits for that thread (the module's
import lock). Here the other thread is held inside pandas' import on purpose, so the race is certain, not lucky.
"""

import subprocess
import sys

from tests.support.paths import REPO_ROOT

REPO = REPO_ROOT

SCRIPT = """
import importlib._bootstrap as bootstrap, importlib.machinery, sys, threading, time

inside, go = threading.Event(), threading.Event()


class PausedLoader:
    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):  # runs holding this module's import lock only (and pandas')
        inside.set()
        go.wait(120)
        self.loader.exec_module(module)


class PauseInsidePandas:
    def find_spec(self, name, path=None, target=None):
        if name != "pandas.core.api" or inside.is_set():  # imported from pandas/__init__.py: pandas is half done
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        spec.loader = PausedLoader(spec.loader)
        return spec


def blocked_on(thread, name):
    locks = bootstrap._blocking_on.get(thread.ident)
    return any(getattr(lock, "name", None) == name for lock in (locks if isinstance(locks, list) else [locks]))


sys.meta_path.insert(0, PauseInsidePandas())
pandas_thread = threading.Thread(target=lambda: __import__("pandas"))
pandas_thread.start()
inside.wait(120)
errors = []


def import_page_common():
    try:
        import elmo_keras.explorer.app.page_common  # noqa: F401
    except Exception as error:
        errors.append(repr(error))


page_thread = threading.Thread(target=import_page_common)
page_thread.start()
while page_thread.is_alive() and not blocked_on(page_thread, "pandas"):
    time.sleep(0.01)
go.set()
pandas_thread.join()
page_thread.join()
print(errors or "ok")
"""


def test_a_page_module_waits_for_a_half_imported_pandas():
    run = subprocess.run([sys.executable, "-c", SCRIPT], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip() == "ok", run.stdout
