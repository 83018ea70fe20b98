"""LSTM vs transformer, side by side: per layer, how well each biLM's vectors separate the senses of the corpus's
ambiguous target words (``data.TARGET_WORDS``).

``compare_contextualizers`` is the page's one service call. For every model and target word it embeds the word's
sense-labelled occurrences once (``analysis.word_occurrences``) and reports per layer what the Context similarity page
reports for one word:

- **held-out sense separation** (``analysis.sense_separation``): the held-out split's occurrences classified by their
  nearest sense centroid, the centroids from the training split's (a tie, as in a context-free layer, is wrong);
- **within vs across**: the mean cosine similarity of two occurrences with the same sense and with different senses
  (``analysis.similarity.within_across_similarity``), and their gap;
- **a spread over held-out splits**: the same nearest-centroid accuracy over ``RESPLITS`` re-drawn splits of the
  labelled occurrences (as many held-out occurrences per sense as the corpus's split holds), the same splits for
  every model, so that two models' accuracies compare split by split.

The re-drawn splits take sentences the biLMs read as language-model text (never with their senses), and each model is
one training run: the spread says how much the number depends on which sentences are held out, not on the seed.
``findings`` state what the numbers show, computed from them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from elmo_keras.analysis.senses import TYPED, UNLABELLED, sense_separation, word_occurrences
from elmo_keras.analysis.similarity import (
    cosine_similarity_matrices,
    nearest_centroid_accuracy,
    within_across_similarity,
)
from elmo_keras.data import TARGET_WORDS

RESPLITS = 20  # re-drawn held-out splits per word (each costs one nearest-centroid fit per layer: milliseconds)
SPLIT_SEED = 0
MOSTLY = 0.75  # a model ahead in at least this share of the splits "leads"; below it, the split decides
TABLE_COLUMNS = ["model", "word", "layer", "within_sense", "across_senses", "gap", "heldout_accuracy",
                 "resplit_mean", "resplit_low", "resplit_high"]


@dataclass(frozen=True)
class ContextualizerComparison:
    """What the page draws.

    Attributes:
        by_word: one row per model, word and layer (``TABLE_COLUMNS``); ``resplit_low``/``resplit_high`` are the
            lowest and highest accuracy over the re-drawn splits.
        summary: one row per model and layer, the words' mean of each column (the re-drawn splits averaged over the
            words split by split before their mean, lowest and highest are taken).
        num_layers: ``{model: 1 + its contextual layers}``, read from the model.
        parameters: ``{model: its parameter count}`` (softmax included).
        heldout_occurrences: labelled held-out occurrences of the words together (the corpus's split).
        resplits: the number of re-drawn splits.
        findings: sentences stating what the numbers show.
    """

    by_word: pd.DataFrame
    summary: pd.DataFrame
    num_layers: dict
    parameters: dict
    heldout_occurrences: int
    resplits: int
    findings: list


def _labelled(occurrences) -> np.ndarray:
    senses = np.asarray(occurrences.senses)
    return (senses != UNLABELLED) & (senses != TYPED)


def resplit_accuracies(occurrences, resplits: int = RESPLITS, seed: int = SPLIT_SEED) -> np.ndarray:
    """Nearest-centroid accuracy per re-drawn split and layer: `(resplits, num_layers)`.

    Each split holds out, of every sense, as many labelled occurrences as the corpus's held-out split does (at least
    one), drawn at random (``seed``: the same splits for every model given the same occurrences); the rest are the
    centroids' training occurrences.
    """
    labelled = _labelled(occurrences)
    senses, splits = np.asarray(occurrences.senses)[labelled], np.asarray(occurrences.splits)[labelled]
    embeddings = occurrences.embeddings[:, labelled]
    rng = np.random.default_rng(seed)
    held_out_counts = {sense: max(1, int(np.sum((senses == sense) & (splits == "heldout"))))
                       for sense in sorted(set(senses))}
    accuracies = []
    for _ in range(resplits):
        test = np.zeros(len(senses), dtype=bool)
        for sense, count in held_out_counts.items():
            test[rng.permutation(np.flatnonzero(senses == sense))[:count]] = True
        accuracies.append(nearest_centroid_accuracy(embeddings[:, ~test], senses[~test], embeddings[:, test],
                                                    senses[test]))
    return np.array(accuracies)


def word_rows(name: str, occurrences, resplit: np.ndarray) -> pd.DataFrame:
    """One row per layer for one model and word (``TABLE_COLUMNS``)."""
    labelled = _labelled(occurrences)
    similarities = cosine_similarity_matrices(occurrences.embeddings[:, labelled])
    within, across = within_across_similarity(similarities, np.asarray(occurrences.senses)[labelled])
    return pd.DataFrame({
        "model": name, "word": occurrences.word, "layer": np.arange(occurrences.embeddings.shape[0]),
        "within_sense": within, "across_senses": across, "gap": within - across,
        "heldout_accuracy": sense_separation(occurrences),
        "resplit_mean": resplit.mean(axis=0), "resplit_low": resplit.min(axis=0), "resplit_high": resplit.max(axis=0),
    })


def compare_contextualizers(models: Mapping[str, object], corpus: pd.DataFrame,
                            words: Sequence[str] = TARGET_WORDS, resplits: int = RESPLITS,
                            seed: int = SPLIT_SEED) -> ContextualizerComparison:
    """Per-layer sense separation and within-vs-across similarity of every model (see the module docstring).

    Args:
        models: ``{label: trained BiLanguageModel}`` (e.g. ``{"LSTM": ..., "transformer": ...}``), in display order.
        corpus: a corpus with ``load_polysemy()``'s columns; only the rows labelling ``words`` are read.
        words: the sense-labelled words compared. Defaults to ``TARGET_WORDS``.
        resplits: int, re-drawn held-out splits per word. Defaults to ``RESPLITS``.
        seed: int, the splits' random draw. Defaults to ``SPLIT_SEED``.

    Raises:
        ValueError: fewer than two models, or a word with no held-out occurrence or fewer than two senses.
    """
    if len(models) < 2:
        raise ValueError(f"compare at least two models, received {list(models)}")
    frames, summaries, num_layers, heldout = [], [], {}, 0
    for name, model in models.items():
        per_split, rows = [], []
        for word in words:
            occurrences = word_occurrences(model, word, corpus[(corpus.word == word) & (corpus.target_index >= 0)])
            separation = sense_separation(occurrences)
            if np.isnan(separation).all():
                raise ValueError(f"'{word}' needs sense-labelled held-out occurrences and two senses in training")
            resplit = resplit_accuracies(occurrences, resplits, seed)
            rows.append(word_rows(name, occurrences, resplit))
            per_split.append(resplit)
            if name == next(iter(models)):
                heldout += int(np.sum(_labelled(occurrences) & (np.asarray(occurrences.splits) == "heldout")))
        by_word = pd.concat(rows, ignore_index=True)
        mean_split = np.mean(per_split, axis=0)  # (resplits, layers): the words' mean accuracy in each split
        summary = by_word.groupby("layer", sort=True)[["within_sense", "across_senses", "gap", "heldout_accuracy"]] \
            .mean().reset_index()
        summary.insert(0, "model", name)
        summary["resplit_mean"] = mean_split.mean(axis=0)
        summary["resplit_low"], summary["resplit_high"] = mean_split.min(axis=0), mean_split.max(axis=0)
        frames.append(by_word)
        summaries.append((summary, mean_split))
        num_layers[name] = int(len(summary))
    summary = pd.concat([frame for frame, _ in summaries], ignore_index=True)
    parameters = {name: parameter_count(model) for name, model in models.items()}
    findings = comparison_findings(summary, {name: splits for name, (_, splits) in zip(models, summaries)}, heldout)
    findings.append("The models differ in size as well as in kind (" + ", ".join(
        f"the {name} {count:,} parameters" for name, count in parameters.items())
        + ", softmax included): these numbers compare these two trained models, not the architectures at one size.")
    return ContextualizerComparison(pd.concat(frames, ignore_index=True)[TABLE_COLUMNS], summary, num_layers,
                                    parameters, heldout, resplits, findings)


def parameter_count(model) -> int:
    """The number of weights of ``model`` (built by its first call; ``count_params`` wants a build of its own)."""
    return int(sum(np.prod(weight.shape) for weight in model.weights))


def best_layers(summary: pd.DataFrame) -> dict:
    """``{model: the layer with the highest held-out sense separation}`` (the lowest such layer on a tie)."""
    return {name: int(rows.loc[rows["heldout_accuracy"].idxmax(), "layer"])
            for name, rows in summary.groupby("model", sort=False)}


def comparison_findings(summary: pd.DataFrame, splits: Mapping[str, np.ndarray], heldout: int) -> list[str]:
    """What the numbers show: each model's best layer on the corpus's held-out split, the same layers over the
    re-drawn splits (how often one beats the other, split by split), and the within-vs-across gap there."""
    best = best_layers(summary)
    row = {name: summary[(summary.model == name) & (summary.layer == layer)].iloc[0] for name, layer in best.items()}
    names = list(best)
    findings = [
        f"On the corpus's held-out split ({heldout} sense-labelled occurrences of the target words) the best layer "
        + ", ".join(f"of the {name} is layer {best[name]} ({row[name].heldout_accuracy:.1%} closest to their own "
                    f"sense's centroid)" for name in names) + "; every layer 0 is the context-free word vector."
    ]
    first, second = names[0], names[1]
    a, b = splits[first][:, best[first]], splits[second][:, best[second]]
    wins, losses = int(np.sum(a > b)), int(np.sum(a < b))
    difference = float(a.mean() - b.mean())
    leader, trailer = (first, second) if difference >= 0 else (second, first)
    points = abs(difference) * 100  # percentage points of accuracy
    findings.append(
        f"Over {len(a)} re-drawn held-out splits those layers score {a.mean():.1%} (range {a.min():.1%}–{a.max():.1%}) "
        f"for the {first} and {b.mean():.1%} ({b.min():.1%}–{b.max():.1%}) for the {second}; the {first} is ahead in "
        f"{wins}, behind in {losses} and level in {len(a) - wins - losses} of them."
    )
    if max(wins, losses) == len(a):
        verdict = (f"The {leader} separates the senses better in every split, by {points:.1f} points on average: "
                   "on this corpus and these two trained models the difference is not an accident of the split.")
    elif max(wins, losses) >= MOSTLY * len(a):
        verdict = (f"The {leader} is ahead in most splits ({max(wins, losses)} of {len(a)}), by {points:.1f} points "
                   f"on average: a lead over the {trailer} that the choice of held-out sentences can reverse.")
    else:
        verdict = (f"The difference ({points:.1f} points in the {leader}'s favour on average) is within the spread "
                   "over held-out splits: these numbers do not show that either model separates the senses better.")
    findings.append(verdict + " Each model is one training run (seed 0): a spread over training seeds is not measured.")
    findings.append("Mean cosine similarity within a sense minus across senses at those layers: "
                    + ", ".join(f"{row[name].gap:+.3f} for the {name} ({row[name].within_sense:.2f} vs "
                                f"{row[name].across_senses:.2f})" for name in names)
                    + ". A larger gap means the occurrences of one sense sit closer together than those of two.")
    return findings
