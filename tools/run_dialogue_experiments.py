"""HRED vs VHRED on the toy dialogues → ``elmo_keras/data/dialogue_experiments.json`` (the Dialogue page shows it).

For each seed: an HRED and two VHREDs (no KL annealing; linear annealing over ``ANNEALING_EPOCHS`` epochs),
trained on the ``train`` split with the same settings. Reported:

* held-out reconstruction (all held-out contexts): HRED's per-token NLL (and perplexity); VHRED's per-token ELBO
  bound with its reconstruction and KL terms, and its NLL decoding from the prior mean;
* response diversity over N = ``NUM_SAMPLES`` replies per held-out context (the first
  ``NUM_DIVERSITY_CONTEXTS``; distinct-1/2, unique replies, share of
  replies that are plausible corpus replies, share of the corpus replies produced), averaged over the contexts:
  HRED greedy and beam (deterministic: one reply, repeated), HRED ancestral sampling, VHRED one greedy reply per
  ``z ~ p(z | c)``;
* the KL per token after every training epoch, with and without annealing (KL collapse: does it go to 0?).

Mean ± std over ``SEEDS``. Run ``python tools/run_dialogue_experiments.py`` (no arguments).
"""

from __future__ import annotations

import json
import pathlib
import time

import numpy as np

from elmo_keras.data.dialogue import dialogue_examples, dialogue_references, split_turns
from elmo_keras.models.dialogue import (
    beam_responses,
    diversity,
    encode_history,
    evaluate_dialogue_model,
    greedy_response,
    latent_responses,
    sampled_responses,
    train_dialogue_model,
)
from elmo_keras.models.dialogue.training import dialogue_vocabulary

SEEDS = (0, 1, 2)
NUM_SAMPLES = 20
BEAM_SIZE = 5
NUM_DIVERSITY_CONTEXTS = 15  # the first held-out contexts (file order) whose replies are generated N times each
TRAINING = {"epochs": 40, "batch_size": 32, "learning_rate": 1e-2}
STEPS_PER_EPOCH = 21  # 654 training dialogues / 32
ANNEALING_EPOCHS = 10
COLLAPSE_THRESHOLD = 0.01  # nats per token: below this the posterior carries (almost) nothing about the reply
VHRED_RUNS = {
    "VHRED, no annealing": {},
    "VHRED, KL annealing": {"kl_annealing_steps": ANNEALING_EPOCHS * STEPS_PER_EPOCH},
}
OUT = pathlib.Path(__file__).resolve().parents[1] / "elmo_keras" / "data" / "dialogue_experiments.json"


def mean_diversity(replies_of, contexts, references) -> dict:
    """``diversity`` of ``replies_of(history)`` averaged over the contexts."""
    scores = [diversity(replies_of(history), references[text]) for text, history in contexts]
    return {name: float(np.mean([s[name] for s in scores])) for name in scores[0]}


def run_seed(seed: int, contexts, references) -> dict:
    """Every model and decoding method for one seed: ``{method: {metric: value}}`` and the KL curves."""
    results, curves = {}, {}
    hred = train_dialogue_model("hred", seed=seed, **TRAINING)
    print(f"  seed {seed} HRED trained", flush=True)
    scores = evaluate_dialogue_model(hred)
    likelihood = {"nll_per_token": scores["nll_per_token"], "perplexity": scores["perplexity"]}
    results["HRED greedy"] = {**likelihood, **mean_diversity(
        lambda h: [greedy_response(hred, h).text] * NUM_SAMPLES, contexts, references)}
    results[f"HRED beam (k={BEAM_SIZE}, best)"] = mean_diversity(
        lambda h: [beam_responses(hred, h, BEAM_SIZE)[0].text] * NUM_SAMPLES, contexts, references)
    results["HRED sampling (T=1)"] = mean_diversity(
        lambda h: [r.text for r in sampled_responses(hred, h, NUM_SAMPLES, seed=seed)], contexts, references)
    for name, settings in VHRED_RUNS.items():
        vhred = train_dialogue_model("vhred", seed=seed, **TRAINING, **settings)
        scores = evaluate_dialogue_model(vhred, seed=seed)
        results[f"{name}: z samples"] = {
            **{k: scores[k] for k in ("elbo_per_token", "reconstruction_per_token", "kl_per_token",
                                      "prior_mean_nll_per_token", "perplexity")},
            **mean_diversity(lambda h, model=vhred: [r.text for r in latent_responses(model, h, NUM_SAMPLES, seed)],
                             contexts, references)}
        curves[name] = vhred.training_summary["history"]["kl_per_token"]
        print(f"  seed {seed} {name}: final training KL/token {curves[name][-1]:.4f}", flush=True)
    return {"results": results, "kl_curves": curves}


