"""What the PCA page draws (``ProjectionView``), and its JSON form for ``store``.

No Keras, TensorFlow or scikit-learn here: a stored view is read and drawn before any of them is imported.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from elmo_keras.explorer.result_cache import frame_from_json, frame_to_json


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


def view_to_json(view: ProjectionView) -> dict:
    """``view`` as a JSON-ready dict (``view_from_json`` reads it back; floats round-trip exactly)."""
    return {"word": view.word, "n_components": int(view.n_components), "points": frame_to_json(view.points),
            "variance": frame_to_json(view.variance), "senses_in_order": list(view.senses_in_order),
            "collapsed_layers": [int(layer) for layer in view.collapsed_layers],
            "rejected_typed": list(view.rejected_typed), "unknown_note": view.unknown_note}


def view_from_json(data: dict) -> ProjectionView:
    """The view ``view_to_json`` wrote. Raises ``KeyError``/``TypeError``/``ValueError`` on anything else."""
    return ProjectionView(
        word=str(data["word"]), n_components=int(data["n_components"]),
        points=frame_from_json(data["points"]), variance=frame_from_json(data["variance"]),
        senses_in_order=[str(s) for s in data["senses_in_order"]],
        collapsed_layers=[int(layer) for layer in data["collapsed_layers"]],
        rejected_typed=[str(s) for s in data["rejected_typed"]],
        unknown_note=None if data["unknown_note"] is None else str(data["unknown_note"]),
    )
