"""The Tagging page's service: the view of a typed sentence, invalid steps, the experiments' tables."""

import numpy as np
import pandas as pd
import pytest

from elmo_keras.explorer.provenance import provenance_caption
from elmo_keras.explorer.tagging import service as tagging
from elmo_keras.explorer.tagging.service import (
    experiment_tables,
    invalid_steps,
    load_tagger_model,
    tag_sentence,
    tagger_refs,
    typed_sentence_tokens,
)
from elmo_keras.tagging import allowed_transitions, is_valid_sequence


@pytest.fixture(scope="module")
def taggers(tagging_models_dir):
    refs = tagger_refs(tagging_models_dir)
    return load_tagger_model(refs[0]), load_tagger_model(refs[1])


def test_the_view_of_a_sentence(taggers):
    view = tag_sentence(*taggers, "George Washington visited the bank in Paris .", top_k=4)
    assert view.tokens == ["George", "Washington", "visited", "the", "bank", "in", "Paris", "."]
    assert list(view.multitask.columns) == ["token", "POS", "frame"] and len(view.multitask) == 8
    assert is_valid_sequence(list(view.ner["viterbi"]), "BIOES")
    assert view.top_paths["tags"].iloc[0] == " ".join(view.ner["viterbi"])  # the best path is Viterbi's
    probabilities = view.top_paths["probability"].to_numpy()
    assert len(probabilities) == 4 and (np.diff(probabilities) <= 1e-9).all() and probabilities.sum() <= 1 + 1e-6
    np.testing.assert_allclose(view.marginals.to_numpy().sum(axis=1), 1.0, atol=1e-5)
    assert list(view.marginals.columns) == view.labels and list(view.marginals.index) == view.tokens
    forbidden = ~view.allowed
    assert forbidden.any() and np.isnan(view.transitions.to_numpy()[forbidden]).all()
    assert np.isfinite(view.transitions.to_numpy()[view.allowed]).all()


def test_invalid_steps_mark_the_token_a_forbidden_step_enters():
    labels = ["O", "B-LOC", "I-LOC", "E-LOC", "S-LOC"]
    allowed, start, end = allowed_transitions("BIOES", labels)
    ids = [labels.index(tag) for tag in ["E-LOC", "O", "B-LOC", "S-LOC", "B-LOC"]]
    # E-LOC cannot start; B-LOC → S-LOC is forbidden; B-LOC cannot end the sentence
    assert invalid_steps(ids, allowed, start, end) == [True, False, False, True, True]


def test_sentences_are_checked():
    assert typed_sentence_tokens("Is the bank open?") == ["Is", "the", "bank", "open", "?"]
    with pytest.raises(ValueError, match="Type a sentence to tag."):
        typed_sentence_tokens("  ")
    with pytest.raises(ValueError, match="the limit is 30"):
        typed_sentence_tokens("a " * 31)


def test_experiment_tables_give_mean_and_std_per_condition_in_order():
    results = {name: [{"condition": c, "seed": s, "accuracy": a, "label_f1": a, "span_f1": a,
                       "invalid_sentences": 2 * a, "invalid_transitions": 3 * a}
                      for c, values in (("base", (0.5, 0.7)), ("method", (0.8, 0.8))) for s, a in enumerate(values)]
               for name in ("multitask", "taglm", "crf")}
    tables = experiment_tables(results)
    table = tables["multitask"]
    assert list(table["condition"]) == ["base", "method"]
    assert table["label_f1 mean"].tolist() == pytest.approx([0.6, 0.8])
    assert table["label_f1 std"].tolist() == pytest.approx([np.std([0.5, 0.7], ddof=1), 0.0])
    assert tables["crf"]["invalid_transitions mean"].tolist() == pytest.approx([1.8, 2.4])
    assert isinstance(tables["taglm"], pd.DataFrame)


