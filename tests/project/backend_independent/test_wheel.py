"""The wheel works alone: it holds every file the package reads (the toy corpora, the experiment records, every
shipped model, the explorer's scripts), its metadata names every distribution the package imports, and installed
into a fresh virtual environment with no source tree beside it, it embeds (``python -m elmo_keras embed``), trains
(``train_bilm``), renders the explorer's frame and serves the explorer (``elmo-keras explore``).

The wheel is built once for the module with ``pip wheel`` (build isolation, as ``pip install`` builds it) from a copy
of the tree without ``build/`` and ``*.egg-info``: setuptools reuses their file lists, so a stale one would hide a
file the configuration misses. The fresh environment gets the wheel from pip, then this interpreter's
site-packages for the dependencies (nothing to download) through a ``.pth`` line: a directory added that way has
its own ``.pth`` files ignored, so the editable install of ``elmo_keras`` there (a ``.pth`` hook) cannot leak in,
which every check confirms from ``elmo_keras.__file__``. The embedding runs beside the training. The module takes
32 s of CPU (2-core EPYC): building the wheel, then mostly importing TensorFlow and tracing the graphs in the
embedding and training processes; 124 s of wall time on that machine while shared (load 11-13).
"""

from __future__ import annotations

import ast
import json
import os
import pathlib
import re
import shutil
import site
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile

import pytest

from tests.support.paths import REPO_ROOT, SHARED_FIXTURES