def summarize(runs) -> dict:
    """``{method: {metric: {"mean", "std"}}}`` over the seeds."""
    summary = {}
    for method in runs[0]["results"]:
        metrics = runs[0]["results"][method]
        summary[method] = {
            metric: {"mean": float(np.mean(values)), "std": float(np.std(values))}
            for metric in metrics
            for values in [[run["results"][method][metric] for run in runs]]
        }
    return summary


def conclusion(summary, kl_curves) -> str:
    """The finding in words, computed from the numbers (so it stays true when the experiment is rerun)."""
    lines = []
    for name, curve in kl_curves.items():
        below = [epoch for epoch, value in enumerate(curve["mean"], start=1) if value < COLLAPSE_THRESHOLD]
        when = f"below {COLLAPSE_THRESHOLD} from epoch {below[0]}" if below else f"never below {COLLAPSE_THRESHOLD}"
        lines.append(f"{name}: KL per token {curve['mean'][0]:.4f} after epoch 1, {curve['mean'][-1]:.4f} at the end "
                     f"({when}).")
    collapsed = [name for name, curve in kl_curves.items() if curve["mean"][-1] < COLLAPSE_THRESHOLD]
    z_unique = {name: summary[f"{name}: z samples"]["unique"]["mean"] for name in kl_curves}
    if len(collapsed) == len(kl_curves):
        verdict = (f"**KL collapse happens here, with and without annealing**: by the end the posterior carries less "
                   f"than {COLLAPSE_THRESHOLD} nats per token about the reply, so z is (almost) ignored and different "
                   "z samples mostly decode to the same reply (share of distinct replies among the "
                   f"{NUM_SAMPLES} z samples: " + ", ".join(f"{n}: {u:.2f}" for n, u in z_unique.items()) + "). "
                   "The toy decoder can model the 3–4 plausible replies of a context with its own word-level "
                   "distribution, so z buys nothing the KL does not cost.")
    elif collapsed:
        verdict = (f"KL collapse (final KL < {COLLAPSE_THRESHOLD} nats/token) in: {', '.join(collapsed)}; "
                   "not in the others.")
    else:
        verdict = "No VHRED variant collapses: z keeps information about the reply."
    beam = f"HRED beam (k={BEAM_SIZE}, best)"
    valid = {method: metrics["valid"]["mean"] for method, metrics in summary.items() if method != beam}
    poor = [method for method, value in valid.items() if value < 0.5]
    quality = ("**Reply quality**: share of generated replies that are a plausible reply of their held-out context — "
               + ", ".join(f"{method}: {value:.2f}" for method, value in valid.items()) + ". "
               + (f"Below one half ({', '.join(poor)}): after {TRAINING['epochs']} epochs those models mostly miss "
                  "the topic set two turns back (not measured why; the std over seeds shows which seeds did)." if poor
                  else "Every model mostly uses the topic set turns back."))
    return "\n\n".join(["**KL per token while training** (mean over seeds): " + " ".join(lines), verdict, quality])


def main() -> None:
    started = time.perf_counter()
    references = dialogue_references("heldout")
    contexts = contexts_for(references)[:NUM_DIVERSITY_CONTEXTS]
    runs = []
    for seed in SEEDS:
        print(f"seed {seed}", flush=True)
        runs.append(run_seed(seed, contexts, references))
    kl_curves = {name: {"mean": np.mean([run["kl_curves"][name] for run in runs], axis=0).tolist(),
                        "std": np.std([run["kl_curves"][name] for run in runs], axis=0).tolist()}
                 for name in VHRED_RUNS}
    summary = summarize(runs)
    result = {
        "seeds": list(SEEDS), "num_contexts": len(references), "num_diversity_contexts": len(contexts),
        "num_samples": NUM_SAMPLES,
        "training": TRAINING, "annealing_epochs": ANNEALING_EPOCHS,
        "summary": summary, "kl_curves": kl_curves, "runs": [run["results"] for run in runs],
        "conclusion": conclusion(summary, kl_curves),
        "minutes": (time.perf_counter() - started) / 60,
    }
    OUT.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(result["conclusion"])
    print(f"wrote {OUT} in {result['minutes']:.1f} minutes")


def contexts_for(references) -> list:
    """``[(context text, history ids)]`` of the held-out contexts, encoded with the toy corpus's vocabulary."""
    vocabulary = dialogue_vocabulary(dialogue_examples("all"))
    return [(text, encode_history(split_turns(text), vocabulary)[0]) for text in references]


if __name__ == "__main__":
    main()
