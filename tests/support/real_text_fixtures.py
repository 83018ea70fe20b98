"""Fake result files of ``tools/run_real_text_experiments.py`` for the explorer's tests: the layout of
``real_text_probes.json`` and ``real_text_tagging.json`` (``real_text.probing.probe_runs``,
``real_text.tagging_curve.learning_curve``) with made-up numbers, small and fixed.

The numbers are chosen so that the computed findings go both ways: in the LSTM the syntactic tasks peak at layer 1
and their mixes sit lower than the word-sense mix beyond the seed spread; in the transformer neither the best
layers nor the mixes separate. ``packaged_results_from(directory)`` stands in for
``data.packaged_results.packaged_results`` (monkeypatched where a service reads the packaged files).
"""

from __future__ import annotations

import json
import pathlib

PROBES_FILE, TAGGING_FILE = "real_text_probes.json", "real_text_tagging.json"
SEEDS = (0, 1, 2)
TASKS = ("upos", "xpos", "deprel", "sense")
MAJORITY = {"upos": 0.17, "xpos": 0.13, "deprel": 0.16, "sense": 0.25}
NUM_TEST = {"upos": 25_147, "xpos": 25_147, "deprel": 25_147, "sense": 72}
NUM_CLASSES = {"upos": 17, "xpos": 50, "deprel": 51, "sense": 6}
# per model and kind: probe accuracy by layer, and the mix's weights by layer (seed 0; later seeds shift them a little)
ACCURACIES = {
    ("treebank-lstm", "syntactic"): [0.86, 0.95, 0.92],
    ("treebank-lstm", "semantic"): [0.40, 0.70, 0.80],
    ("treebank-transformer", "syntactic"): [0.84, 0.90, 0.93, 0.930, 0.92],
    ("treebank-transformer", "semantic"): [0.40, 0.66, 0.70, 0.700, 0.69],
}
WEIGHTS = {
    ("treebank-lstm", "syntactic"): [0.20, 0.60, 0.20],
    ("treebank-lstm", "semantic"): [0.10, 0.30, 0.60],
    ("treebank-transformer", "syntactic"): [0.20, 0.20, 0.20, 0.20, 0.20],
    ("treebank-transformer", "semantic"): [0.20, 0.20, 0.20, 0.20, 0.20],
}
PROVENANCE = {"package_version": "0.1.0", "optimizer": "DenseGradientAdam", "backend": "tensorflow 2.21.0",
              "code_fingerprint": "000000000000", "made_on": "2026-12-08", "git_commit": "abcdef0123456789",
              "git_dirty": False, "machine": "Fake CPU"}
FRACTIONS = {0.01: 125, 0.1: 1_254, 1.0: 12_544}
CURVE_ACCURACY = {"words only": [0.70, 0.86, 0.92], "treebank-lstm": [0.80, 0.90, 0.935],
                  "treebank-transformer": [0.78, 0.89, 0.93]}


def _weights(base: list[float], seed: int, task: str) -> list[float]:
    """``base`` with a little weight moved from the last layer to the first (by seed; transformer tasks differ)."""
    shift = 0.01 * seed + (0.005 * TASKS.index(task) if base == [0.20] * 5 else 0.0)
    weights = list(base)
    weights[0] += shift
    weights[-1] -= shift
    return [round(w, 6) for w in weights]


def fake_probe_runs(seeds=SEEDS) -> list[dict]:
    """One run per treebank biLM, task and seed, as ``real_text.probing.probe_runs`` returns them."""
    runs = []
    for model in ("treebank-lstm", "treebank-transformer"):
        for task in TASKS:
            kind = "semantic" if task == "sense" else "syntactic"
            for seed in seeds:
                accuracies = [a + 0.002 * seed - 0.01 * TASKS.index(task) for a in ACCURACIES[(model, kind)]]
                accuracies[-2] += 0.004 * (seed - 1)  # the seeds disagree on the order of the transformer's 2 and 3
                accuracies = [round(a, 6) for a in accuracies]
                runs.append({
                    "model": model, "task": task, "seed": seed, "probe_accuracies": accuracies,
                    "mix_weights": _weights(WEIGHTS[(model, kind)], seed, task), "gamma": 1.5 + 0.1 * seed,
                    "mix_accuracy": round(max(accuracies) + 0.005, 6), "majority_accuracy": MAJORITY[task],
                    "num_train": 33_000 if kind == "syntactic" else 216, "num_test": NUM_TEST[task],
                    "num_classes": NUM_CLASSES[task],
                })
    return runs


def fake_probe_results(seeds=SEEDS) -> dict:
    """The whole ``real_text_probes.json``; its stored findings are a marker the pages must not prefer to the runs."""
    perplexities = {name: {"biLM": {"forward_perplexity": forward, "backward_perplexity": forward + 2.0},
                           "kneser_ney_trigram": {"forward_perplexity": 154.9, "backward_perplexity": 155.1},
                           "add_one_unigram": {"forward_perplexity": 409.3}, "vocabulary_size": 9_876,
                           "epochs": epochs, "build_seconds": 1234.5}
                    for name, forward, epochs in (("treebank-lstm", 98.7, 10), ("treebank-transformer", 110.2, 12))}
    return {"perplexities": perplexities, "runs": fake_probe_runs(seeds), "seeds": list(seeds),
            "settings": {"pool_sentences": 4_000, "train_sentences": 2_000}, "data": "UD English EWT v2.15 (fake)",
            "license": "CC BY-SA 4.0 (fake)", "findings": ["STORED FINDING"], "machine": "Fake CPU", "seconds": 2_400,
            "provenance": dict(PROVENANCE)}


def fake_curve_runs(seeds=SEEDS) -> list[dict]:
    """Every run of the UPOS learning curve, as ``real_text.tagging_curve.learning_curve`` returns them."""
    runs = []
    for input_name, accuracies in CURVE_ACCURACY.items():
        for head, offset in (("softmax", 0.0), ("crf", 0.004)):
            for (fraction, sentences), accuracy in zip(FRACTIONS.items(), accuracies):
                for seed in seeds:
                    runs.append({"input": input_name, "head": head, "fraction": fraction, "sentences": sentences,
                                 "seed": seed, "epochs": {0.01: 40, 0.1: 6, 1.0: 2}[fraction],
                                 "accuracy": round(accuracy + offset + 0.003 * seed, 6), "seconds": 12.5})
    return runs


def fake_tagging_results(seeds=SEEDS) -> dict:
    """The whole ``real_text_tagging.json``."""
    return {"runs": fake_curve_runs(seeds), "seeds": list(seeds), "fractions": list(FRACTIONS),
            "epochs": {"0.01": 40, "0.1": 6, "1.0": 2}, "tagger": {"word_dim": 64, "units": 64},
            "data": "UD English EWT v2.15 (fake)", "license": "CC BY-SA 4.0 (fake)", "findings": ["STORED FINDING"],
            "machine": "Fake CPU", "seconds": 3_000, "provenance": dict(PROVENANCE)}


def write_fake_results(directory: pathlib.Path) -> pathlib.Path:
    """Write both fake files into ``directory`` (never the package's data folder) and return it."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, results in ((PROBES_FILE, fake_probe_results()), (TAGGING_FILE, fake_tagging_results())):
        (directory / name).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return directory


def packaged_results_from(directory: pathlib.Path):
    """A stand-in for ``packaged_results(file_name)`` that reads ``directory`` (None where it holds no such file)."""

    def read(file_name: str) -> dict | None:
        path = directory / file_name
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None

    return read
