"""PCA of one word's occurrences, fitted separately in every layer (``analysis.pca_per_layer``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from elmo_keras.analysis.similarity import pca_per_layer
from elmo_keras.explorer.occurrences import ordered_occurrences
from elmo_keras.explorer.similarity import one_vector_layers


@dataclass(frozen=True)
class ProjectionView:
    """Points and explained variance for the PCA page.

    Attributes:
        points: one row per (layer, occurrence): ``layer, x, y, z, sense, split, sentence``.
        variance: one row per layer: ``layer, PC1, PC2[, PC3], total`` (explained variance ratios).
        senses_in_order: legend order.
        collapsed_layers: layers where all occurrences share one vector (all points on top of each other).
        rejected_typed: typed lines that do not contain the word.
        unknown_note: set when a word-level model reads the word as ``<unk>`` (the page shows it).
    """

    word: str
    n_components: int
    points: pd.DataFrame
    variance: pd.DataFrame
    senses_in_order: list
    collapsed_layers: list
    rejected_typed: list
    unknown_note: str | None = None

    @property
    def num_layers(self) -> int:
        return int(self.variance.shape[0])


def pca_view(model, corpus: pd.DataFrame, word: str, typed_text: str = "", n_components: int = 2,
             seed: int = 0) -> ProjectionView:
    """Project ``word``'s occurrences to ``n_components`` (2 or 3) dimensions per layer.

    Args:
        model: a trained ``BiLanguageModel``.
        corpus: the working corpus.
        word: the word to follow (case-insensitive).
        typed_text: extra sentences, one per line (``occurrences.ordered_occurrences``). Defaults to ``""``.
        n_components: int, 2 or 3. Defaults to 2.
        seed: int, PCA's ``random_state``. Defaults to 0.

    Raises:
        ValueError: ``n_components`` not 2 or 3, no word, the word occurs nowhere, or fewer than 2 occurrences.
    """
    if n_components not in (2, 3):
        raise ValueError(f"n_components must be 2 or 3, received {n_components!r}")
    ordered = ordered_occurrences(model, corpus, word, typed_text)
    occurrences = ordered.occurrences
    if ordered.count < 2:
        raise ValueError(f"'{occurrences.word}' occurs only once; PCA needs at least 2 occurrences "
                         "(type more sentences).")
    projections = pca_per_layer(occurrences.embeddings, n_components=n_components, seed=seed)
    sentences = [" ".join(s) for s in occurrences.sentences]
    collapsed = one_vector_layers(occurrences.embeddings)
    frames, variance_rows = [], []
    for projection in projections:
        coords, ratios = projection.coordinates, projection.explained_variance_ratio
        if projection.layer in collapsed:  # one point: no rounding noise spread out as if it were variance
            coords, ratios = np.zeros_like(coords), np.zeros_like(ratios)
        frames.append(pd.DataFrame({
            "layer": projection.layer,
            "x": coords[:, 0],
            "y": coords[:, 1],
            "z": coords[:, 2] if n_components == 3 else 0.0,
            "sense": occurrences.senses,
            "split": occurrences.splits,
            "sentence": sentences,
        }))
        variance_rows.append({"layer": projection.layer, **{f"PC{i + 1}": float(r) for i, r in enumerate(ratios)},
                              "total": float(np.sum(ratios))})
    return ProjectionView(
        word=occurrences.word,
        n_components=n_components,
        points=pd.concat(frames, ignore_index=True),
        variance=pd.DataFrame(variance_rows),
        senses_in_order=ordered.senses_in_order,
        collapsed_layers=collapsed,
        rejected_typed=ordered.rejected_typed,
        unknown_note=ordered.unknown_note,
    )
