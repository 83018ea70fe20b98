"""Cosine similarity, PCA and sense separation over per-layer word vectors.

All functions take ``embeddings`` shaped `(num_layers, n, dim)` (as ``layer_embeddings`` returns) and work
layer by layer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.decomposition import PCA

_EPS = 1e-12


def cosine_similarity_matrices(embeddings: np.ndarray) -> np.ndarray:
    """`(L, n, dim)` → float64 `(L, n, n)` cosine similarities; a zero vector has similarity 0 to everything.

    Raises:
        ValueError: ``embeddings`` is not 3-D.
    """
    embeddings = np.asarray(embeddings, dtype=np.float64)
    if embeddings.ndim != 3:
        raise ValueError(f"embeddings must be (num_layers, n, dim), received shape {embeddings.shape}")
    norms = np.linalg.norm(embeddings, axis=-1, keepdims=True)
    unit = embeddings / np.maximum(norms, _EPS)
    return np.einsum("lid,ljd->lij", unit, unit)


@dataclass(frozen=True)
class LayerProjection:
    """A 2-D (or 3-D) PCA projection of one layer's vectors (all zero for a layer without variance)."""

    layer: int
    coordinates: np.ndarray  # (n, n_components)
    explained_variance_ratio: np.ndarray  # (n_components,)


def pca_per_layer(embeddings: np.ndarray, n_components: int = 2, seed: int = 0) -> list[LayerProjection]:
    """Fit a separate PCA to every layer's vectors (scikit-learn, deterministic solver).

    Each component's sign is fixed (its largest coordinate is positive) so the picture does not flip between
    runs; a layer where every vector is the same gets zeros.

    Args:
        embeddings: `(num_layers, n, dim)`.
        n_components: int, the dimensions kept (padded with zeros where ``n`` or ``dim`` is smaller). Defaults
            to 2.
        seed: int, PCA's ``random_state``. Defaults to 0.

    Returns:
        One ``LayerProjection`` per layer: coordinates `(n, n_components)`, ratios `(n_components,)`.

    Raises:
        ValueError: ``embeddings`` is not 3-D, or ``n < 2``.
    """
    embeddings = np.asarray(embeddings, dtype=np.float64)
    if embeddings.ndim != 3:
        raise ValueError(f"embeddings must be (num_layers, n, dim), received shape {embeddings.shape}")
    n = embeddings.shape[1]
    if n < 2:
        raise ValueError(f"PCA needs at least 2 occurrences, received {n}")
    k = min(n_components, n, embeddings.shape[2])
    projections = []
    for layer, vectors in enumerate(embeddings):
        if np.allclose(vectors, vectors[0], rtol=0.0, atol=1e-7):
            # one vector for every occurrence (layer 0 of a word-level model): no variance to project
            projections.append(LayerProjection(layer, np.zeros((n, n_components)), np.zeros(n_components)))
            continue
        pca = PCA(n_components=k, svd_solver="full", random_state=seed)
        coordinates = pca.fit_transform(vectors)
        ratio = pca.explained_variance_ratio_
        # Fix the sign of each component so the picture does not flip between runs or platforms.
        signs = np.sign(coordinates[np.argmax(np.abs(coordinates), axis=0), range(k)])
        coordinates = coordinates * np.where(signs == 0, 1.0, signs)
        if k < n_components:
            coordinates = np.pad(coordinates, ((0, 0), (0, n_components - k)))
            ratio = np.pad(ratio, (0, n_components - k))
        projections.append(LayerProjection(layer, coordinates, ratio))
    return projections


def within_across_similarity(similarities: np.ndarray, senses) -> tuple[np.ndarray, np.ndarray]:
    """Mean similarity between different occurrences of the same sense, and across senses, per layer.

    Args:
        similarities: `(L, n, n)`.
        senses: `n` sense labels.

    Returns:
        ``(within, across)``: two `(L,)` arrays (NaN where no such pair exists).
    """
    senses = np.asarray(senses)
    same = senses[:, None] == senses[None, :]
    off_diagonal = ~np.eye(len(senses), dtype=bool)
    within_pairs, across_pairs = same & off_diagonal, ~same
    within = np.array([s[within_pairs].mean() if within_pairs.any() else np.nan for s in similarities])
    across = np.array([s[across_pairs].mean() if across_pairs.any() else np.nan for s in similarities])
    return within, across


def nearest_centroid_accuracy(train_embeddings, train_senses, test_embeddings, test_senses) -> np.ndarray:
    """Per-layer accuracy of classifying each test vector by its most cosine-similar sense centroid.

    Centroids are the means of the (unit-normalised) training vectors of each sense. When every centroid is
    equally similar (e.g. layer 0 of a word-level model, where all occurrences share one vector) the
    prediction is a tie and counts as wrong, so such a layer scores 0 rather than a lucky guess.

    Args:
        train_embeddings: `(L, n_train, dim)`; train_senses: `n_train` labels.
        test_embeddings: `(L, n_test, dim)`; test_senses: `n_test` labels.

    Returns:
        `(L,)` accuracies.

    Raises:
        ValueError: the training labels hold fewer than 2 senses.
    """
    train_senses, test_senses = np.asarray(train_senses), np.asarray(test_senses)
    labels = sorted(set(train_senses.tolist()))
    if len(labels) < 2:
        raise ValueError(f"need training occurrences of at least 2 senses, received {labels}")

    def unit(x):
        x = np.asarray(x, dtype=np.float64)
        return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), _EPS)

    train, test = unit(train_embeddings), unit(test_embeddings)
    accuracies = []
    for layer in range(train.shape[0]):
        centroids = unit(np.stack([train[layer][train_senses == label].mean(axis=0) for label in labels]))
        scores = test[layer] @ centroids.T  # (n_test, senses)
        best = scores.max(axis=1, keepdims=True)
        unique_best = (np.isclose(scores, best, rtol=0, atol=1e-6)).sum(axis=1) == 1
        predicted = np.asarray(labels)[scores.argmax(axis=1)]
        accuracies.append(float(np.mean((predicted == test_senses) & unique_best)))
    return np.array(accuracies)
