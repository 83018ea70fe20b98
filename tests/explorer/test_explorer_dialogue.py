"""The Dialogue page's service: tiny HRED (with and without context) and VHRED trained into the session's models
directory, replies to a context marked valid or not, the KL history, the experiment tables and findings, first-visit
training progress and a broken save."""

import shutil

import pytest

from elmo_keras.explorer.dialogue import service as dialogue
from elmo_keras.explorer.dialogue.service import (
    DialogueTraining,
    context_turns,
    dialogue_model_paths,
    discard_dialogue_models,
    example_contexts,
    experiment_findings,
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
    """``tiny_models_dir`` with the Dialogue page's models (tiny, 2 epochs: the plumbing, not quality)."""
    if dialogue_model_paths(tiny_models_dir) is None:
        dialogue.train_default_dialogue_models(tiny_models_dir, **TINY)
    return tiny_models_dir


@pytest.fixture(scope="module")
def models(dialogue_models_dir):
    return load_dialogue_models(dialogue_models_dir)


def test_replies_for_a_held_out_context_are_marked_valid_or_not(models):
    context = example_contexts()[0]
    assert context.count("|") == 2  # the longest histories come first
    view = respond(*models, context, num_samples=4, beam_size=3, seed=1)
    assert len(view.turns) == 3 and view.unknown_words == [] and len(view.references) >= 3
    assert list(view.hred["strategy"]) == ["greedy", "beam #1", "beam #2", "beam #3"]
    assert list(view.hred_last_turn["strategy"]) == ["greedy"]
    assert list(view.vhred["z sample"]) == [1, 2, 3, 4]
    for frame in (view.hred, view.hred_last_turn, view.vhred):
        assert (frame["log_prob"] <= 0).all()
        assert list(frame["valid"]) == [reply in view.references for reply in frame["reply"]]
    assert list(view.diversity.columns) == ["column", "distinct_1", "distinct_2", "unique", "valid", "coverage"]
    again = respond(*models, context, num_samples=4, beam_size=3, seed=1)
    assert again.vhred.equals(view.vhred)


def test_a_typed_context_with_unknown_words_and_bad_contexts(models):
    view = respond(*models, "I had a zebra\nany advice ?", num_samples=2)
    assert view.turns == ["i had a zebra", "any advice ?"] and view.unknown_words == ["zebra"]
    assert view.references == [] and "valid" not in view.diversity.columns
    assert list(view.vhred["valid"]) == [None, None]  # nothing to judge a context outside the corpus by
    with pytest.raises(ValueError, match="Type a dialogue history"):
        context_turns(" | \n ")
    with pytest.raises(ValueError, match="turns; the limit"):
        context_turns(" | ".join(["hi"] * 7))


def test_first_visit_training_trained_the_three_models(models):
    hred, hred_last_turn, vhred = models
    for model in models:
        losses = model.training_summary["history"]["loss"]
        assert losses[-1] < losses[0]  # 2 tiny epochs: the loss goes down
    assert type(hred).__name__ == type(hred_last_turn).__name__ == "HRED"
    assert (hred.last_turn_only, hred_last_turn.last_turn_only) == (False, True)
    assert (vhred.bow_weight, vhred.free_bits) == (dialogue.PAGE_VHRED["bow_weight"], dialogue.PAGE_VHRED["free_bits"])


def test_kl_history_and_experiment_tables(models):
    frame = kl_history(models[-1])
    assert list(frame.columns) == ["epoch", "kl_per_token", "kl_weight", "reconstruction_per_token"]
    assert list(frame["epoch"]) == [1, 2]
    diversity = {"distinct_1": {"mean": 0.1, "std": 0.01}, "coverage": {"mean": 0.3, "std": 0.0}}
    results = {"summary": {"HRED: greedy": diversity, "HRED: sampling (T=1)": diversity,
                           "VHRED plain: z samples": {"elbo_perplexity": {"mean": 1.5, "std": 0.1},
                                                      "kl_per_token": {"mean": 0.4, "std": 0.05}}},
               "kl_curves": {"no annealing": {"mean": [0.2, 0.1], "std": [0.0, 0.01]}}}
    assert experiment_table(results, ["HRED"]).to_dict("records") == [  # one greedy reply per context: no diversity
        {"method": "HRED: greedy", "distinct-1": "–", "coverage": "0.300 ± 0.000"},
        {"method": "HRED: sampling (T=1)", "distinct-1": "0.100 ± 0.010", "coverage": "0.300 ± 0.000"}]
    vhred_table = experiment_table(results, ["VHRED"])
    assert list(vhred_table.columns) == ["method", "exp(ELBO bound / token)", "KL / token (held-out)"]
    curves = experiment_kl_curves(results)
    assert list(curves["epoch"]) == [1, 2] and list(curves["kl_per_token"]) == [0.2, 0.1]


def test_the_findings_quote_the_shipped_experiments_numbers():
    results = dialogue.shipped_experiments()
    text = "\n".join(experiment_findings(results))
    summary = results["summary"]
    for method in ("HRED: greedy", "HRED, last utterance only: greedy", f"{results['shipped_vhred']}: z samples"):
        stats = summary[method]["valid"]
        assert f"{stats['mean']:.2f} ± {stats['std']:.2f}" in text
    for run, curve in results["kl_curves"].items():
        assert f"**{run}**: KL per token {curve['mean'][0]:.3f}" in text
    shipped = results["shipped_vhred"]  # both of its KL numbers, each saying what it was measured on
    held_out = summary[f"{shipped}: z samples"]["kl_per_token"]
    assert f"{results['kl_curves'][shipped]['mean'][-1]:.3f} nats per token in z over its last training epoch" in text
    assert f"({held_out['mean']:.3f} ± {held_out['std']:.3f} on the held-out dialogues" in text


def test_first_visit_training_reports_progress(monkeypatch, tmp_path):
    def fake_training(models_dir, progress, **settings):
        for step, what in enumerate(["HRED", "HRED (last utterance only)", "VHRED", "done"]):
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
