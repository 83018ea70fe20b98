"""Run the text-classification experiments and write ``elmo_keras/data/classifier_experiments.json`` (the README
and the Classification page show it).

Usage::

    python tools/run_classifier_experiments.py [--seeds 0 1 2 3 4] [--out elmo_keras/data/classifier_experiments.json]

For every seed, on the toy sentiment corpus (``elmo_keras.data.sentiment``), trains the CNN, the BiLSTM reading its
last states (``rnn-last``) and the BiLSTM max-pooled over its states (``rnn-pooled``) with ``ClassifierConfig``'s
defaults, twice: on the whole training split (1,152 sentences) and on a random ``SMALL_TRAIN`` of them (the same
subset for every model of a seed, more epochs). Held-out accuracy (overall and per sentence pattern) and training
seconds go into one row per run. A bag-of-words logistic regression (scikit-learn, word counts) is the baseline
that cannot see word order: on the ``contrast`` pattern ("good , not bad" vs "bad , not good") it is at chance.
Deterministic for the same seeds on the same machine (the CPU is recorded in the file, with the package version,
optimizer and backend that made it: ``models.provenance``).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import random
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402
from sklearn.feature_extraction.text import CountVectorizer  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402

from elmo_keras.data.sentiment import load_sentiment, sentiment_patterns  # noqa: E402
from elmo_keras.explorer.classification.views import EXPERIMENTS_FILE, experiment_table  # noqa: E402
from elmo_keras.models.classifiers import KINDS, evaluate_classifier, train_text_classifier  # noqa: E402
from elmo_keras.models.provenance import cpu_name, experiment_provenance  # noqa: E402

SEEDS = (0, 1, 2, 3, 4)
SMALL_TRAIN = 128  # sentences in the small-data condition (4 batches of 32)
SMALL_TRAIN_EPOCHS = 40


def bag_of_words_row(sentences, labels, seed: int, condition: str) -> dict:
    """Held-out accuracy of a logistic regression on word counts (no word order)."""
    heldout, heldout_labels, _ = load_sentiment("heldout")
    vectorizer = CountVectorizer(analyzer=lambda tokens: tokens)
    started = time.perf_counter()
    model = LogisticRegression(max_iter=2000, random_state=seed).fit(vectorizer.fit_transform(sentences), labels)
    seconds = time.perf_counter() - started
    hits = model.predict(vectorizer.transform(heldout)) == np.array(heldout_labels)
    patterns = np.array(sentiment_patterns("heldout"))
    return {"model": "bag-of-words", "condition": condition, "seed": seed, "accuracy": float(hits.mean()),
            "by_pattern": {p: float(hits[patterns == p].mean()) for p in dict.fromkeys(patterns)},
            "train_seconds": round(seconds, 2)}


def run(seeds, progress) -> list[dict]:
    rows = []
    sentences, labels, names = load_sentiment("train")
    for seed in seeds:
        subset = sorted(random.Random(f"small train {seed}").sample(range(len(sentences)), SMALL_TRAIN))
        conditions = {"all": (sentences, labels, {}),
                      f"{SMALL_TRAIN} sentences": ([sentences[i] for i in subset], [labels[i] for i in subset],
                                                   {"epochs": SMALL_TRAIN_EPOCHS})}
        for condition, (train_sentences, train_labels, overrides) in conditions.items():
            for kind in KINDS:
                progress(f"{kind}, {condition}, seed {seed}")
                model = train_text_classifier(train_sentences, train_labels, kind=kind, class_names=names, seed=seed,
                                              **overrides)
                scores = evaluate_classifier(model)
                rows.append({"model": kind, "condition": condition, "seed": seed, "accuracy": scores["accuracy"],
                             "by_pattern": scores["by_pattern"],
                             "train_seconds": model.training_summary["train_seconds"]})
            rows.append(bag_of_words_row(train_sentences, train_labels, seed, condition))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS))
    parser.add_argument("--out", type=pathlib.Path, default=REPO / "elmo_keras" / "data" / EXPERIMENTS_FILE)
    args = parser.parse_args()
    started = time.perf_counter()
    rows = run(args.seeds, lambda message: print(f"[{time.perf_counter() - started:6.0f} s] {message}", flush=True))
    results = {"seeds": list(args.seeds), "small_train": SMALL_TRAIN, "small_train_epochs": SMALL_TRAIN_EPOCHS,
               "runs": rows, "machine": cpu_name(), "seconds": round(time.perf_counter() - started),
               "provenance": experiment_provenance()}
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(experiment_table(results).to_string(index=False))
    print(f"\nwrote {args.out} ({results['seconds']} s on {results['machine']})")


if __name__ == "__main__":
    main()
