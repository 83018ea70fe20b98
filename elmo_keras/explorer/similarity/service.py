"""Context similarity of one word: per-layer cosine-similarity matrices between its occurrences, and a summary.

``context_similarity`` is the similarity page's one service call. Matrices cover a display subset (at most
``per_sense`` occurrences of each sense, typed sentences always included); the summary table uses every
labelled occurrence: mean similarity within a sense vs across senses, and held-out sense-separation
accuracy (nearest sense centroid, centroids from training occurrences). Where a measure cannot be computed (a
word without sense labels, with one sense, or with no labelled held-out occurrence), ``summary_note`` says why.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from elmo_keras.analysis.senses import TYPED, UNLABELLED, sense_separation
from elmo_keras.analysis.similarity import cosine_similarity_matrices, within_across_similarity
from elmo_keras.explorer.corpus import labelled_words
from elmo_keras.explorer.occurrences import ordered_occurrences, subsample_per_sense
from elmo_keras.explorer.similarity.view import DEFAULT_PER_SENSE, SUMMARY_MEASURES, SimilarityView

__all__ = ["DEFAULT_PER_SENSE", "SUMMARY_MEASURES", "SimilarityView", "context_similarity", "one_vector_layers"]

ONE_VECTOR_TOLERANCE = 1e-6  # vectors differing by less than this × the layer's largest entry are one vector


def one_vector_layers(embeddings: np.ndarray) -> list[int]:
    """Layers of `(L, n, dim)` embeddings in which all ``n >= 2`` occurrences have the same vector.

    The vectors themselves are compared (in float64, relative to the layer's largest entry): a variance or a
    cosine similarity accumulated over hundreds of float32 vectors carries rounding noise of its own, so a
    threshold on it misses bit-identical vectors of a frequent word, or takes merely parallel vectors for one.
    """
    embeddings = np.asarray(embeddings, dtype=np.float64)
    if embeddings.shape[1] < 2:
        return []
    layers = []
    for layer, vectors in enumerate(embeddings):
        scale = float(np.abs(vectors).max())
        if float(np.abs(vectors - vectors[0]).max()) <= ONE_VECTOR_TOLERANCE * scale:
            layers.append(layer)
    return layers


def _blocks(senses) -> list[tuple[str, int, int]]:
    blocks, start = [], 0
    for i in range(1, len(senses) + 1):
        if i == len(senses) or senses[i] != senses[start]:
            blocks.append((senses[start], start, i))
            start = i
    return blocks


def _summary(embeddings: np.ndarray, occurrences) -> pd.DataFrame:
    senses = np.asarray(occurrences.senses)
    labelled = (senses != UNLABELLED) & (senses != TYPED)
    num_layers = embeddings.shape[0]
    within = across = np.full(num_layers, np.nan)
    if labelled.sum() >= 2:
        within, across = within_across_similarity(cosine_similarity_matrices(embeddings[:, labelled]), senses[labelled])
    return pd.DataFrame({
        "layer": np.arange(num_layers),
        "within_sense": within,
        "across_senses": across,
        "gap": within - across,
        "heldout_accuracy": sense_separation(occurrences),
    })


def _summary_note(word: str, senses, summary: pd.DataFrame, labelled_in_corpus: list[str]) -> str | None:
    """Why the summary (or part of it) is missing, in words; None when every measure has a value."""
    labelled = [s for s in senses if s not in (UNLABELLED, TYPED)]
    if not labelled:
        if labelled_in_corpus:
            shown = ", ".join(labelled_in_corpus[:6]) + (", …" if len(labelled_in_corpus) > 6 else "")
            hint = f"pick a word the corpus labels ({shown})"
        else:
            hint = "this corpus labels no word at all (a TSV upload with word and sense columns adds labels)"
        return (f"No occurrence of '{word}' has a sense label, so there is no within- or across-sense similarity "
                f"and no held-out sense separation to compute: {hint}. The matrices above still show how similar its "
                "occurrences are.")
    distinct = sorted(set(labelled))
    if len(distinct) < 2:
        counted = ("The only sense-labelled occurrence" if len(labelled) == 1
                   else f"All {len(labelled)} sense-labelled occurrences")
        return (f"{counted} of '{word}' {'has' if len(labelled) == 1 else 'have'} the sense '{distinct[0]}', so "
                "similarity across senses and held-out sense separation cannot be computed (they need two senses).")
    if summary["heldout_accuracy"].isna().all():
        return (f"Held-out sense separation cannot be computed for '{word}': it needs sense-labelled occurrences in "
                "the held-out split and at least two senses among those in the training split.")
    return None


def _findings(word: str, summary: pd.DataFrame, constant_layers: list, unknown_note: str | None = None) -> list[str]:
    findings = [unknown_note] if unknown_note else []
    for layer in constant_layers:
        findings.append(f"Layer {layer}: every occurrence of '{word}' has the same vector "
                        "(similarity 1.00 everywhere) — it is the context-free word embedding.")
    rows = summary.dropna(subset=["gap"])
    if len(rows) >= 2:
        first, last = rows.iloc[0], rows.iloc[-1]
        first_gap, last_gap = round(float(first.gap), 3) + 0.0, round(float(last.gap), 3) + 0.0  # no "-0.000"
        trend = "grows" if last_gap > first_gap else "does not grow"
        findings.append(
            f"Within-sense minus across-sense similarity {trend} from {first_gap:+.3f} (layer {int(first.layer)}) "
            f"to {last_gap:+.3f} (layer {int(last.layer)}); mean similarity across senses goes from "
            f"{first.across_senses:.2f} to {last.across_senses:.2f}."
        )
    accuracy = summary.dropna(subset=["heldout_accuracy"])
    if len(accuracy):
        best = accuracy.loc[accuracy["heldout_accuracy"].idxmax()]
        findings.append(f"Held-out sense separation is best in layer {int(best.layer)} "
                        f"({best.heldout_accuracy:.0%} of held-out occurrences closest to their own sense's centroid).")
    return findings


def context_similarity(model, corpus: pd.DataFrame, word: str, typed_text: str = "",
                       per_sense: int | None = DEFAULT_PER_SENSE) -> SimilarityView:
    """Per-layer similarity matrices and summary for ``word`` (see the module docstring).

    Args:
        model: a trained ``BiLanguageModel``.
        corpus: the working corpus.
        word: the word to follow (case-insensitive).
        typed_text: extra sentences, one per line (``occurrences.ordered_occurrences``). Defaults to ``""``.
        per_sense: int, occurrences of each sense shown in the matrices, or None for all. Defaults to
            ``DEFAULT_PER_SENSE``.

    Raises:
        ValueError: no word, or the word occurs neither in the corpus nor in a typed line.
    """
    ordered = ordered_occurrences(model, corpus, word, typed_text)
    occurrences = ordered.occurrences
    shown = subsample_per_sense(occurrences.senses, per_sense)
    matrices = cosine_similarity_matrices(occurrences.embeddings[:, shown])
    constant = one_vector_layers(occurrences.embeddings)
    senses = [occurrences.senses[i] for i in shown]
    snippets = ordered.snippets()
    summary = _summary(occurrences.embeddings, occurrences)
    return SimilarityView(
        word=occurrences.word,
        matrices=matrices,
        senses=senses,
        labels=[f"{occurrences.senses[i]} · {snippets[i]}" for i in shown],
        sentences=[" ".join(occurrences.sentences[i]) for i in shown],
        blocks=_blocks(senses),
        summary=summary,
        total=ordered.count,
        labelled=int(sum(s not in (UNLABELLED, TYPED) for s in occurrences.senses)),
        constant_layers=constant,
        rejected_typed=ordered.rejected_typed,
        findings=_findings(occurrences.word, summary, constant, ordered.unknown_note),
        summary_note=_summary_note(occurrences.word, occurrences.senses, summary, labelled_words(corpus)),
    )
