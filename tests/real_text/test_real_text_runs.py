"""``real_text.probing.probe_runs`` and ``real_text.tagging_curve`` on small slices of the shipped treebank with a
tiny biLM (TensorFlow only: the layers' backend parity is tested elsewhere; these test the experiment's logic), and
``probe_findings``/``curve_findings`` on made-up runs whose answers are known."""

from __future__ import annotations

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.real_text.probe_findings import layer_preferences, probe_findings, probe_summary
from elmo_keras.real_text.tagging_curve import WORDS_ONLY, curve_findings, curve_table, training_sample

tensorflow_only = pytest.mark.skipif(keras.backend.backend() != "tensorflow",
                                     reason="the experiment's logic, once; the layers' backend parity is tested "
                                            "elsewhere")


@pytest.fixture(scope="module")
def tiny_treebank_bilm():
    from elmo_keras.data.treebank import treebank_sentences
    from elmo_keras.models import train_bilm

    return train_bilm(treebank_sentences("train", 120), size="tiny", epochs=1, seed=0, min_count=2)


@tensorflow_only
def test_probe_runs_give_one_row_per_task_and_seed_with_every_layer(tiny_treebank_bilm):
    runs = probe_runs_small(tiny_treebank_bilm)
    assert [(run["task"], run["seed"]) for run in runs] == [("upos", 0), ("upos", 1), ("sense", 0), ("sense", 1)]
    for run in runs:
        assert len(run["probe_accuracies"]) == len(run["mix_weights"]) == 3  # layer 0 + 2 LSTM layers
        assert abs(sum(run["mix_weights"]) - 1) < 1e-5 and 0 <= run["mix_accuracy"] <= 1
    upos = [run for run in runs if run["task"] == "upos"]
    from elmo_keras.data.treebank import treebank_sentences

    assert upos[0]["num_test"] == sum(map(len, treebank_sentences("dev", 30)))  # every token of 30 dev sentences
    assert upos[0]["num_train"] != upos[1]["num_train"]  # each seed draws its own sample of sentences
    assert runs[-1]["num_test"] == 72  # the toy corpus' held-out target words
    # the same seed gives the same run: deterministic
    assert probe_runs_small(tiny_treebank_bilm, tasks=["upos"], seeds=(0,)) == [upos[0]]


def probe_runs_small(model, tasks=("upos", "sense"), seeds=(0, 1)):
    from elmo_keras.real_text.probing import probe_runs

    return probe_runs(model, "tiny", seeds=seeds, tasks=list(tasks), pool=50, sample=25, dev_limit=30)


def test_an_unknown_probe_task_is_one_line_naming_it():
    from elmo_keras.real_text.probing import probe_runs

    with pytest.raises(ValueError, match=r"^unknown probe task\(s\) \['pos'\]; choose from"):
        probe_runs(None, "m", tasks=["pos"])


def _run(task, seed, accuracies, weights=(0.2, 0.3, 0.5), num_test=5000):
    return {"model": "treebank-lstm", "task": task, "seed": seed, "probe_accuracies": list(accuracies),
            "mix_weights": list(weights), "gamma": 1.0, "mix_accuracy": max(accuracies), "majority_accuracy": 0.1,
            "num_train": 100, "num_test": num_test, "num_classes": 17}


def test_a_layer_is_preferred_beyond_the_spread_only_when_every_seed_ranks_it_first():
    clear = [_run("upos", s, (0.80, 0.90 + 0.001 * s, 0.85)) for s in range(3)]
    mixed = [_run("xpos", s, (0.80, 0.90, 0.89 + 0.02 * (s == 1))) for s in range(3)]  # seed 1 prefers layer 2
    preferences = layer_preferences(clear + mixed).set_index("task")
    assert preferences.loc["upos", "best_layer"] == 1 and preferences.loc["upos", "separated"]
    assert not preferences.loc["xpos", "separated"]
    summary = probe_summary(clear)
    assert list(summary.layer) == [0, 1, 2] and summary["mean"].iloc[1] == pytest.approx(0.901)


def test_the_findings_state_the_direction_the_numbers_show():
    runs = ([_run(task, s, (0.5, 0.9, 0.8)) for task in ("upos", "xpos", "deprel") for s in range(3)]
            + [_run("sense", s, (0.3, 0.5, 0.7), num_test=72) for s in range(3)])
    lines = probe_findings(runs)
    assert lines[0].startswith("UPOS (LSTM): layer 1 is best (90.0%; layer 2: 80.0%), beyond the seed spread")
    assert "with 72 held-out examples, differences under about ±" in lines[3]
    assert lines[-1] == ("LSTM: the syntactic tasks' best layers (UPOS 1, Penn XPOS 1, dependency relation 1) are "
                         "lower than the semantic task's, the pattern Peters et al. (2018a §5.3; 2018b) report "
                         "(word sense: layer 2).")
    same = [run | {"probe_accuracies": [0.3, 0.9, 0.5]} if run["task"] == "sense" else run for run in runs]
    assert "the semantic task's own: these runs do not show the layered pattern" in probe_findings(same)[-1]


def test_the_training_samples_are_drawn_per_seed_and_all_of_train_at_one():
    one_percent = training_sample(0.01, 0)
    assert len(one_percent) == 125 and one_percent != training_sample(0.01, 1)
    assert one_percent == training_sample(0.01, 0)
    assert len(training_sample(1.0, 0)) == 12_544
    with pytest.raises(ValueError, match=r"^fraction must be in \(0, 1\], received 0"):
        training_sample(0, 0)


def test_the_curve_table_and_findings_pair_each_seed_with_its_baseline():
    runs = []
    for fraction, gain in ((0.01, 0.10), (0.1, 0.04), (1.0, 0.01)):
        for seed in range(3):
            base = 0.6 + fraction * 0.3 + 0.01 * seed
            runs.append({"input": WORDS_ONLY, "head": "crf", "fraction": fraction, "sentences": 1, "seed": seed,
                         "accuracy": base})
            runs.append({"input": "treebank-lstm", "head": "crf", "fraction": fraction, "sentences": 1, "seed": seed,
                         "accuracy": base + gain})
    table = curve_table(runs)
    assert len(table) == 6 and set(table.seeds) == {3}
    assert np.allclose(table[table.input == "treebank-lstm"]["mean"] - table[table.input == WORDS_ONLY]["mean"].values,
                       [0.10, 0.04, 0.01])
    (line,) = curve_findings(runs)
    assert line == ("crf head, + treebank-lstm vectors vs words only: 1%: +10.0 ± 0.0 points; 10%: +4.0 ± 0.0 points; "
                    "100%: +1.0 ± 0.0 points (the gain shrinks as labelled data grows, as TagLM reports).")


# one learning-curve run (curve_run) end to end: notebooks/real_english.ipynb, run by tests/explorer/test_notebooks.py
