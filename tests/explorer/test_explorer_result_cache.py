"""Results kept beside the models: computed once, keyed by the model's content and the inputs, recomputed when the
stored file is damaged, never needing a writable directory; the layer-weights report round-trips exactly."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from elmo_keras.explorer.corpus import builtin_corpus
from elmo_keras.explorer.layer_weights import store as layer_weights_store
from elmo_keras.explorer.model_store import find_model, load_model
from elmo_keras.explorer.result_cache import cached_result, model_digest, result_path
from tests.support.explorer_fixtures import TINY_NAME


def test_a_result_is_computed_once_and_a_damaged_one_again(tmp_path):
    calls = []
    path = tmp_path / ".results" / "kind" / "key.json"

    def compute():
        calls.append(1)
        return {"value": 0.1 + 0.2}

    assert cached_result(path, compute) == {"value": 0.1 + 0.2}
    assert cached_result(path, compute) == {"value": 0.1 + 0.2} and len(calls) == 1  # read back exactly
    path.write_text("{damaged", encoding="utf-8")
    assert cached_result(path, compute)["value"] == 0.1 + 0.2 and len(calls) == 2
    assert json.loads(path.read_text(encoding="utf-8")) == {"value": 0.1 + 0.2}  # rewritten whole
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    assert cached_result(blocked / "kind" / "key.json", compute)["value"] == 0.1 + 0.2  # nowhere to keep it


def test_the_key_follows_the_model_content_and_the_inputs(tiny_models_dir, tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    shutil.copytree(tiny_models_dir / TINY_NAME, first)
    shutil.copytree(tiny_models_dir / TINY_NAME, second)
    assert model_digest(first) == model_digest(second)  # a copy reuses the results of its original
    assert result_path(tmp_path, "k", first, {"seed": 0}) == result_path(tmp_path, "k", second, {"seed": 0})
    assert result_path(tmp_path, "k", first, {"seed": 0}) != result_path(tmp_path, "k", first, {"seed": 1})
    (second / "vocabulary.json").write_text((second / "vocabulary.json").read_text() + " ", encoding="utf-8")
    assert model_digest(first) != model_digest(second)  # a model saved again gets its own results


def test_the_layer_weights_report_is_stored_and_read_back_exactly(tiny_models_dir, tmp_path, monkeypatch):
    models = tmp_path / "models"
    shutil.copytree(tiny_models_dir, models)
    ref = find_model(models, TINY_NAME).ref
    model = load_model(ref)
    corpus = builtin_corpus().iloc[::3].reset_index(drop=True)
    computed = layer_weights_store.stored_layer_weight_report(model, ref, corpus, seed=0)
    monkeypatch.setattr(layer_weights_store, "layer_weight_report",
                        lambda *args: pytest.fail("a stored report is not computed again"))
    stored = layer_weights_store.stored_layer_weight_report(model, ref, corpus, seed=0)
    assert stored.findings == computed.findings and stored.skipped == computed.skipped
    for ours, theirs in zip(stored.reports, computed.reports):
        assert ours.name == theirs.name and ours.heldout_accuracy == theirs.heldout_accuracy
        for field in ("layer_logits", "test_labels", "probe_accuracies"):
            np.testing.assert_array_equal(getattr(ours, field), getattr(theirs, field))
            assert getattr(ours, field).dtype == getattr(theirs, field).dtype
        np.testing.assert_array_equal(ours.head.kernel, theirs.head.kernel)
        assert ours.head.gamma == theirs.head.gamma
