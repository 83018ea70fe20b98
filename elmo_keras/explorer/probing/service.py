"""The Probing page's service: what each layer of the two treebank biLMs knows about real English, from the results
``tools/run_real_text_experiments.py`` writes into the package (``elmo_keras/data/real_text_probes.json``:
``perplexities``, ``runs`` of ``real_text.probing.probe_runs``, ``seeds``, ``settings``, ``findings``, ``machine``,
``seconds``, ``provenance``).

``probing_view(results)`` is the page's one call. Tables and sentences are computed from the runs by
``real_text.probe_findings`` (``probe_summary``, ``layer_preferences``, ``probe_findings``), so they follow the code
that states them; the file's stored ``findings`` are shown only where it holds no runs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from elmo_keras.data.packaged_results import packaged_results
from elmo_keras.data.treebank import TREEBANK_ATTRIBUTION
from elmo_keras.models.provenance import provenance_caption
from elmo_keras.real_text.bilms import VOCABULARY_MIN_COUNT
from elmo_keras.real_text.probe_findings import (
    MODEL_TITLES,
    binomial_noise,
    layer_preferences,
    probe_findings,
    probe_summary,
)
from elmo_keras.real_text.tasks import SENSE_TASK, TASK_TITLES

PROBES_FILE = "real_text_probes.json"  # the name tools/run_real_text_experiments.py writes
REPRODUCE_COMMAND = "python tools/run_real_text_experiments.py"
# the language models of the perplexity table: the key in ``perplexities[model]``, the row's name, what it is
LANGUAGE_MODELS = (
    ("biLM", "the treebank biLM",
     "ELMo's biLM trained on the treebank's training text: characters in, one LSTM or transformer stack per "
     "direction, a softmax over the vocabulary out; forward predicts each word from the words before it, backward "
     "from the words after it."),
    ("kneser_ney_trigram", "Kneser–Ney trigram",
     "An interpolated modified Kneser–Ney trigram (Chen & Goodman 1998) counted on the same training text: the "
     "count-based language model a neural one has to beat, predicting each word from the two before (or after) it."),
    ("add_one_unigram", "add-one unigram",
     "Each word's training frequency plus one, normalised: no context at all, the floor every model should clear "
     "(one number: it reads no neighbours, so it has no direction)."),
)
PERPLEXITY_NOTE = (f"Perplexity on the treebank's 2,001 dev sentences, every model over the same vocabulary (the "
                   f"lowercased words seen at least {VOCABULARY_MIN_COUNT} times in train; the others count as "
                   "unknown) and the same targets: lower is better.")
SEMANTIC_TASK_NOTE = (
    "**Why word sense comes from the toy corpus.** The treebank has no sense annotation, and a sense task built from "
    "it (e.g. lemma-based) would measure word identity, not sense. The toy polysemy corpus is the only hand-labelled "
    "sense data the package ships: the sense of *bank*, *play* and *right* (six classes; probes trained on its train "
    "split, scored on its held-out split). The treebank biLMs read its sentences like any English (characters, no "
    "toy vocabulary). Its held-out set is small ({count} examples), so differences under about ±{noise:.0%} are noise "
    "there (twice the binomial standard error at 50 % accuracy; the findings give the bound at each score)."
)
REFERENCES = (
    "Peters et al. (2018a), “Deep contextualized word representations”, NAACL 2018 — §5.3: the biLM's lower layer "
    "suits POS tagging better, its top layer word sense disambiguation.",
    "Peters et al. (2018b), “Dissecting Contextual Word Embeddings: Architecture and Representation”, EMNLP 2018 — "
    "the same layered pattern in LSTM, transformer and CNN biLMs: morphology and syntax low, semantics higher.",
    f"The treebank: {TREEBANK_ATTRIBUTION}.",
)


@dataclass(frozen=True)
class ProbingView:
    """What the Probing page shows.

    Attributes:
        perplexities: one row per biLM and language model: ``biLM``, ``language model``, ``forward``, ``backward``
            (NaN for the unigram), ``vocabulary``.
        summary: ``probe_summary`` of the runs (per model, task and layer: accuracy mean, std, min, max, ...).
        preferences: ``preference_table`` of the runs (per model and task, for display).
        tasks: the probed tasks, in ``TASK_TITLES`` order.
        findings: sentences computed from the runs (``probe_findings``).
        semantic_note: why the word-sense task is the toy corpus', with its held-out size.
        provenance: what made the numbers, on which machine, over which seeds, in how long.
    """

    perplexities: pd.DataFrame
    summary: pd.DataFrame
    preferences: pd.DataFrame
    tasks: list
    findings: list
    semantic_note: str
    provenance: str


def probe_results() -> dict | None:
    """The packaged ``real_text_probes.json``, or None where it has not been produced."""
    return packaged_results(PROBES_FILE)


def missing_results_message(file_name: str = PROBES_FILE) -> str:
    """What a page says where the results file is absent."""
    return (f"This installation holds no `{file_name}` yet. Produce it from a clone with `{REPRODUCE_COMMAND}` "
            "(about 40 minutes on two CPU cores); it is written into `elmo_keras/data/`.")


def model_title(model: str) -> str:
    """``"LSTM"`` for ``"treebank-lstm"`` (the name itself for any other model)."""
    return MODEL_TITLES.get(model, model)


def perplexity_table(perplexities: dict) -> pd.DataFrame:
    """The file's ``perplexities`` as one row per biLM and language model (``LANGUAGE_MODELS`` order)."""
    rows = []
    for model, entry in perplexities.items():
        for key, name, _ in LANGUAGE_MODELS:
            scores = entry.get(key) or {}
            rows.append({"biLM": model_title(model), "language model": name,
                         "forward": scores.get("forward_perplexity", np.nan),
                         "backward": scores.get("backward_perplexity", np.nan),
                         "vocabulary": entry.get("vocabulary_size")})
    return pd.DataFrame(rows, columns=["biLM", "language model", "forward", "backward", "vocabulary"])


