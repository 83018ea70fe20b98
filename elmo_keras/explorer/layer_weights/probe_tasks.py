"""Two toy downstream tasks on frozen biLM activations: POS tags (syntactic) and word sense (semantic).

The biLM is run once over the whole corpus (``corpus_activations``); each task then picks its examples:

* ``pos``: every token of a sentence with POS tags; its label is the tag. Train on ``train`` sentences,
  evaluate on ``heldout`` ones.
* ``sense``: the target word of every sense-labelled sentence; its label is ``word:sense`` (six classes on
  the built-in corpus).

Features are `(n, num_layers, 2 * dim)`: every layer's vector at the token.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from elmo_keras.analysis.embeddings import sentence_activations
from elmo_keras.analysis.layer_probes import ProbeTask, probe_task  # noqa: F401 (ProbeTask re-exported)

POS, SENSE = "pos", "sense"


def corpus_activations(model, corpus: pd.DataFrame) -> list[np.ndarray]:
    """Every layer's activations for every corpus sentence: one `(L, tokens, D)` array per row."""
    return sentence_activations(model, [list(t) for t in corpus["tokens"]])


def pos_task(corpus: pd.DataFrame, activations: list[np.ndarray]) -> ProbeTask:
    """Token-level POS tagging over sentences with one tag per token.

    Args:
        corpus: the working corpus.
        activations: ``corpus_activations(model, corpus)``, one `(L, tokens, D)` array per row.

    Raises:
        ValueError: no ``train`` or no ``heldout`` examples, or fewer than two training labels.
    """
    examples = [
        (row.split, layers.transpose(1, 0, 2), list(row.pos))  # (tokens, L, D)
        for row, layers in zip(corpus.itertuples(index=False), activations)
        if len(row.pos) == len(row.tokens) and len(row.pos) > 0
    ]
    return probe_task(POS, "POS tags", "syntactic", examples)


def sense_task(corpus: pd.DataFrame, activations: list[np.ndarray]) -> ProbeTask:
    """The sense of the target word in every labelled sentence (label ``word:sense``).

    Args and Raises as ``pos_task``.
    """
    examples = [
        (row.split, layers[:, row.target_index][None], [f"{row.word}:{row.sense}"])  # (1, L, D)
        for row, layers in zip(corpus.itertuples(index=False), activations)
        if row.word and row.sense and row.target_index >= 0
    ]
    return probe_task(SENSE, "word sense", "semantic", examples)