DATA = REPO_ROOT / "elmo_keras" / "data"
EXPLORER_SCRIPTS = REPO_ROOT / "elmo_keras" / "explorer" / "app"
OPTIONAL_BACKENDS = {"jax", "torch"}  # KERAS_BACKEND=jax / torch: installed by whoever chooses them
TIMEOUT = 300


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> pathlib.Path:
    build = tmp_path_factory.mktemp("wheel")
    source = build / "source"
    shutil.copytree(REPO_ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "venv", ".hypothesis", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
        ".ruff_cache"))
    command = [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-q", "-w", str(build)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    (built,) = build.glob("elmo_keras-*.whl")
    return built


def test_the_wheel_holds_every_data_file_shipped_model_and_explorer_script(wheel):
    packaged = set(zipfile.ZipFile(wheel).namelist())
    repository_only = ("treebank-lstm", "treebank-transformer")  # too large for the wheel (pyproject.toml)
    expected = {path.relative_to(REPO_ROOT).as_posix() for folder in (DATA, EXPLORER_SCRIPTS)
                for path in folder.rglob("*") if path.is_file() and "__pycache__" not in path.parts
                and not set(repository_only) & set(path.parts)}
    missing = sorted(expected - packaged)
    assert not missing, f"{len(missing)} files are not in the wheel (pyproject.toml package-data): {missing[:10]}"
    assert any(name.startswith("elmo_keras/data/shipped_models/classifiers-toy/cnn/") for name in packaged)
    assert "elmo_keras/explorer/app/.streamlit/config.toml" in packaged
    assert not [name for name in packaged if any(f"/{model}/" in name for model in repository_only)]
    assert any(name.startswith("elmo_keras/data/ud_english_ewt/en_ewt-ud-train") for name in packaged)
    assert wheel.stat().st_size < 25e6, f"the wheel is {wheel.stat().st_size / 1e6:.1f} MB"


def _requirements(metadata: str) -> dict[str, set[str]]:
    """``{distribution: {"" or the extra it is in}}`` from a wheel's METADATA (``Requires-Dist`` lines)."""
    found: dict[str, set[str]] = {}
    for line in metadata.splitlines():
        if line.startswith("Requires-Dist:"):
            name = re.match(r"[A-Za-z0-9._-]+", line.split(":", 1)[1].strip()).group(0)
            extra = re.search(r"""extra\s*==\s*["']([^"']+)["']""", line)
            found.setdefault(_normalized(name), set()).add(extra.group(1) if extra else "")
    return found


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _third_party_imports(archive: zipfile.ZipFile) -> set[str]:
    """The top-level modules outside the standard library that the wheel's code imports anywhere."""
    modules = set()
    for name in archive.namelist():
        if not name.endswith(".py"):
            continue
        for node in ast.walk(ast.parse(archive.read(name))):
            if isinstance(node, ast.Import):
                modules.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules.add(node.module.split(".")[0])
    return {module for module in modules if module not in sys.stdlib_module_names} - {"elmo_keras", "__future__"}


def test_the_metadata_names_every_distribution_the_package_imports(wheel):
    """A module imported only where an optional feature runs belongs to an extra; the explorer's to ``app``."""
    from importlib.metadata import packages_distributions

    with zipfile.ZipFile(wheel) as archive:
        (metadata_name,) = [name for name in archive.namelist() if name.endswith(".dist-info/METADATA")]
        required = _requirements(archive.read(metadata_name).decode("utf-8"))
        imported = _third_party_imports(archive) - OPTIONAL_BACKENDS
    distributions = packages_distributions()
    missing = {module: distributions.get(module, [module]) for module in sorted(imported)
               if not any(_normalized(name) in required for name in distributions.get(module, [module]))}
    assert not missing, f"imported but not in the wheel's Requires-Dist (pyproject.toml dependencies): {missing}"
    assert {"tensorflow", "keras", "numpy"} <= {name for name, extras in required.items() if "" in extras}
    assert "app" in required["streamlit"] and "app" in required["plotly"] and "" not in required["streamlit"]


# -- the wheel installed alone ----------------------------------------------------------------------------------
FIXTURE_MODEL = SHARED_FIXTURES / "elmo_bilm_tf"
SENTENCES = "the bank of the river .\nI play the game .\n"


class Installed:
    """A virtual environment holding the wheel, and how to run its Python and its commands without a source tree."""

    def __init__(self, root: pathlib.Path, wheel: pathlib.Path):
        self.root, self.work = root, root / "work"
        self.venv = root / "venv"
        self.bin = self.venv / ("Scripts" if os.name == "nt" else "bin")
        self.python = self.bin / ("python.exe" if os.name == "nt" else "python")
        self.work.mkdir()
        self.env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
        self.env.update(PYTHONNOUSERSITE="1", HOME=str(root / "home"), ELMO_KERAS_MODELS_DIR=str(root / "models"))
        self.command([sys.executable, "-m", "venv", "--without-pip", str(self.venv)])
        # this pip installs into the new environment before it sees any other site-packages
        self.command([sys.executable, "-m", "pip", "--python", str(self.python), "install", "--no-deps", "--no-index",
                      "-q", str(wheel)])
        site_packages = self.run("import sysconfig; print(sysconfig.get_path('purelib'))").stdout.strip()
        dependencies = "\n".join(site.getsitepackages())  # path lines: their .pth files (the editable hook) stay off
        pathlib.Path(site_packages, "test-dependencies.pth").write_text(dependencies + "\n", encoding="utf-8")

    def run(self, code: str) -> subprocess.CompletedProcess:
        return self.command([str(self.python), "-c", code])

    def command(self, argv: list[str]) -> subprocess.CompletedProcess:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT, cwd=self.work, env=self.env)
        assert done.returncode == 0, (argv, done.stdout[-2000:], done.stderr[-3000:])
        return done

    def start(self, argv: list[str], log: pathlib.Path) -> subprocess.Popen:
        with log.open("w", encoding="utf-8") as output:  # the child keeps its own handle
            return subprocess.Popen(argv, cwd=self.work, env=self.env, stdout=output, stderr=subprocess.STDOUT)

    def assert_imports_the_wheel(self, files: list[str]) -> None:
        """Every ``elmo_keras`` module a process loaded came from the environment, none from the source tree."""
        outside = [file for file in files if not pathlib.Path(file).resolve().is_relative_to(self.venv.resolve())]
        assert files and not outside, outside