def preference_table(runs: list[dict]) -> pd.DataFrame:
    """Per model and task, for display: the best layer and runner-up with their accuracies, the paired margin, whether
    it is beyond the seed spread, layer 0, the majority label, the learned mix's accuracy and weighted mean layer."""
    preferences = layer_preferences(runs)
    mix = probe_summary(runs).groupby(["model", "task"], sort=False)["mix_accuracy"].first()
    return pd.DataFrame({
        "biLM": preferences["model"].map(model_title),
        "task": preferences["task"].map(lambda task: TASK_TITLES.get(task, task)),
        "best layer": preferences["best_layer"], "its accuracy": preferences["best_mean"],
        "runner-up": preferences["runner_up"], "runner-up accuracy": preferences["runner_up_mean"],
        "margin (paired)": [f"{m * 100:+.1f} ± {s * 100:.1f} points"
                            for m, s in zip(preferences["margin"], preferences["margin_std"])],
        "beyond the seed spread": preferences["separated"].map({True: "yes", False: "no"}),
        "layer 0": preferences["layer0_mean"], "majority label": preferences["majority_accuracy"],
        "learned mix": [mix[(model, task)] for model, task in zip(preferences["model"], preferences["task"])],
        "mix: weighted mean layer": [f"{m:.2f} ± {s:.2f}"
                                     for m, s in zip(preferences["mean_layer"], preferences["mean_layer_std"])],
    })


def provenance_line(results: dict) -> str:
    """Seeds, sample sizes, run time and machine, then ``provenance_caption`` (version, commit, backend, date)."""
    seeds = results.get("seeds") or []
    settings = results.get("settings") or {}
    sample = (f" Each seed's probes train on {settings['train_sentences']:,} sentences drawn from the first "
              f"{settings['pool_sentences']:,} training sentences and are scored on the dev set."
              if {"train_sentences", "pool_sentences"} <= set(settings) else "")
    return (f"{len(seeds)} seeds ({', '.join(str(seed) for seed in seeds)}); the experiments took "
            f"{results['seconds'] / 60:.0f} minutes on {results['machine']}.{sample} "
            f"{provenance_caption(results)} Reproduce with `{REPRODUCE_COMMAND}`.")


def probing_view(results: dict) -> ProbingView:
    """Everything the Probing page shows of ``results`` (the parsed ``real_text_probes.json``)."""
    runs = results.get("runs") or []
    summary = probe_summary(runs) if runs else pd.DataFrame()
    present = set(summary["task"]) if runs else set()
    sense = [run["num_test"] for run in runs if run["task"] == SENSE_TASK]
    return ProbingView(
        perplexities=perplexity_table(results.get("perplexities") or {}), summary=summary,
        preferences=preference_table(runs) if runs else pd.DataFrame(),
        tasks=[task for task in TASK_TITLES if task in present],
        findings=probe_findings(runs) if runs else list(results.get("findings") or []),
        semantic_note=SEMANTIC_TASK_NOTE.format(count=f"{sense[0]:,}" if sense else "72",
                                                noise=binomial_noise(0.5, sense[0] if sense else 72)),
        provenance=provenance_line(results))
