"""The wheel holds every data file the package reads: the toy corpora, the experiment records and every shipped
model (a non-editable install must open the explorer on them as a clone does, not train or fail). Builds the wheel
with ``pip wheel`` (build isolation, as ``pip install`` builds it) from a copy of the tree without ``build/`` and
``*.egg-info``: setuptools reuses their file lists, so a stale one would hide a file the configuration misses."""

import pathlib
import shutil
import subprocess
import sys
import zipfile

from tests.conftest import REPO_ROOT

DATA = REPO_ROOT / "elmo_keras" / "data"


def test_the_wheel_holds_every_data_file_and_shipped_model(tmp_path):
    source = tmp_path / "source"
    shutil.copytree(REPO_ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "venv", ".hypothesis", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
        ".ruff_cache"))
    command = [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-q", "-w", str(tmp_path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    (wheel,) = tmp_path.glob("elmo_keras-*.whl")
    packaged = set(zipfile.ZipFile(wheel).namelist())
    expected = {path.relative_to(REPO_ROOT).as_posix() for path in DATA.rglob("*")
                if path.is_file() and "__pycache__" not in path.parts}
    missing = sorted(expected - packaged)
    assert not missing, f"{len(missing)} data files are not in the wheel (pyproject.toml package-data): {missing[:10]}"
    assert any(name.startswith("elmo_keras/data/shipped_models/classifiers-toy/cnn/") for name in packaged)
    assert pathlib.Path(wheel).stat().st_size < 50e6