PROVENANCE = """
import json, sys
print(json.dumps(sorted({getattr(m, '__file__', None) or '' for n, m in list(sys.modules.items())
                         if n == 'elmo_keras' or n.startswith(('elmo_keras.', '__editable__'))})))
"""


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory):
    """The wheel installed alone; the command-line embedding (where the fixture model exists) starts at once in the
    background, beside the training test, and ``test_..._embeds_...`` waits for it."""
    environment = Installed(tmp_path_factory.mktemp("installed"), wheel)
    environment.embedding = None
    if (FIXTURE_MODEL / "lm_weights.hdf5").exists():
        (environment.work / "sentences.txt").write_text(SENTENCES, encoding="utf-8")
        environment.embedding = environment.start(
            [str(environment.python), "-m", "elmo_keras", "embed", "sentences.txt", "vectors.hdf5", "--quiet",
             "--options", str(FIXTURE_MODEL / "options.json"), "--weights", str(FIXTURE_MODEL / "lm_weights.hdf5")],
            environment.root / "embed.log")
    yield environment
    if environment.embedding is not None and environment.embedding.poll() is None:
        environment.embedding.kill()
        environment.embedding.wait()


def test_the_installed_wheel_trains_a_biLM_and_renders_the_explorer_frame(installed):
    done = installed.run(
        "from elmo_keras.models import train_bilm\n"
        "model = train_bilm(size='tiny', epochs=1)\n"
        "print(len(model.vocabulary) > 10, model.config.units)\n"
        "from streamlit.testing.v1 import AppTest\n"
        "from elmo_keras.explorer.app import MAIN_SCRIPT\n"
        "at = AppTest.from_file(str(MAIN_SCRIPT), default_timeout=120).run()\n"
        "print([e.message for e in at.exception], at.title[0].value)\n" + PROVENANCE)
    trained, frame, files = done.stdout.strip().splitlines()[-3:]
    assert trained == "True 16"  # the tiny preset, on the corpus shipped in the wheel
    assert frame == "[] Context similarity"  # the first page, on the shipped toy biLM installed on first launch
    installed.assert_imports_the_wheel(json.loads(files))


def test_the_installed_wheel_embeds_with_the_command_line(installed, shared_fixtures):
    assert installed.embedding.wait(timeout=TIMEOUT) == 0, (installed.root / "embed.log").read_text(encoding="utf-8")
    done = installed.run("import h5py, elmo_keras\n"
                         "with h5py.File('vectors.hdf5', 'r') as f: print(sorted(f), list(f['0'].shape))\n"
                         "print(elmo_keras.__file__)")
    vectors, package = done.stdout.strip().splitlines()[-2:]
    assert vectors == "['0', '1', 'sentence_to_index'] [3, 6, 32]"  # 3 layers × 6 tokens × 2 × projection_dim 16
    installed.assert_imports_the_wheel([package])


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("localhost", 0))
        return probe.getsockname()[1]


def _status(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status
    except (urllib.error.URLError, OSError):
        return None


def test_elmo_keras_explore_serves_the_explorer_from_the_installed_wheel(installed):
    port, log = _free_port(), installed.root / "explore.log"
    server = installed.start([str(installed.bin / "elmo-keras"), "explore", "--server.headless", "true",
                              "--server.port", str(port)], log)
    try:
        base, deadline = f"http://localhost:{port}", time.monotonic() + 120
        while _status(f"{base}/_stcore/health") != 200 and server.poll() is None and time.monotonic() < deadline:
            time.sleep(0.25)
        assert _status(f"{base}/_stcore/health") == 200, log.read_text(encoding="utf-8")[-3000:]
        assert _status(f"{base}/") == 200
    finally:
        server.terminate()  # Streamlit stops its server on SIGTERM
        try:
            status = server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            raise
    text = log.read_text(encoding="utf-8")
    assert status == 0, text[-3000:]
    assert "Network URL" not in text, text  # the shipped .streamlit/config.toml keeps it on localhost
    files = installed.run("import elmo_keras.cli.explore as e\nprint(e.__file__)\nprint(e.MAIN_SCRIPT)")
    installed.assert_imports_the_wheel(files.stdout.strip().splitlines()[-2:])
