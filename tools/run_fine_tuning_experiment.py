"""Held-out perplexity of a pretrained ELMo fine-tuned on a toy domain, against a model trained from scratch.

The bilm-tf test model (``../shared/fixtures/elmo_bilm_tf``, trained by bilm-tf's test on news sentences) is
adapted to the polysemy corpus (``polysemy_sentences("train")``, scored on ``"heldout"``). Every condition trains
for the same number of epochs (= steps) with the same batches, learning rate and seeds:

- ``softmax only``: the new softmax trains, the pretrained biLM stays frozen (``freeze_bilm=True``);
- ``fine-tune, softmax first``: ``softmax_epochs`` epochs of the softmax alone, then everything;
- ``fine-tune, all at once``: everything from the first step (``softmax_epochs=0``);
- ``from scratch``: ``train_bilm`` with the same architecture (``config_from_options``), random initial weights.

Usage::

    python tools/run_fine_tuning_experiment.py [--epochs 8] [--softmax-epochs 2] [--seeds 0 1 2]
        [--output fine_tuning_experiment.json]

Prints a table (mean ± std over seeds of the held-out perplexity, the geometric mean of the forward and
backward ones) and writes every number to ``--output`` (JSON).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import statistics
import time

from elmo_keras._quiet import keras
from elmo_keras.data.polysemy import polysemy_sentences
from elmo_keras.models.bilm.training import train_bilm
from elmo_keras.models.provenance import cpu_name, experiment_provenance
from elmo_keras.pretrained.fine_tuning import (
    DEFAULT_BATCH_SIZE,
    DEFAULT_LEARNING_RATE,
    config_from_options,
    fine_tune_pretrained,
)
from elmo_keras.pretrained.options import ElmoOptions
from elmo_keras.text.vocabulary import Vocabulary

FIXTURE = pathlib.Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "elmo_bilm_tf"
CONDITIONS = ("softmax only", "fine-tune, softmax first", "fine-tune, all at once", "from scratch")


def heldout_perplexity(scores: dict) -> float:
    """The geometric mean of the forward and backward perplexity (= exp of the mean of the two losses)."""
    return math.sqrt(scores["forward_perplexity"] * scores["backward_perplexity"])


def run(condition: str, seed: int, epochs: int, softmax_epochs: int, model_dir: pathlib.Path) -> dict:
    train, heldout = polysemy_sentences("train"), polysemy_sentences("heldout")
    options_file, weight_file = model_dir / "options.json", model_dir / "lm_weights.hdf5"
    common = dict(heldout=heldout, seed=seed, batch_size=DEFAULT_BATCH_SIZE, learning_rate=DEFAULT_LEARNING_RATE)
    started = time.perf_counter()
    if condition == "from scratch":
        config = config_from_options(ElmoOptions.load(options_file), epochs=epochs, dropout=0.0, lowercase=False)
        model = train_bilm(train, size=config, vocabulary=Vocabulary.from_corpus(train), **common)
    else:
        phases = {"softmax only": dict(softmax_epochs=epochs, epochs=0),
                  "fine-tune, softmax first": dict(softmax_epochs=softmax_epochs, epochs=epochs - softmax_epochs),
                  "fine-tune, all at once": dict(softmax_epochs=0, epochs=epochs)}[condition]
        model = fine_tune_pretrained(options_file, weight_file, train, **phases, **common)
    summary = model.training_summary
    keras.backend.clear_session()
    return {"condition": condition, "seed": seed, "heldout": summary["heldout"],
            "heldout_perplexity": heldout_perplexity(summary["heldout"]),
            "heldout_unigram_perplexity": summary["heldout_unigram_perplexity"],
            "seconds": round(time.perf_counter() - started, 1)}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=8, help="epochs per condition (both phases together)")
    parser.add_argument("--softmax-epochs", type=int, default=2, help="phase 1 of 'fine-tune, softmax first'")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--conditions", nargs="+", default=list(CONDITIONS), choices=CONDITIONS)
    parser.add_argument("--model-dir", type=pathlib.Path, default=FIXTURE, help="the pretrained model's directory")
    parser.add_argument("--output", type=pathlib.Path, default=pathlib.Path("fine_tuning_experiment.json"))
    args = parser.parse_args(argv)
    if not (args.model_dir / "lm_weights.hdf5").is_file():
        parser.error(f"no pretrained model at {args.model_dir} (the bilm-tf test model lives in ../shared/fixtures)")
    runs = []
    for seed in args.seeds:
        for condition in args.conditions:
            runs.append(run(condition, seed, args.epochs, args.softmax_epochs, args.model_dir))
            print(f"seed {seed} {condition:26s} held-out perplexity {runs[-1]['heldout_perplexity']:8.2f} "
                  f"({runs[-1]['seconds']} s)", flush=True)
    table = {}
    for condition in args.conditions:
        values = [r["heldout_perplexity"] for r in runs if r["condition"] == condition]
        table[condition] = {"mean": statistics.mean(values),
                            "std": statistics.stdev(values) if len(values) > 1 else 0.0, "n": len(values)}
    unigram = runs[0]["heldout_unigram_perplexity"]
    print(f"\nheld-out perplexity after {args.epochs} epochs, mean ± std over seeds {args.seeds} "
          f"(add-one unigram: {unigram:.1f})")
    print("| condition | held-out perplexity |\n|---|---|")
    for condition, row in table.items():
        print(f"| {condition} | {row['mean']:.1f} ± {row['std']:.1f} |")
    result = {"epochs": args.epochs, "softmax_epochs": args.softmax_epochs, "seeds": args.seeds,
              "backend": keras.backend.backend(), "cpu": cpu_name(), "cpu_count": os.cpu_count(),
              "heldout_unigram_perplexity": unigram, "table": table, "runs": runs,
              "provenance": experiment_provenance()}
    args.output.write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(f"wrote {args.output}")
    return result


if __name__ == "__main__":
    main()
