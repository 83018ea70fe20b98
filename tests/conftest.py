"""Shared test configuration: quiet, deterministic, single-threaded-friendly."""

import os
import pathlib
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
# Under xdist each worker gets its share of the cores: PyTorch's OpenMP threads (and NumPy's BLAS) spin-wait, so two
# workers each running as many threads as there are cores slow each other down many times over.
if os.environ.get("PYTEST_XDIST_WORKER_COUNT"):
    os.environ.setdefault("OMP_NUM_THREADS",
                          str(max(1, (os.cpu_count() or 1) // int(os.environ["PYTEST_XDIST_WORKER_COUNT"]))))
# per-machine measurements (training_precision="auto") go to a cache of this run, not the user's home
os.environ["ELMO_KERAS_CACHE"] = tempfile.mkdtemp(prefix="elmo_keras_cache_")
# JAX compiles every new model's steps; many tests build the same tiny models, so a persistent compilation cache,
# shared by the xdist workers and kept between runs on this machine, compiles each once (keyed by the computation,
# JAX's version and flags: a hit runs the same executable). Measured: one cold run 20-35% faster, a warm one 3x.
os.environ.setdefault("JAX_COMPILATION_CACHE_DIR",
                      os.path.join(tempfile.gettempdir(), f"elmo_keras_tests_jax_cache_{os.getuid()}"))
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
# The tests' models are tiny: XLA's compile time, not the compiled code's speed, is what they wait for. Without
# LLVM's expensive passes the JAX run is ~20% faster (tests/tagging/test_taglm.py + test_vhred.py: 89 s against 113 s,
# cold
# cache); the computation is the same (every tolerance holds), only less optimised.
os.environ.setdefault("XLA_FLAGS", "--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true")

import pytest  # noqa: E402

import elmo_keras  # noqa: E402,F401  (first: it sets TF_CPP_MIN_LOG_LEVEL and the default backend before Keras loads)
from tests.support.paths import REPO_ROOT, SHARED_FIXTURES  # noqa: E402,F401

# Tests mirror the package (tests/<package>/...), and a test's folder gives its markers:
# - tests/explorer/ holds the explorer's tests (its pages, their service layer, its start-up, the notebooks): ``app``;
# - a folder named backend_independent holds tests of code that never reaches Keras (text, data readers, file
#   formats, pure-NumPy decoding, the tree itself): ``backend_independent``. They run once, in a process of their
#   own, where a test that imports Keras fails (see pytest_runtest_call).
# Anywhere else a test runs on every backend: a new test cannot leave the backend matrix by its name.
APP_FOLDER = REPO_ROOT / "tests" / "explorer"
BACKEND_INDEPENDENT_FOLDER = "backend_independent"


# modules that take a minute or more on some backend (module fixtures that train, subprocesses): handed to the xdist
# workers first, so that the run does not end with one worker finishing a long module while the other idles
LONG_MODULES = ("test_toy_senses", "test_resume_training", "test_explorer_tagging", "test_explorer_dialogue",
                "test_multitask_tagger", "test_taglm", "test_shipped_models", "test_distributed_training",
                "test_pretrained_loader", "test_training_batches", "test_crf_enumeration", "test_wheel",
                "test_transformer_training", "test_real_text_runs", "test_ray_engine", "test_notebooks",
                "test_multi_worker_training")


def pytest_collection_modifyitems(config, items):
    """Mark the tests under tests/explorer/ ``app`` and those in a backend_independent folder
    ``backend_independent``; skip the ``outcome`` tests (``tests.support.backend_support.outcome``) on the backends
    other than TensorFlow; the long modules first.

    The backend matrix runs everything else on every backend (``-m "not app and not backend_independent"``), so a
    new test runs on all three unless its folder says otherwise, and a backend_independent test that reaches Keras
    fails.
    """
    items.sort(key=lambda item: item.path.stem not in LONG_MODULES)  # stable: the long modules first, else in order
    backend = os.environ.get("KERAS_BACKEND", "tensorflow")
    for item in items:
        marker = item.get_closest_marker("outcome")
        if marker is not None and backend != "tensorflow":
            item.add_marker(pytest.mark.skip(reason=f"an outcome, checked on TensorFlow: {marker.kwargs['reason']}"))
        if item.path.is_relative_to(APP_FOLDER):
            item.add_marker(pytest.mark.app)
        if BACKEND_INDEPENDENT_FOLDER in item.path.parent.parts:
            item.add_marker(pytest.mark.backend_independent)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """A ``backend_independent`` test must not import Keras: it would then be tested on one backend only."""
    keras_before = "keras" in sys.modules
    result = yield
    if item.get_closest_marker("backend_independent") and not keras_before and "keras" in sys.modules:
        pytest.fail(f"{item.nodeid} is in a backend_independent folder but imported Keras: move its file to its "
                    "package's test folder (tests/<package>/) so that it runs on every backend")
    return result


@pytest.fixture(scope="session")
def shared_fixtures() -> pathlib.Path:
    """The two original ELMo test models; tests that need them skip where ../shared is absent."""
    if not (SHARED_FIXTURES / "elmo_bilm_tf" / "lm_weights.hdf5").exists():
        pytest.skip(f"original ELMo fixtures not found at {SHARED_FIXTURES} (they live in ../shared/fixtures)")
    return SHARED_FIXTURES


# the original bilm-tf test model (its directory, sentences and expected embeddings), and the explorer's and app
# tests' models directory with tiny trained models
from tests.support.elmo_fixture_data import expected, model_dir, sentences  # noqa: E402,F401
from tests.support.explorer_fixtures import app_env, tagging_models_dir, tiny_model, tiny_models_dir  # noqa: E402,F401
from tests.support.http_fixture_server import cache, running_server, server  # noqa: E402,F401  (the download tests')
