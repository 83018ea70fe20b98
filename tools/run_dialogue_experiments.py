"""HRED and VHRED on the toy dialogues → ``elmo_keras/data/dialogue_experiments.json`` (the Dialogue page shows it).

Two questions, each over ``SEEDS`` (mean ± std of the per-seed averages), on all held-out contexts (new
combinations of turns; the topic is set in turn 1 and the last turn never names it):

1. **Does HRED carry the topic?** ``HRED`` (context RNN over every turn) against ``HRED, last utterance only``
   (the ablation: the context RNN reads only the last history turn), same settings: held-out per-token NLL and the
   share of greedy replies that are a plausible reply of their context (``valid``); HRED's ancestral sampling
   (T = 1, ``NUM_SAMPLES`` replies) for the diversity it buys.
2. **Does VHRED's z give diverse and valid replies?** VHRED plain and with each remedy for KL collapse
   (``VHRED_RUNS``: KL annealing with word dropout, Bowman et al. 2016; a bag-of-words loss on z, Zhao et al.
   2017; free bits, Kingma et al. 2016) and the combination shipped: the per-token ELBO bound and its terms,
   ``NUM_SAMPLES`` replies per held-out context (one greedy decode per ``z ~ p(z | c)``): distinct-1/2, unique
   replies, ``valid`` and ``coverage`` (share of the context's plausible replies produced); the KL per token after
   every training epoch (``kl_curves``).

Run ``python tools/run_dialogue_experiments.py`` (no arguments; ``--jobs 3`` trains the seeds in three processes;
``--only RUN …`` reruns only the named VHRED runs and replaces them in the existing file).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from elmo_keras.data.dialogue import dialogue_examples, dialogue_references, split_turns  # noqa: E402
from elmo_keras.explorer.dialogue.service import SHIPPED_DIALOGUE_TRAINING, SHIPPED_VHRED  # noqa: E402
from elmo_keras.models.dialogue import (  # noqa: E402
    diversity,
    encode_history,
    evaluate_dialogue_model,
    greedy_response,
    latent_responses,
    sampled_responses,
    train_dialogue_model,
)
from elmo_keras.models.dialogue.training import dialogue_vocabulary  # noqa: E402
from elmo_keras.models.provenance import cpu_name, experiment_provenance  # noqa: E402

SEEDS = (0, 1, 2)
NUM_SAMPLES = 20
TRAINING = SHIPPED_DIALOGUE_TRAINING  # the shipped models' settings (30 epochs, batch 16, feed_context)
STEPS_PER_EPOCH = 41  # 654 training dialogues / 16
COLLAPSE_THRESHOLD = 0.01  # nats per token: below this the posterior carries (almost) nothing about the reply
HRED_RUNS = {"HRED": {}, "HRED, last utterance only": {"last_turn_only": True}}
ANNEALING_EPOCHS = 10
ANNEALING = {"kl_annealing_steps": ANNEALING_EPOCHS * STEPS_PER_EPOCH, "word_dropout": 0.25}
BOW = {"bow_weight": 1.0}
FREE_BITS = {"free_bits": 0.25}  # nats per latent dimension (8 of them: 2 nats per reply)
SHIPPED_RUN = "VHRED + bag-of-words & free bits (shipped)"
VHRED_RUNS = {
    "VHRED plain": {},
    "VHRED + KL annealing & word dropout": ANNEALING,
    "VHRED + bag-of-words loss": BOW,
    "VHRED + free bits": FREE_BITS,
    "VHRED + annealing, word dropout & bag-of-words": {**ANNEALING, **BOW},
    SHIPPED_RUN: SHIPPED_VHRED,
}
assert SHIPPED_VHRED == {**BOW, **FREE_BITS}, "the shipped VHRED is the last run's combination"
OUT = pathlib.Path(__file__).resolve().parents[1] / "elmo_keras" / "data" / "dialogue_experiments.json"


def mean_scores(replies_of, contexts, references) -> dict:
    """``diversity`` of ``replies_of(history)`` (with ``valid`` / ``coverage``) averaged over the contexts."""
    scores = [diversity(replies_of(history), references[text]) for text, history in contexts]
    return {name: float(np.mean([s[name] for s in scores])) for name in scores[0]}


def run_seed(seed: int, contexts, references, only=None) -> dict:
    """Every model of one seed (``only``: just those VHRED runs): ``{"results": {run: {metric: value}},
    "kl_curves": {run: [per epoch]}, ...}``."""
    results, curves, reconstruction, optimizer = {}, {}, {}, None
    for name, settings in ({} if only else HRED_RUNS).items():
        hred = train_dialogue_model(kind="hred", seed=seed, **TRAINING, **settings)
        optimizer = type(hred.optimizer).__name__
        scores = evaluate_dialogue_model(hred)
        results[f"{name}: greedy"] = {
            "nll_per_token": scores["nll_per_token"], "perplexity": scores["perplexity"],
            **mean_scores(lambda h, model=hred: [greedy_response(model, h).text], contexts, references)}
        if not settings:
            results[f"{name}: sampling (T=1)"] = mean_scores(
                lambda h, model=hred: [r.text for r in sampled_responses(model, h, NUM_SAMPLES, seed=seed)],
                contexts, references)
        print(f"  seed {seed} {name}: valid {results[f'{name}: greedy']['valid']:.2f}", flush=True)
    for name, settings in VHRED_RUNS.items():
        if only and name not in only:
            continue
        vhred = train_dialogue_model(kind="vhred", seed=seed, **TRAINING, **settings)
        optimizer = type(vhred.optimizer).__name__
        scores = evaluate_dialogue_model(vhred, seed=seed)
        results[f"{name}: z samples"] = {
            "elbo_per_token": scores["elbo_per_token"], "reconstruction_per_token": scores["reconstruction_per_token"],
            "kl_per_token": scores["kl_per_token"], "prior_mean_nll_per_token": scores["prior_mean_nll_per_token"],
            "elbo_perplexity": scores["perplexity"],
            **mean_scores(lambda h, model=vhred: [r.text for r in latent_responses(model, h, NUM_SAMPLES, seed)],
                          contexts, references)}
        history = vhred.training_summary["history"]
        curves[name], reconstruction[name] = history["kl_per_token"], history["reconstruction_per_token"]
        row = results[f"{name}: z samples"]
        print(f"  seed {seed} {name}: final training KL/token {curves[name][-1]:.3f}, valid {row['valid']:.2f}, "
              f"coverage {row['coverage']:.2f}", flush=True)
    return {"results": results, "kl_curves": curves, "reconstruction_curves": reconstruction, "optimizer": optimizer}


def summarize(runs) -> dict:
    """``{method: {metric: {"mean", "std"}}}`` over the seeds."""
    return {method: {metric: {"mean": float(np.mean(values)), "std": float(np.std(values))}
                     for metric in metrics for values in [[run["results"][method][metric] for run in runs]]}
            for method, metrics in runs[0]["results"].items()}


def curve_stats(runs, key: str) -> dict:
    """``{run: {"mean": [per epoch], "std": [per epoch]}}`` of one per-epoch curve over the seeds."""
    return {name: {"mean": np.mean([run[key][name] for run in runs], axis=0).tolist(),
                   "std": np.std([run[key][name] for run in runs], axis=0).tolist()} for name in runs[0][key]}


def contexts_for(references) -> list:
    """``[(context text, history ids)]`` of the held-out contexts, encoded with the toy corpus's vocabulary."""
    vocabulary = dialogue_vocabulary(dialogue_examples("all"))
    return [(text, encode_history(split_turns(text), vocabulary)[0]) for text in references]


