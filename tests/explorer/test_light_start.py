"""The explorer's first page opens without Keras or TensorFlow: ``import elmo_keras`` is lazy, the app frame and
the first page import only light modules, the context-similarity view is kept on disk (and shipped for the toy
biLM), and the warm-up imports the rest in the background. TensorFlow's first import stays quiet whoever makes it.
"""

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from elmo_keras.explorer.corpus import builtin_corpus
from elmo_keras.explorer.model_store import DEFAULT_MODEL_NAME, find_model
from elmo_keras.explorer.projection.store import computed_pca_view, stored_pca_view
from elmo_keras.explorer.shipped_models import install_shipped_model
from elmo_keras.explorer.similarity.service import context_similarity
from elmo_keras.explorer.similarity.store import computed_context_similarity, stored_context_similarity
from elmo_keras.explorer.similarity.view import DEFAULT_PER_SENSE, view_from_json, view_to_json
from elmo_keras.explorer.warm_up import PAGE_MODULES, import_in_background
from tests.support.explorer_fixtures import TINY_NAME
from tests.support.paths import REPO_ROOT

REPO = REPO_ROOT
FIRST_PAGE_MODULES = [  # what the frame, page_common and the context_similarity page import (explorer/app/)
    "streamlit", "elmo_keras", "elmo_keras.explorer.state", "elmo_keras.explorer.corpus",
    "elmo_keras.explorer.model_store", "elmo_keras.explorer.shipped_models", "elmo_keras.explorer.training",
    "elmo_keras.explorer.first_use", "elmo_keras.explorer.app", "elmo_keras.explorer.app.page_common",
    "elmo_keras.explorer.warm_up", "elmo_keras.explorer.charts", "elmo_keras.explorer.similarity.store",
    "elmo_keras.explorer.similarity.view", "elmo_keras.explorer.projection.store",
    "elmo_keras.explorer.projection.view",
]


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)


def test_the_first_page_imports_neither_keras_nor_tensorflow():
    done = _run("import sys\n" + "".join(f"import {name}\n" for name in FIRST_PAGE_MODULES)
                + "print(sorted(m for m in ('keras', 'tensorflow', 'jax', 'torch', 'sklearn') if m in sys.modules))")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "[]", done.stdout


def test_package_names_are_imported_on_first_use_and_tensorflow_stays_quiet():
    done = _run("import sys, elmo_keras\n"
                "print('keras' in sys.modules)\n"
                "print(elmo_keras.BiLM.__name__, elmo_keras.analysis.__name__, elmo_keras.models.train_bilm.__name__)\n"
                "print('keras' in sys.modules, 'BiLM' in dir(elmo_keras))\n"
                "import tensorflow\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["False", "BiLM elmo_keras.analysis train_bilm", "True True"]
    assert "oneDNN" not in done.stderr and "cuda" not in done.stderr.lower(), done.stderr
    missing = _run("import elmo_keras\nelmo_keras.no_such_name")
    assert "module 'elmo_keras' has no attribute 'no_such_name'" in missing.stderr


def test_a_view_round_trips_through_json_exactly(tiny_model):
    view = context_similarity(tiny_model, builtin_corpus(), "bank", "The bank was closed.\nno word here", 4)
    back = view_from_json(json.loads(json.dumps(view_to_json(view))))
    np.testing.assert_array_equal(back.matrices, view.matrices)
    assert back.matrices.dtype == view.matrices.dtype
    pd.testing.assert_frame_equal(back.summary, view.summary, check_dtype=False)
    for field in ("word", "senses", "labels", "sentences", "blocks", "total", "labelled", "constant_layers",
                  "rejected_typed", "findings", "summary_note"):
        assert getattr(back, field) == getattr(view, field), field


def test_a_computed_view_is_kept_and_read_back_without_the_model(tiny_models_dir, tmp_path, tiny_model):
    import shutil

    shutil.copytree(tiny_models_dir / TINY_NAME, tmp_path / TINY_NAME)
    ref, corpus = find_model(tmp_path, TINY_NAME).ref, builtin_corpus()
    assert stored_context_similarity(ref, corpus, "play", "", 6) is None
    computed = computed_context_similarity(tiny_model, ref, corpus, "play", "", 6)
    stored = stored_context_similarity(ref, corpus, "play", "", 6)
    np.testing.assert_array_equal(stored.matrices, computed.matrices)
    assert stored_context_similarity(ref, corpus, "play", "", 7) is None  # other inputs, another result
    for path in (tmp_path / ".results").rglob("*.json"):
        path.write_text("{not json", encoding="utf-8")
    assert stored_context_similarity(ref, corpus, "play", "", 6) is None  # unreadable: computed again
    with pytest.raises(ValueError, match="does not occur|no occurrence|not found"):
        computed_context_similarity(tiny_model, ref, corpus, "zzzz", "", 6)


def test_the_shipped_toy_comes_with_its_default_views(tmp_path):
    assert install_shipped_model(tmp_path, DEFAULT_MODEL_NAME)
    ref = find_model(tmp_path, DEFAULT_MODEL_NAME).ref
    for word in ("bank", "play", "right"):
        view = stored_context_similarity(ref, builtin_corpus(), word, "", DEFAULT_PER_SENSE)
        assert view is not None, f"run tools/build_shipped_models.py --results-only ({word!r} missing)"
        assert view.word == word and view.num_layers == 3
        projection = stored_pca_view(ref, builtin_corpus(), word, "", 2)
        assert projection is not None and projection.word == word and projection.num_layers == 3


def test_a_pca_view_is_kept_exactly_and_read_back_without_the_model(tiny_models_dir, tmp_path, tiny_model):
    import shutil

    shutil.copytree(tiny_models_dir / TINY_NAME, tmp_path / TINY_NAME)
    ref, corpus = find_model(tmp_path, TINY_NAME).ref, builtin_corpus()
    assert stored_pca_view(ref, corpus, "right", "Turn right here.", 3) is None
    computed = computed_pca_view(tiny_model, ref, corpus, "right", "Turn right here.", 3)
    stored = stored_pca_view(ref, corpus, "right", "Turn right here.", 3)
    pd.testing.assert_frame_equal(stored.points, computed.points, check_dtype=False, check_exact=True)
    pd.testing.assert_frame_equal(stored.variance, computed.variance, check_dtype=False, check_exact=True)
    for field in ("word", "n_components", "senses_in_order", "collapsed_layers", "rejected_typed", "unknown_note"):
        assert getattr(stored, field) == getattr(computed, field), field
    assert stored_pca_view(ref, corpus, "right", "Turn right here.", 2) is None


def test_the_warm_up_imports_every_page_module_once():
    thread = import_in_background(delay=0.0)
    assert import_in_background() is thread  # once per process
    thread.join(timeout=120)
    assert not thread.is_alive()
    assert all(name in sys.modules for name in PAGE_MODULES)
