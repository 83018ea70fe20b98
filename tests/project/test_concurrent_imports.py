"""Importing the package is safe from many threads at once (issue #25, item 8).

Eight threads each import every module of the package, in an order of their own, in a fresh process (nothing
imported beforehand, not even ``elmo_keras``), and a few such processes run. Before the fix, 5 of 6 such processes
failed: ``_DeadlockError`` in our import locks and Keras', ``ImportError: cannot import name ...`` from a
half-initialised module, ``ModuleNotFoundError`` for a module that exists.

What makes it safe, checked without threads: Python imports a package before its module while holding that
module's import lock, so no package may import (through any chain) one of its own modules when imported; with
an edge from every module to its package, the graph of imports made at import time (lazy names resolved to the
module defining them) has no cycle, and two threads never wait for each other.
"""

import ast
import importlib
import random
import subprocess
import sys

from elmo_keras import _lazy
from tests.project.backend_independent.test_import_structure import STREAMLIT_SCRIPTS, _module_name, _modules
from tests.support.import_cycles import import_cycles
from tests.support.paths import REPO_ROOT

REPO = REPO_ROOT
PROCESSES = 3
THREADS = 8

WORKER = """
import importlib, importlib.util, os, pathlib, random, sys, threading

root = pathlib.Path({root!r})
names = []
for path in sorted((root / "elmo_keras").rglob("*.py")):
    parts = path.relative_to(root).with_suffix("").parts
    parts = parts[:-1] if parts[-1] == "__init__" else parts
    if parts[-1] != "__main__" and ".".join(parts) not in {scripts!r}:  # Streamlit runs the explorer's scripts
        names.append(".".join(parts))
failures, start = [], threading.Barrier({threads})


def import_all(seed):
    order = random.Random(seed).sample(names, len(names))
    start.wait()
    for name in order:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as error:  # a missing optional dependency is not a race; a missing module is
            top = (error.name or "").partition(".")[0]
            if top == "elmo_keras" or importlib.util.find_spec(top) is not None:
                failures.append(f"{{name}}: {{type(error).__name__}}: {{error}}")
        except BaseException as error:  # noqa: BLE001  (_DeadlockError is a RuntimeError; report them all)
            failures.append(f"{{name}}: {{type(error).__name__}}: {{error}}")


threads = [threading.Thread(target=import_all, args=({seed} * 100 + i,)) for i in range({threads})]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join(240)
hung = sum(thread.is_alive() for thread in threads)
print(f"{{len(names)}} modules, {{len(failures)}} failures, {{hung}} threads hung")
print("\\n".join(failures[:20]))
sys.stdout.flush()
os._exit(1 if failures or hung else 0)  # a hung thread must not keep the process alive
"""


def test_eight_threads_import_every_module_in_their_own_order():
    # the processes run side by side (each one is mostly one thread at a time, under the interpreter lock)
    seeds = [random.randrange(10**6) for _ in range(PROCESSES)]  # new orders every run; a failure names its seed
    scripts = sorted(_module_name(path) for path in STREAMLIT_SCRIPTS)
    runs = [subprocess.Popen([sys.executable, "-c", WORKER.format(root=str(REPO), threads=THREADS, seed=seed,
                                                                  scripts=scripts)],
                             cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for seed in seeds]
    reports = []
    for seed, run in zip(seeds, runs):
        out, err = run.communicate(timeout=540)
        reports.append((seed, run.returncode, out, err[-1500:]))
    failed = [report for report in reports if report[1] != 0]
    assert not failed, "\n\n".join(f"seed {seed}, exit {code}:\n{out}\n{err}" for seed, code, out, err in failed)


def _import_time_graph() -> dict[str, set[str]]:
    """Each module's imports made when it is imported, lazy package names resolved, plus an edge to its package (the
    explorer's Streamlit scripts are run, never imported)."""
    modules = {name: path for name, path in _modules().items() if path not in STREAMLIT_SCRIPTS}
    exports = {"elmo_keras": importlib.import_module("elmo_keras")._EXPORTS}
    for name, path in modules.items():
        if path.name == "__init__.py":
            importlib.import_module(name)  # cheap: a package imports none of its modules
    exports.update(_lazy._EXPORTS)
    graph = {name: {name.rpartition(".")[0]} - {""} for name in modules}
    for name, path in modules.items():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:  # module level (TYPE_CHECKING is not)
            if isinstance(node, ast.Import):
                graph[name].update(alias.name for alias in node.names if alias.name in modules)
            elif isinstance(node, ast.ImportFrom) and node.module in modules:
                graph[name].add(node.module)
                for alias in node.names:
                    target = f"{node.module}.{alias.name}"
                    lazy = exports.get(node.module, {}).get(alias.name)
                    graph[name].update({target} & set(modules) | ({lazy[0]} if lazy else set()))
    return graph


def test_no_module_waits_for_itself_through_its_package():
    cycles = import_cycles(_import_time_graph())
    assert not cycles, cycles[:5]
