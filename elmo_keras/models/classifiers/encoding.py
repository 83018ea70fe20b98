"""Sentences and labels → the arrays a text classifier reads and predicts, and back to class probabilities."""

from __future__ import annotations

import numpy as np
from keras import ops

from elmo_keras.models.seq2seq.encoding import encode_sources
from elmo_keras.text.sentences import as_token_lists
from elmo_keras.text.vocabulary import Vocabulary


def encode_sentences(sentences, vocabulary: Vocabulary, length: int | None = None) -> np.ndarray:
    """Sentences (strings or token lists) → int32 `(n, length or longest)` ids, right-padded with ``PAD_ID``;
    words outside ``vocabulary`` → ``UNK_ID``.

    Raises:
        ValueError, TypeError: as ``text.sentences.as_token_lists`` (no sentences, an empty or malformed one).
    """
    return encode_sources(as_token_lists(sentences, "sentences"), vocabulary, length)


def encode_labels(labels, class_names) -> np.ndarray:
    """Label strings → int32 `(n,)` class ids (their index in ``class_names``).

    Raises:
        ValueError: a label that is not one of ``class_names`` (named, with its index).
    """
    index = {name: i for i, name in enumerate(class_names)}
    for position, label in enumerate(labels):
        if label not in index:
            raise ValueError(f"labels[{position}] = {label!r} is not one of the classes {tuple(class_names)}")
    return np.array([index[label] for label in labels], dtype=np.int32)


def class_probabilities(model, sentences) -> np.ndarray:
    """float `(n, num_classes)` probabilities a trained classifier (with its ``vocabulary``) gives ``sentences``.

    Each sentence is scored on its own terms: the models mask padding, so the result does not depend on the other
    sentences of the call.
    """
    ids = encode_sentences(sentences, model.vocabulary)
    return ops.convert_to_numpy(model(ids, training=False)).astype(np.float64)
