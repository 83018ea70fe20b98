"""``real_text.probe_findings.mix_findings`` and ``mix_separation``: whether the syntactic tasks' learned mixes sit
apart from the semantic task's beyond the seed spread, on made-up runs (``tests.support.real_text_fixtures``)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from elmo_keras.real_text.probe_findings import layer_preferences, mix_findings, mix_separation
from tests.support.real_text_fixtures import fake_probe_runs


def _row(values) -> SimpleNamespace:
    """A ``layer_preferences`` row of a task whose seeds' weighted mean layers are ``values``."""
    return SimpleNamespace(mean_layer=float(np.mean(values)), mean_layer_std=float(np.std(values)))


def _separation(syntactic, semantic):
    return mix_separation(_row(syntactic), _row(semantic), dict(enumerate(syntactic)), dict(enumerate(semantic)))


def test_a_difference_beyond_twice_the_larger_std_with_one_sign_in_every_seed_separates():
    assert _separation([1.0, 0.98, 0.96], [1.5, 1.48, 1.46]) == (-1, "beyond the seed spread")
    assert _separation([1.5, 1.48, 1.46], [1.0, 0.98, 0.96])[0] == 1


def test_a_difference_within_twice_the_larger_std_does_not():
    sign, reason = _separation([1.0, 1.1, 1.2], [1.1, 1.2, 1.3])  # 0.10 apart, stds 0.08: needs 0.16
    assert sign == 0 and reason == "within the seed spread: twice the larger std is 0.16"
    assert _separation([1.0, 1.0, 1.0], [1.0, 1.0, 1.0])[0] == 0  # no difference at all, no spread


def test_a_seed_on_the_other_side_keeps_the_tasks_together_however_large_the_mean_difference():
    """Nine seeds put the semantic mix at 2.0, one at 0.5; the syntactic one is 0.7 in all ten: the means are 1.15
    apart, beyond twice the larger std (0.90), but the tenth seed reverses the sign."""
    sign, reason = _separation([0.7] * 10, [2.0] * 9 + [0.5])
    assert abs(0.7 - np.mean([2.0] * 9 + [0.5])) > 2 * np.std([2.0] * 9 + [0.5])
    assert (sign, reason) == (0, "the seeds disagree on its sign")


def test_one_seed_measures_no_spread():
    assert _separation([0.5], [1.5]) == (0, "one seed: no spread measured")


def test_the_sentences_on_the_fake_runs_quote_the_numbers_either_way():
    runs = fake_probe_runs()
    lstm, transformer = mix_findings(runs)
    preferences = layer_preferences(runs).set_index(["model", "task"])
    assert lstm.startswith("LSTM: the syntactic tasks' learned mixes sit lower than the semantic task's, beyond the "
                           "seed spread — the direction Peters et al.")
    upos = preferences.loc[("treebank-lstm", "upos")]
    assert f"UPOS {upos.mean_layer:.2f} ± {upos.mean_layer_std:.2f} (-0.50: beyond the seed spread)" in lstm
    assert transformer.startswith("transformer: the syntactic tasks' learned mixes do not separate from the semantic "
                                  "task's beyond the seed spread")
    assert "over 3 seeds" in transformer and "within the seed spread: twice the larger std is 0.07" in transformer


def test_higher_and_mixed_verdicts():
    runs = fake_probe_runs()
    lstm = [run for run in runs if run["model"] == "treebank-lstm"]
    swapped = [{**run, "task": {"sense": "upos", "upos": "sense"}.get(run["task"], run["task"])} for run in lstm]
    swapped = [run for run in swapped if run["task"] in ("upos", "sense")]  # UPOS now has the sense runs' mixes
    assert "sit higher than the semantic task's, beyond the seed spread — the opposite" in mix_findings(swapped)[0]
    mixed = [run for run in lstm if run["task"] != "xpos"] + [
        {**run, "task": "xpos"} for run in lstm if run["task"] == "sense"]  # XPOS mixes as the sense ones
    assert "do not all separate from the semantic task's, on one side" in mix_findings(mixed)[0]


def test_a_model_without_a_semantic_task_gets_no_sentence():
    assert mix_findings([run for run in fake_probe_runs() if run["task"] != "sense"]) == []
