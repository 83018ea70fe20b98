"""Shared test configuration: quiet, deterministic, single-threaded-friendly."""

import os
import pathlib
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
# per-machine measurements (training_precision="auto") go to a cache of this run, not the user's home
os.environ["ELMO_KERAS_CACHE"] = tempfile.mkdtemp(prefix="elmo_keras_cache_")

import pytest  # noqa: E402

import elmo_keras  # noqa: E402,F401  (first: TensorFlow's first import, by any test module, stays quiet)

REPO_ROOT = pathlib.Path(__file__).resolve().parents[1]
SHARED_FIXTURES = REPO_ROOT.parent / "shared" / "fixtures"


# the explorer's tests: its pages, their service layer (elmo_keras.explorer), its start-up and the notebooks
APP_TEST_FILES = ("test_app_", "test_explorer_", "test_light_start", "test_notebooks")


def pytest_collection_modifyitems(config, items):
    """Mark the explorer's tests ``app``: the backend matrix runs the library tests (``-m "not app"``)."""
    for item in items:
        if item.path.name.startswith(APP_TEST_FILES):
            item.add_marker(pytest.mark.app)


@pytest.fixture(scope="session")
def shared_fixtures() -> pathlib.Path:
    """The two original ELMo test models; tests that need them skip where ../shared is absent."""
    if not (SHARED_FIXTURES / "elmo_bilm_tf" / "lm_weights.hdf5").exists():
        pytest.skip(f"original ELMo fixtures not found at {SHARED_FIXTURES} (they live in ../shared/fixtures)")
    return SHARED_FIXTURES


# the original bilm-tf test model (its directory, sentences and expected embeddings), and the explorer's and app
# tests' models directory with tiny trained models
from tests.elmo_fixture_data import expected, model_dir, sentences  # noqa: E402,F401
from tests.explorer_fixtures import app_env, tagging_models_dir, tiny_model, tiny_models_dir  # noqa: E402,F401
