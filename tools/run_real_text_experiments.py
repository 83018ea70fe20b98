"""Run the real-English experiments (``elmo_keras.real_text``) on the shipped treebank biLMs and write the result
files the README, docs and the explorer's Probing, Layer weights and Tagging pages show.

Usage::

    python tools/run_real_text_experiments.py [--probes-only | --tagging-only] [--seeds 0 1 2] [--models NAME ...]
    python tools/run_real_text_experiments.py --merge PART.json PART.json --output-file FILE.json

``--models`` runs the experiments for some of the biLMs only (e.g. one while the other is still being built),
``--heads`` and ``--no-words-only`` a part of the learning curve; ``--merge`` joins such parts, made with the same
seeds from commits whose experiment code is the same (``EXPERIMENT_CODE`` of their kind), into the file the pages
read (runs, perplexities and seconds added up, each part's provenance kept, findings recomputed).

- ``elmo_keras/data/real_text_probes.json`` (``--probes-only``): the dev perplexities of ``treebank-lstm`` and
  ``treebank-transformer`` beside an interpolated Kneser–Ney trigram and an add-one unigram on the same
  vocabulary and sentences; then, per biLM, task (UPOS, XPOS, dependency relation, toy word sense) and seed, the
  held-out accuracy of a linear probe on each layer and ELMo's learned layer mix (``real_text.probing``).
- ``elmo_keras/data/real_text_tagging.json`` (``--tagging-only``): the UPOS learning curve, words only vs. + each
  biLM's vectors, softmax and CRF heads, 1 / 10 / 100 % of train, scored on test (``real_text.tagging_curve``).

Both record the seeds, the machine, the seconds and the provenance (``models.provenance``: run from a clean
checkout so that the commit names the code). Deterministic for the same seeds on the same machine.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from elmo_keras.data.treebank import TREEBANK_ATTRIBUTION, TREEBANK_VERSION, treebank_sentences  # noqa: E402
from elmo_keras.models.provenance import cpu_name, experiment_provenance  # noqa: E402
from elmo_keras.real_text.bilms import TREEBANK_BILMS, load_treebank_bilm  # noqa: E402
from elmo_keras.real_text.probe_findings import probe_findings, probe_summary  # noqa: E402
from elmo_keras.real_text.probing import PROBE_POOL_SENTENCES, PROBE_SEEDS, PROBE_TRAIN_SENTENCES, probe_runs  # noqa: E402
from elmo_keras.real_text.tagging_curve import (  # noqa: E402
    CURVE_EPOCHS,
    CURVE_FRACTIONS,
    CURVE_HEADS,
    CURVE_SEEDS,
    TAGGER_SETTINGS,
    curve_findings,
    curve_table,
    learning_curve,
)

DATA = REPO / "elmo_keras" / "data"
PROBES_FILE, TAGGING_FILE = "real_text_probes.json", "real_text_tagging.json"


def perplexity_table(models: dict) -> dict:
    """Dev perplexities of each biLM (from its training summary) and of the count baselines on its vocabulary."""
    from elmo_keras.models.bilm.evaluation import unigram_perplexity
    from elmo_keras.real_text.kneser_ney import kneser_ney_perplexities

    train, dev = treebank_sentences("train"), treebank_sentences("dev")
    rows = {}
    for name, model in models.items():
        rows[name] = {"biLM": model.training_summary["heldout"],
                      "kneser_ney_trigram": kneser_ney_perplexities(train, dev, model.vocabulary, order=3),
                      "add_one_unigram": {"forward_perplexity": unigram_perplexity(train, dev, model.vocabulary)},
                      "vocabulary_size": len(model.vocabulary),
                      "epochs": model.config.epochs, "build_seconds": model.training_summary.get("build_seconds")}
    return rows


def run_probes(models: dict, seeds, log) -> dict:
    started = time.perf_counter()
    perplexities = perplexity_table(models)
    for name, row in perplexities.items():
        log(f"{name}: dev perplexity {row['biLM']} vs Kneser-Ney trigram {row['kneser_ney_trigram']}")
    runs = []
    for name, model in models.items():
        runs += probe_runs(model, name, seeds=seeds, progress=log)
    return {"perplexities": perplexities, "runs": runs, "seeds": list(seeds),
            "settings": {"pool_sentences": PROBE_POOL_SENTENCES, "train_sentences": PROBE_TRAIN_SENTENCES},
            "data": TREEBANK_VERSION, "license": TREEBANK_ATTRIBUTION, "findings": probe_findings(runs),
            "machine": cpu_name(), "seconds": round(time.perf_counter() - started),
            "provenance": experiment_provenance()}


def run_tagging(models: dict, seeds, log, words_only: bool = True, heads=None) -> dict:
    started = time.perf_counter()
    runs = learning_curve(models, seeds=seeds, progress=log, words_only=words_only, heads=heads or CURVE_HEADS)
    return {"runs": runs, "seeds": list(seeds), "fractions": list(CURVE_FRACTIONS),
            "epochs": {str(k): v for k, v in CURVE_EPOCHS.items()}, "tagger": TAGGER_SETTINGS,
            "data": TREEBANK_VERSION, "license": TREEBANK_ATTRIBUTION, "findings": curve_findings(runs),
            "machine": cpu_name(), "seconds": round(time.perf_counter() - started),
            "provenance": experiment_provenance()}


MODEL_CODE = ("elmo_keras/layers", "elmo_keras/models", "elmo_keras/text", "elmo_keras/embedding",
              "elmo_keras/data/treebank.py", "elmo_keras/real_text/bilms.py")
EXPERIMENT_CODE = {  # what each kind of part depends on
    "probes": (*MODEL_CODE, "elmo_keras/analysis", "elmo_keras/real_text/probing.py", "elmo_keras/real_text/tasks.py",
               "elmo_keras/real_text/kneser_ney.py"),
    "tagging": (*MODEL_CODE, "elmo_keras/tagging", "elmo_keras/real_text/tagging_curve.py"),
}


def check_same_experiment_code(commit: str | None, other: str | None, kind: str) -> None:
    """Refuse parts made from commits whose experiment code (``EXPERIMENT_CODE[kind]``) differs.

    Raises:
        ValueError: a part was made outside a checkout, or the code differs between the commits.
    """
    if commit is None or other is None:
        raise ValueError("a part was made outside a git checkout: run every part from a clean checkout")
    if commit == other:
        return
    done = subprocess.run(["git", "diff", "--quiet", commit, other, "--", *EXPERIMENT_CODE[kind]], cwd=REPO,
                          capture_output=True, timeout=60)
    if done.returncode != 0:
        raise ValueError(f"the parts were made from commits {commit[:9]} and {other[:9]}, whose experiment code "
                         "differs: run them again from one")


RUN_KEY = ("model", "input", "task", "head", "fraction", "seed")  # what names one run of either kind


def merge_parts(parts: list[dict]) -> dict:
    """One result file from parts of the same experiment (``--models``): the same commit and seeds required.

    Raises:
        ValueError: the parts differ in commit, seeds or kind, or repeat a run.
    """
    first = parts[0]
    for part in parts[1:]:
        for key in ("seeds",):
            if part[key] != first[key]:
                raise ValueError(f"the parts differ in {key}: {first[key]} vs {part[key]}")
        check_same_experiment_code(first["provenance"]["git_commit"], part["provenance"]["git_commit"],
                                   "probes" if "perplexities" in first else "tagging")
        if ("perplexities" in part) != ("perplexities" in first):
            raise ValueError("a probes part and a tagging part cannot be merged")
    runs = [run for part in parts for run in part["runs"]]
    keys = [tuple(run.get(field) for field in RUN_KEY) for run in runs]
    if len(set(keys)) != len(keys):
        raise ValueError("the parts repeat a run")
    merged = {**first, "runs": runs, "seconds": sum(part["seconds"] for part in parts),
              "parts": [{"models": sorted({run.get("model", run.get("input")) for run in part["runs"]}),
                         "heads": sorted({run["head"] for run in part["runs"] if "head" in run}),
                         "seconds": part["seconds"], "provenance": part["provenance"]} for part in parts]}
    if "perplexities" in first:
        merged["perplexities"] = {name: row for part in parts for name, row in part["perplexities"].items()}
        merged["findings"] = probe_findings(runs)
    else:
        merged["findings"] = curve_findings(runs)
    return merged


def markdown_tables(probes: dict | None, tagging: dict | None) -> str:
    """The docs' tables (docs/real_english.md) from the result files, so that every number there comes from them."""
    from elmo_keras.real_text.probe_findings import layer_preferences
    from elmo_keras.real_text.tasks import TASK_TITLES

    lines = []
    if probes:
        lines += ["| model | dev perplexity, forward | backward | Kneser-Ney trigram, forward | backward | "
                  "add-one unigram | vocabulary |", "| --- | --- | --- | --- | --- | --- | --- |"]
        for name, row in probes["perplexities"].items():
            lines.append(f"| `{name}` | {row['biLM']['forward_perplexity']:.1f} | "
                         f"{row['biLM']['backward_perplexity']:.1f} | "
                         f"{row['kneser_ney_trigram']['forward_perplexity']:.1f} | "
                         f"{row['kneser_ney_trigram']['backward_perplexity']:.1f} | "
                         f"{row['add_one_unigram']['forward_perplexity']:.1f} | {row['vocabulary_size']:,} |")
        summary = probe_summary(probes["runs"])
        lines += ["", "| model | task | " + " | ".join(f"layer {j}" for j in range(5)) + " | majority | mix |",
                  "| --- | --- | " + " | ".join("---" for _ in range(5)) + " | --- | --- |"]
        for (model, task), rows in summary.groupby(["model", "task"], sort=False):
            cells = [f"{m:.1%} ± {s:.1%}" for m, s in zip(rows["mean"], rows["std"])]
            cells += [""] * (5 - len(cells))
            lines.append(f"| `{model}` | {TASK_TITLES.get(task, task)} | " + " | ".join(cells)
                         + f" | {rows['majority_accuracy'].iloc[0]:.1%} | {rows['mix_accuracy'].iloc[0]:.1%} |")
        lines += ["", "| model | task | best layer | runner-up | paired margin | beyond the seed spread | "
                  "mix: weighted mean layer |", "| --- | --- | --- | --- | --- | --- | --- |"]
        for row in layer_preferences(probes["runs"]).itertuples(index=False):
            lines.append(f"| `{row.model}` | {TASK_TITLES.get(row.task, row.task)} | {row.best_layer} | "
                         f"{row.runner_up} | {row.margin:+.1%} ± {row.margin_std:.1%} | "
                         f"{'yes' if row.separated else 'no'} | {row.mean_layer:.2f} ± {row.mean_layer_std:.2f} |")
    if tagging:
        table = curve_table(tagging["runs"])
        lines += ["", "| head | input | " + " | ".join(f"{f:.0%} ({n:,} sentences)" for f, n in
                                                   table.drop_duplicates("fraction")[["fraction", "sentences"]]
                                                   .itertuples(index=False)) + " |",
                  "| --- | --- | " + " | ".join("---" for _ in table.fraction.unique()) + " |"]
        for (head, input_name), rows in table.groupby(["head", "input"], sort=False):
            lines.append(f"| {head} | {input_name} | " + " | ".join(f"{m:.1%} ± {s:.1%}" for m, s in
                                                                 zip(rows["mean"], rows["std"])) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--probes-only", action="store_true", help=f"write only {PROBES_FILE}")
    only.add_argument("--tagging-only", action="store_true", help=f"write only {TAGGING_FILE}")
    parser.add_argument("--seeds", type=int, nargs="+", default=None,
                        help=f"default: {list(PROBE_SEEDS)} (probes), {list(CURVE_SEEDS)} (tagging)")
    parser.add_argument("--output", type=pathlib.Path, default=DATA, help="the folder the files go to")
    parser.add_argument("--models", nargs="+", choices=TREEBANK_BILMS, default=list(TREEBANK_BILMS))
    parser.add_argument("--heads", nargs="+", choices=CURVE_HEADS, default=list(CURVE_HEADS),
                        help="the tagger heads of the learning curve (parts run in parallel)")
    parser.add_argument("--no-words-only", action="store_true",
                        help="leave out the words-only tagger (run by another part)")
    parser.add_argument("--merge", type=pathlib.Path, nargs="+", help="result parts to join into --output-file")
    parser.add_argument("--output-file", type=pathlib.Path, help="where --merge writes")
    parser.add_argument("--tables", action="store_true", help="print the docs' markdown tables from the result files")
    args = parser.parse_args()
    if args.tables:
        def read(name):
            path = args.output / name
            return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None

        print(markdown_tables(read(PROBES_FILE), read(TAGGING_FILE)))
        return
    if args.merge:
        merged = merge_parts([json.loads(path.read_text(encoding="utf-8")) for path in args.merge])
        args.output_file.write_text(json.dumps(merged, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.output_file}: {len(merged['runs'])} runs")
        return
    started = time.perf_counter()

    def log(message: str) -> None:
        print(f"[{time.perf_counter() - started:6.0f} s] {message}", flush=True)

    models = {name: load_treebank_bilm(name) for name in args.models}
    if not args.tagging_only:
        results = run_probes(models, args.seeds or PROBE_SEEDS, log)
        (args.output / PROBES_FILE).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
        print(probe_summary(results["runs"]).round(4).to_string(index=False))
        print("\n".join(results["findings"]))
    if not args.probes_only:
        results = run_tagging(models, args.seeds or CURVE_SEEDS, log, words_only=not args.no_words_only,
                              heads=args.heads)
        (args.output / TAGGING_FILE).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
        print(curve_table(results["runs"]).round(4).to_string(index=False))
        print("\n".join(results["findings"]))
    log("done")


if __name__ == "__main__":
    main()
