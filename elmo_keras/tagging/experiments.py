"""The tagging experiments of the README and the Tagging page, on the shipped toy data, over several seeds.

1. **Multi-task learning** (Tafforeau et al. 2016): frame tagging trained alone vs. together with POS tagging
   (alternating batches): frame accuracy and label F1 on the held-out frame sentences.
2. **TagLM** (Peters et al. 2017): NER span F1 with vs. without a frozen biLM's vectors, at a small number of
   labelled sentences; the biLM is trained on unlabelled text only (``tagging_unlabelled_sentences``).
3. **CRF vs. per-token softmax** (Lample et al. 2016): NER span F1 and the number of invalid BIOES sequences each
   predicts.

Every run is one row (condition, seed, scores); ``summarize`` gives mean ± std per condition. ``run_all``
trains dozens of taggers, too slow for a page request: ``tools/run_tagging_experiments.py`` runs it and writes
the shipped results (``elmo_keras/data/tagging_experiments.json``) that the README and the page show.
"""

from __future__ import annotations

import platform
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from elmo_keras.data import frame_examples, ner_examples, pos_examples, tagging_unlabelled_sentences
from elmo_keras.data.packaged_results import packaged_results
from elmo_keras.models import train_bilm
from elmo_keras.tagging.config import TaggerConfig
from elmo_keras.tagging.evaluation import evaluate_tagger
from elmo_keras.tagging.training import train_multitask_tagger, train_taglm

SEEDS = (0, 1, 2, 3, 4)
LABELLED_NER_SENTENCES = 60  # "a small number of labelled sentences" for experiments 2 and 3
# 60 sentences are 4 batches an epoch: enough epochs that the tagger without biLM vectors converges too
SMALL_DATA_EPOCHS = 40
RESULTS_FILE = "tagging_experiments.json"
# the biLM that TagLM reads: word-level, trained on the unlabelled domain text only
BILM_SETTINGS = {"preset": "toy", "epochs": 8, "seed": 0}
Progress = Callable[[str], None]


def multitask_experiment(seeds: Sequence[int] = SEEDS, config: TaggerConfig | None = None,
                         progress: Progress | None = None) -> pd.DataFrame:
    """Frame tagging alone vs. with POS tagging: one row per (condition, seed) with held-out accuracy, label F1.

    Args:
        seeds: one run per seed and condition. Defaults to ``SEEDS``.
        config: the taggers' ``TaggerConfig``. Defaults to None (``TaggerConfig()``).
        progress: ``fn(message)`` called before each run. Defaults to None.
    """

    rows = []
    for seed in seeds:
        for condition, tasks in (("frames only", {"frame": frame_examples("train")}),
                                 ("frames + POS", {"pos": pos_examples("train"), "frame": frame_examples("train")})):
            _report(progress, f"multi-task: {condition}, seed {seed}")
            model = train_multitask_tagger(tasks, config=config, seed=seed)
            scores = evaluate_tagger(model, "frame", frame_examples("heldout"))
            rows.append({"condition": condition, "seed": seed, **scores})
    return pd.DataFrame(rows)


def train_domain_bilm(settings: dict | None = None):
    """The biLM of experiment 2: trained on ``tagging_unlabelled_sentences`` only (no labels).

    Args:
        settings: entries replacing ``BILM_SETTINGS`` (``preset``, ``epochs``, ``seed``). Defaults to None.
    """

    settings = {**BILM_SETTINGS, **(settings or {})}
    return train_bilm(tagging_unlabelled_sentences(), size=settings["preset"], epochs=settings["epochs"],
                      seed=settings["seed"])


def labelled_subset(seed: int, labelled: int | None):
    """The first ``labelled`` NER training sentences of a shuffle seeded by ``seed``.

    Args:
        seed: int, seeds the shuffle.
        labelled: int, how many sentences; None returns all of them, in file order.
    """

    train = ner_examples("train")
    if labelled is None:
        return train
    return [train[i] for i in np.random.default_rng(seed).permutation(len(train))[:labelled]]


