"""Two toy downstream tasks on frozen biLM activations: POS tags (syntactic) and word sense (semantic).

The biLM is run once over the whole corpus (``corpus_activations``); each task then picks its examples:

* ``pos``: every token of a sentence with POS tags; its label is the tag. Train on ``train`` sentences,
  evaluate on ``heldout`` ones.
* ``sense``: the target word of every sense-labelled sentence; its label is ``word:sense`` (six classes on
  the built-in corpus).

Features are `(n, num_layers, 2 * dim)`: every layer's vector at the token.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from elmo_keras.analysis.embeddings import sentence_activations

POS, SENSE = "pos", "sense"


@dataclass(frozen=True)
class ProbeTask:
    """Features and integer labels of one task, split into train and held-out."""

    name: str
    title: str
    kind: str  # "syntactic" or "semantic"
    labels: tuple  # class names, index = label id
    train_features: np.ndarray  # (n_train, L, D) float32
    train_labels: np.ndarray  # (n_train,) int
    test_features: np.ndarray  # (n_test, L, D)
    test_labels: np.ndarray  # (n_test,)

    @property
    def num_layers(self) -> int:
        """``L``, the biLM's layers (``num_layers + 1``)."""
        return int(self.train_features.shape[1])

    @property
    def majority_accuracy(self) -> float:
        """Held-out accuracy of always answering the most frequent training label."""
        majority = np.bincount(self.train_labels, minlength=len(self.labels)).argmax()
        return float(np.mean(self.test_labels == majority))


def corpus_activations(model, corpus: pd.DataFrame) -> list[np.ndarray]:
    """Every layer's activations for every corpus sentence: one `(L, tokens, D)` array per row."""
    return sentence_activations(model, [list(t) for t in corpus["tokens"]])


def _task(name, title, kind, examples) -> ProbeTask:
    """``examples``: ``[(split, features (k, L, D), labels [k])]``."""
    labels = tuple(sorted({label for _, _, names in examples for label in names}))
    index = {label: i for i, label in enumerate(labels)}
    parts = {}
    for split in ("train", "heldout"):
        chosen = [(f, names) for s, f, names in examples if s == split]
        if not chosen or not any(len(names) for _, names in chosen):
            raise ValueError(f"the {title} task has no {split} examples in this corpus")
        parts[split] = (np.concatenate([f for f, _ in chosen]).astype(np.float32),
                        np.array([index[n] for _, names in chosen for n in names], dtype=np.int64))
    if len(set(parts["train"][1].tolist())) < 2:
        raise ValueError(f"the {title} task needs at least two different labels in its training examples")
    return ProbeTask(name, title, kind, labels, *parts["train"], *parts["heldout"])


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
    return _task(POS, "POS tags", "syntactic", examples)


def sense_task(corpus: pd.DataFrame, activations: list[np.ndarray]) -> ProbeTask:
    """The sense of the target word in every labelled sentence (label ``word:sense``).

    Args and Raises as ``pos_task``.
    """
    examples = [
        (row.split, layers[:, row.target_index][None], [f"{row.word}:{row.sense}"])  # (1, L, D)
        for row, layers in zip(corpus.itertuples(index=False), activations)
        if row.word and row.sense and row.target_index >= 0
    ]
    return _task(SENSE, "word sense", "semantic", examples)
