"""PCA of one word's occurrences, fitted separately in every layer (``analysis.pca_per_layer``).

The view it returns is ``view.ProjectionView`` (kept on disk by ``store``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from elmo_keras.analysis.similarity import pca_per_layer
from elmo_keras.explorer.occurrences import ordered_occurrences
from elmo_keras.explorer.projection.view import ProjectionView

__all__ = ["ProjectionView", "pca_view"]
from elmo_keras.explorer.similarity.service import one_vector_layers


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