def taglm_experiment(bilm, seeds: Sequence[int] = SEEDS, labelled: int = LABELLED_NER_SENTENCES,
                     config: TaggerConfig | None = None, progress: Progress | None = None) -> pd.DataFrame:
    """TagLM with vs. without the frozen ``bilm``'s vectors, trained on ``labelled_subset(seed, labelled)``:
    one row per (condition, seed) with held-out span F1 and accuracy.

    Args:
        bilm: the frozen biLM (``train_domain_bilm()``).
        seeds, progress: as for ``multitask_experiment``.
        labelled: int, labelled sentences per run. Defaults to ``LABELLED_NER_SENTENCES``.
        config: defaults to None (``TaggerConfig(bilm_mode="top", epochs=SMALL_DATA_EPOCHS)``).
    """

    config = config or TaggerConfig(bilm_mode="top", epochs=SMALL_DATA_EPOCHS)
    rows = []
    for seed in seeds:
        subset = labelled_subset(seed, labelled)
        for condition, lm in (("without biLM", None), ("with biLM", bilm)):
            _report(progress, f"TagLM: {condition}, seed {seed}")
            model = train_taglm(subset, bilm=lm, config=config, seed=seed)
            rows.append({"condition": condition, "seed": seed, "labelled_sentences": len(subset),
                         **evaluate_tagger(model, "ner", ner_examples("heldout"), scheme="BIOES")})
    return pd.DataFrame(rows)


def crf_experiment(seeds: Sequence[int] = SEEDS, sizes: Sequence[int | None] = (LABELLED_NER_SENTENCES, None),
                   progress: Progress | None = None) -> pd.DataFrame:
    """The same BiLSTM tagger (TagLM without biLM vectors) with a per-token softmax vs. a BIOES-constrained CRF,
    on ``labelled_subset(seed, size)`` for each size (None: all training sentences): one row per
    (head, size, seed) with span F1 and the invalid sequences predicted on the held-out sentences.

    Args:
        seeds, progress: as for ``multitask_experiment``.
        sizes: labelled sentences per run, None for all. Defaults to ``(LABELLED_NER_SENTENCES, None)``.
    """

    rows = []
    for size in sizes:
        config = TaggerConfig(bilm_mode="top", epochs=SMALL_DATA_EPOCHS if size else TaggerConfig().epochs)
        for seed in seeds:
            subset = labelled_subset(seed, size)
            for head in ("softmax", "crf"):
                _report(progress, f"CRF vs softmax: {head}, {len(subset)} sentences, seed {seed}")
                model = train_taglm(subset, head=head, config=config, seed=seed)
                rows.append({"condition": f"{head}, {len(subset)} sentences", "head": head, "seed": seed,
                             "labelled_sentences": len(subset),
                             **evaluate_tagger(model, "ner", ner_examples("heldout"), scheme="BIOES")})
    return pd.DataFrame(rows)


def summarize(rows: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """Mean and (sample) standard deviation of ``columns`` per condition, in the order conditions first appear.

    Args:
        rows: an experiment's rows (a ``"condition"`` column and score columns).
        columns: the score columns to summarise.

    Returns:
        One row per condition, a ``(column, "mean" | "std")`` column pair per score.
    """
    order = list(dict.fromkeys(rows["condition"]))
    grouped = rows.groupby("condition", sort=False)[list(columns)].agg(["mean", "std"])
    return grouped.loc[order]


def run_all(seeds: Sequence[int] = SEEDS, progress: Progress | None = None) -> dict:
    """Every experiment; the dict that ``RESULTS_FILE`` holds (rows as records, plus how they were made).

    Args:
        seeds, progress: as for ``multitask_experiment``.
    """
    _report(progress, "training the domain biLM on unlabelled text")
    bilm = train_domain_bilm()
    return {
        "seeds": list(seeds),
        "machine": platform.processor() or platform.machine(),
        "bilm": {**BILM_SETTINGS, "train_perplexity": bilm.training_summary["train"]},
        "multitask": multitask_experiment(seeds, progress=progress).to_dict("records"),
        "taglm": taglm_experiment(bilm, seeds, progress=progress).to_dict("records"),
        "crf": crf_experiment(seeds, progress=progress).to_dict("records"),
    }


def shipped_results() -> dict | None:
    """The results written by ``tools/run_tagging_experiments.py`` into the package (None if absent)."""
    return packaged_results(RESULTS_FILE)


def _report(progress: Progress | None, message: str) -> None:
    if progress is not None:
        progress(message)