def seed_run(seed: int, only=None) -> dict:
    references = dialogue_references("heldout")
    return run_seed(seed, contexts_for(references), references, only)


def parallel_runs(jobs: int, only=None) -> list:
    """Each seed in its own process (``--seed``), ``jobs`` at a time; their results in ``SEEDS`` order."""
    with tempfile.TemporaryDirectory() as scratch:
        paths = [pathlib.Path(scratch) / f"seed{seed}.json" for seed in SEEDS]
        pending = list(zip(SEEDS, paths))
        running = []
        while pending or running:
            while pending and len(running) < jobs:
                seed, path = pending.pop(0)
                running.append(subprocess.Popen([sys.executable, __file__, "--seed", str(seed), "--part", str(path),
                                                 *(["--only", *only] if only else [])]))
            running[0].wait()
            if running[0].returncode:
                raise SystemExit(f"a seed's run failed (exit {running[0].returncode})")
            running.pop(0)
        return [json.loads(path.read_text(encoding="utf-8")) for path in paths]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=1, help="seeds trained at once, each in its own process")
    parser.add_argument("--seed", type=int, help=argparse.SUPPRESS)  # one seed's run, for --jobs
    parser.add_argument("--part", type=pathlib.Path, help=argparse.SUPPRESS)
    parser.add_argument("--only", nargs="+", choices=list(VHRED_RUNS), metavar="RUN",
                        help="rerun only these VHRED runs and replace them in the existing file")
    arguments = parser.parse_args()
    if arguments.seed is not None:
        arguments.part.write_text(json.dumps(seed_run(arguments.seed, arguments.only)), encoding="utf-8")
        return
    started = time.perf_counter()
    only = arguments.only
    runs = (parallel_runs(arguments.jobs, only) if arguments.jobs > 1
            else [seed_run(seed, only) for seed in SEEDS])
    if only:
        replace_runs(runs, (time.perf_counter() - started) / 60)
        return
    result = {
        "seeds": list(SEEDS), "num_contexts": len(dialogue_references("heldout")), "num_samples": NUM_SAMPLES,
        "training": TRAINING, "annealing_epochs": ANNEALING_EPOCHS, "collapse_threshold": COLLAPSE_THRESHOLD,
        "hred_runs": HRED_RUNS, "vhred_runs": VHRED_RUNS, "shipped_vhred": SHIPPED_RUN,
        "summary": summarize(runs), "kl_curves": curve_stats(runs, "kl_curves"),
        "reconstruction_curves": curve_stats(runs, "reconstruction_curves"),
        "runs": [run["results"] for run in runs],
        "minutes": (time.perf_counter() - started) / 60, "machine": cpu_name(),
        "provenance": experiment_provenance(optimizer=runs[0]["optimizer"]),
    }
    OUT.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT} in {result['minutes']:.1f} minutes")