def test_the_findings_and_the_tables_quote_the_charted_numbers():
    results = tagging.shipped_experiments()
    tables = experiment_tables(results)
    text = "\n".join(tagging.experiment_findings(results))
    crf = tagging.experiment_display_table(tables["crf"], tagging.EXPERIMENT_SCORES["crf"])
    assert list(crf.columns) == ["condition", "invalid sentences", "span F1", "invalid transitions"]  # charted first
    mean, std = tables["crf"].loc[0, ["invalid_sentences mean", "invalid_sentences std"]]
    assert crf["invalid sentences"][0] == f"{mean:.1f} ± {std:.1f}"  # a count: one decimal
    assert f"softmax {crf['invalid sentences'][0]}" in text
    frames = tagging.experiment_display_table(tables["multitask"], tagging.EXPERIMENT_SCORES["multitask"])
    assert list(frames.columns)[:2] == ["condition", "label F1"]
    assert all(value in text for value in frames["label F1"])
    assert tagging.mean_std(0.5, float("nan")) == "0.500"  # one seed: no spread


def test_the_shipped_experiments_say_how_and_with_what_they_were_made():
    results = tagging.shipped_experiments()
    assert f"over {len(results['seeds'])} seeds" in tagging.experiments_caption(results)
    assert results["machine"] in tagging.experiments_caption(results)
    provenance, caption = results["provenance"], provenance_caption(results)
    assert caption.startswith(f"Made with elmo_keras {provenance['package_version']}")
    assert provenance["optimizer"] in caption and provenance["made_on"] in caption


def test_a_failed_background_training_keeps_its_error(tmp_path, monkeypatch):
    def failing(models_dir, progress=None, **settings):
        progress(1, "multi-task POS + frame tagger")
        raise MemoryError("out of memory")

    monkeypatch.setattr(tagging, "train_default_taggers", failing)
    job = tagging.TaggerTraining(tmp_path)
    assert job.wait(10) and isinstance(job.error, MemoryError) and job.result is None
    assert job.fraction == pytest.approx(1 / 3)
    assert job.status() == "First use: training the multi-task POS + frame tagger (2/3)…"


def test_a_view_is_kept_on_disk_exactly_and_read_back_without_the_taggers(taggers, tagging_models_dir, tmp_path):
    import shutil

    from elmo_keras.explorer.model_store import TAGGER_DIR_NAME, TAGLM_DIR_NAME
    from elmo_keras.explorer.tagging.store import computed_tagging_view, stored_tagging_view

    for name in (TAGGER_DIR_NAME, TAGLM_DIR_NAME):
        shutil.copytree(tagging_models_dir / name, tmp_path / name)
    refs = tagger_refs(tmp_path)
    text = "George Washington visited the bank in Paris ."
    assert stored_tagging_view(refs, text, 3) is None
    computed = computed_tagging_view(*taggers, refs, text, 3)
    stored = stored_tagging_view(refs, text, 3)
    for name in ("multitask", "ner", "top_paths", "marginals", "transitions"):
        pd.testing.assert_frame_equal(getattr(stored, name), getattr(computed, name), check_dtype=False,
                                      check_exact=True)
    assert stored.tokens == computed.tokens and stored.labels == computed.labels
    np.testing.assert_array_equal(stored.allowed, computed.allowed)
    assert stored_tagging_view(refs, text, 4) is None  # another top-k, another result
    for path in (tmp_path / ".results").rglob("*.json"):
        path.write_text("[]", encoding="utf-8")
    assert stored_tagging_view(refs, text, 3) is None  # a file of another shape: computed again


def test_the_shipped_taggers_come_with_the_example_sentences_views(tmp_path):
    from elmo_keras.explorer.tagging.service import DEFAULT_TOP_K, example_sentences, ready_tagger_refs
    from elmo_keras.explorer.tagging.store import stored_tagging_view

    refs = ready_tagger_refs(tmp_path)
    for sentence in example_sentences():
        view = stored_tagging_view(refs, sentence, DEFAULT_TOP_K)
        assert view is not None, f"run tools/build_shipped_models.py --results-only ({sentence!r} missing)"
        assert view.tokens == typed_sentence_tokens(sentence)
