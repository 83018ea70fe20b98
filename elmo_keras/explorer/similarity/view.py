"""What the context-similarity page draws (``SimilarityView``), and its JSON form for ``store``.

No Keras or TensorFlow here: a stored view is read and drawn before either is imported.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from elmo_keras.data.polysemy import TYPED
from elmo_keras.explorer.result_cache import array_from_json, array_to_json, frame_from_json, frame_to_json

DEFAULT_PER_SENSE = 12
SUMMARY_MEASURES = ["within_sense", "across_senses", "gap", "heldout_accuracy"]


@dataclass(frozen=True)
class SimilarityView:
    """Everything the similarity page draws.

    Attributes:
        word: the word followed.
        matrices: `(num_layers, m, m)` cosine similarities of the shown occurrences, ordered by sense.
        senses, labels, sentences: per shown occurrence: its sense, a tick label ("sense · …snippet…"), the
            full sentence (for hover).
        blocks: ``[(sense, start, stop)]`` row ranges of each sense in the matrices.
        summary: one row per layer: ``layer, within_sense, across_senses, gap, heldout_accuracy``.
        total, labelled: number of occurrences found / with a sense label.
        constant_layers: layers where every occurrence has the same vector (similarity 1 everywhere).
        rejected_typed: typed lines that do not contain the word.
        findings: sentences stating what the numbers show (computed, not written in advance).
        summary_note: why (part of) the summary cannot be computed, e.g. the word has no sense labels; else None.
    """

    word: str
    matrices: np.ndarray
    senses: list
    labels: list
    sentences: list
    blocks: list
    summary: pd.DataFrame
    total: int
    labelled: int
    constant_layers: list
    rejected_typed: list
    findings: list
    summary_note: str | None = None

    @property
    def num_layers(self) -> int:
        return int(self.matrices.shape[0])

    @property
    def typed_shown(self) -> int:
        """How many of the shown occurrences are in typed sentences (sense ``TYPED``)."""
        return sum(sense == TYPED for sense in self.senses)

    @property
    def has_summary(self) -> bool:
        """Whether any summary number could be computed (False for a word without sense labels)."""
        return bool(np.isfinite(self.summary[SUMMARY_MEASURES].to_numpy(dtype=float)).any())

    @property
    def computed_summary(self) -> pd.DataFrame:
        """The summary without the columns that have no value in any layer (shown as a table)."""
        return self.summary.dropna(axis="columns", how="all")


def view_to_json(view: SimilarityView) -> dict:
    """``view`` as a JSON-ready dict (``view_from_json`` reads it back; floats round-trip exactly)."""
    return {
        "word": view.word,
        "matrices": array_to_json(view.matrices),
        "senses": list(view.senses), "labels": list(view.labels), "sentences": list(view.sentences),
        "blocks": [[sense, int(start), int(stop)] for sense, start, stop in view.blocks],
        "summary": frame_to_json(view.summary),
        "total": int(view.total), "labelled": int(view.labelled),
        "constant_layers": [int(layer) for layer in view.constant_layers],
        "rejected_typed": list(view.rejected_typed), "findings": list(view.findings),
        "summary_note": view.summary_note,
    }


def view_from_json(data: dict) -> SimilarityView:
    """The view ``view_to_json`` wrote. Raises ``KeyError``/``TypeError``/``ValueError`` on anything else."""
    summary = frame_from_json(data["summary"])
    return SimilarityView(
        word=str(data["word"]),
        matrices=array_from_json(data["matrices"]),
        senses=[str(s) for s in data["senses"]], labels=[str(s) for s in data["labels"]],
        sentences=[str(s) for s in data["sentences"]],
        blocks=[(str(sense), int(start), int(stop)) for sense, start, stop in data["blocks"]],
        summary=summary, total=int(data["total"]), labelled=int(data["labelled"]),
        constant_layers=[int(layer) for layer in data["constant_layers"]],
        rejected_typed=[str(s) for s in data["rejected_typed"]], findings=[str(s) for s in data["findings"]],
        summary_note=None if data["summary_note"] is None else str(data["summary_note"]),
    )