def replace_runs(runs, minutes: float) -> None:
    """Put the rerun VHRED runs of ``runs`` into the existing file in ``VHRED_RUNS`` order (the other runs kept)."""
    result = json.loads(OUT.read_text(encoding="utf-8"))
    keep = [f"{name}: z samples" for name in VHRED_RUNS]
    for index, run in enumerate(runs):
        merged = {**result["runs"][index], **run["results"]}
        result["runs"][index] = {m: merged[m] for m in merged if not m.startswith("VHRED") or m in keep}
        result["runs"][index] = {**{m: v for m, v in result["runs"][index].items() if not m.startswith("VHRED")},
                                 **{m: result["runs"][index][m] for m in keep if m in result["runs"][index]}}
    result["summary"] = summarize([{"results": results} for results in result["runs"]])
    for key in ("kl_curves", "reconstruction_curves"):
        merged = {**result[key], **curve_stats(runs, key)}
        result[key] = {name: merged[name] for name in VHRED_RUNS if name in merged}
    result.update(vhred_runs=VHRED_RUNS, shipped_vhred=SHIPPED_RUN, minutes=result["minutes"] + minutes,
                  provenance=experiment_provenance(optimizer=runs[0]["optimizer"]))
    OUT.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"replaced {len(runs[0]['results'])} runs in {OUT} in {minutes:.1f} minutes")


if __name__ == "__main__":
    main()
