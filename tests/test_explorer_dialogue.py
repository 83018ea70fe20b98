"""The Dialogue page's service: tiny HRED and VHRED trained into the session's models directory, replies to a
context, the KL history, the experiment tables, first-visit training progress and a broken save."""

import shutil

import pytest

from elmo_keras.explorer.dialogue import service as dialogue
from elmo_keras.explorer.dialogue.service import (
    DialogueTraining,
    context_turns,
    dialogue_model_paths,
    discard_dialogue_models,
    example_contexts,
    experiment_kl_curves,
    experiment_table,
    kl_history,
    load_dialogue_models,
    respond,
)

TINY = {"epochs": 2, "embedding_dim": 8, "utterance_units": 8, "context_units": 8, "decoder_units": 8,
        "latent_dim": 4, "latent_hidden": 8}


@pytest.fixture(scope="session")
def dialogue_models_dir(tiny_models_dir):
    """``tiny_models_dir`` with the Dialogue page's HRED and VHRED (tiny, 2 epochs: the plumbing, not quality)."""
    if dialogue_model_paths(tiny_models_dir) is None:
        dialogue.train_default_dialogue_models(tiny_models_dir, **TINY)
    return tiny_models_dir


@pytest.fixture(scope="module")
def models(dialogue_models_dir):
    return load_dialogue_models(dialogue_models_dir)


def test_replies_for_a_held_out_context(models):
    hred, vhred = models
    context = example_contexts()[0]
    assert context.count("|") == 2  # the longest histories come first
    view = respond(hred, vhred, context, num_samples=4, beam_size=3, seed=1)
    assert len(view.turns) == 3 and view.unknown_words == [] and len(view.references) >= 3
    assert list(view.hred["strategy"]) == ["greedy", "beam #1", "beam #2", "beam #3"]
    assert list(view.vhred["z sample"]) == [1, 2, 3, 4]
    assert (view.hred["log_prob"] <= 0).all() and (view.vhred["log_prob"] <= 0).all()
    assert list(view.diversity.columns) == ["column", "distinct_1", "distinct_2", "unique", "valid", "coverage"]
    again = respond(hred, vhred, context, num_samples=4, beam_size=3, seed=1)
    assert again.vhred.equals(view.vhred)


def test_a_typed_context_with_unknown_words_and_bad_contexts(models):
    hred, vhred = models
    view = respond(hred, vhred, "I had a zebra\nany advice ?", num_samples=2)
    assert view.turns == ["i had a zebra", "any advice ?"] and view.unknown_words == ["zebra"]
    assert view.references == [] and "valid" not in view.diversity.columns
    with pytest.raises(ValueError, match="Type a dialogue history"):
        context_turns(" | \n ")
    with pytest.raises(ValueError, match="turns; the limit"):
        context_turns(" | ".join(["hi"] * 7))


def test_first_visit_training_trained_both_models(models):
    hred, vhred = models
    for model in models:
        losses = model.training_summary["history"]["loss"]
        assert losses[-1] < losses[0]  # 2 tiny epochs: the loss goes down
    assert type(hred).__name__ == "HRED"
    assert vhred.config.kl_annealing_steps == dialogue.PAGE_VHRED["kl_annealing_steps"]


def test_kl_history_and_experiment_tables(models):
    frame = kl_history(models[1])
    assert list(frame.columns) == ["epoch", "kl_per_token", "kl_weight", "reconstruction_per_token"]
    assert list(frame["epoch"]) == [1, 2]
    results = {"summary": {"HRED greedy": {"distinct_1": {"mean": 0.1, "std": 0.01}}},
               "kl_curves": {"no annealing": {"mean": [0.2, 0.1], "std": [0.0, 0.01]}}}
    assert experiment_table(results).to_dict("records") == [{"method": "HRED greedy", "distinct_1": "0.100 ± 0.010"}]
    curves = experiment_kl_curves(results)
    assert list(curves["epoch"]) == [1, 2] and list(curves["kl_per_token"]) == [0.2, 0.1]


def test_first_visit_training_reports_progress(monkeypatch, tmp_path):
    def fake_training(models_dir, progress, **settings):
        for step, what in enumerate(["HRED", "VHRED", "done"]):
            progress(step, what)
        return settings

    monkeypatch.setattr(dialogue, "train_default_dialogue_models", fake_training)
    job = DialogueTraining(tmp_path, seed=5)
    assert job.wait(10) and job.error is None and job.result == {"seed": 5}
    assert job.fraction == 1.0 and job.status() == "Saving the dialogue models…"


def test_a_broken_save_is_reported_and_can_be_discarded(dialogue_models_dir, tmp_path):
    copy = tmp_path / "models"
    shutil.copytree(dialogue.dialogue_dir(dialogue_models_dir), dialogue.dialogue_dir(copy))
    (dialogue.dialogue_dir(copy) / "vhred" / "model.keras").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="corrupted"):
        load_dialogue_models(copy)
    discard_dialogue_models(copy)
    assert dialogue_model_paths(copy) is None


def test_a_users_model_under_the_reserved_name_is_neither_replaced_nor_deleted(tmp_path):
    from elmo_keras.explorer.dialogue.service import (
        dialogue_dir,
        discard_dialogue_models,
        train_default_dialogue_models,
    )

    user_model = dialogue_dir(tmp_path)
    user_model.mkdir()
    (user_model / "model.keras").write_bytes(b"a biLM saved before the name was reserved")
    with pytest.raises(ValueError, match="rename that directory"):
        train_default_dialogue_models(tmp_path)
    with pytest.raises(ValueError, match="rename that directory"):
        discard_dialogue_models(tmp_path)
    assert (user_model / "model.keras").is_file()
