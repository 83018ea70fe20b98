"""Sentences and labels → the arrays a text classifier reads and predicts, and back to class probabilities.

A sentence has at most ``MAX_CLASSIFIER_TOKENS`` tokens (refused, with its index and length, before any work), and
``class_probabilities`` reads ``batch_size`` sentences at a time, each batch padded to its own longest: the work
per model call is at most ``batch_size × MAX_CLASSIFIER_TOKENS`` tokens whatever the input holds.
"""

from __future__ import annotations

import numpy as np

from elmo_keras._quiet import ops
from elmo_keras.limits import check_batch_size
from elmo_keras.models.seq2seq.encoding import encode_sources
from elmo_keras.text.sentences import check_sentences
from elmo_keras.text.vocabulary import Vocabulary

MAX_CLASSIFIER_TOKENS = 512  # tokens of one sentence (a review-length text); the toy sentences have at most 10
PREDICT_BATCH_SIZE = 256  # sentences per model call in class_probabilities (the default)


def checked_sentences(sentences, name: str = "sentences") -> list[list[str]]:
    """``sentences`` (strings, tokenized by ``tokenize``, or token lists) as token lists of at most
    ``MAX_CLASSIFIER_TOKENS`` tokens, sentence ``i`` named ``"{name}[i]"``.

    Raises:
        ValueError, TypeError: as ``text.sentences.check_sentences`` (no sentences, an empty or malformed one, or
            one over ``MAX_CLASSIFIER_TOKENS``, named with its length and the limit).
    """
    return check_sentences(sentences, name, where=f"{name}[{{}}]", strings="tokenize", max_tokens=MAX_CLASSIFIER_TOKENS)


def encode_sentences(sentences, vocabulary: Vocabulary, length: int | None = None) -> np.ndarray:
    """Sentences (strings or token lists) → int32 `(n, length or longest)` ids, right-padded with ``PAD_ID``;
    words outside ``vocabulary`` → ``UNK_ID``; ``length`` (at most ``MAX_CLASSIFIER_TOKENS``) cuts longer ones.

    Raises:
        ValueError, TypeError: as ``checked_sentences`` (with ``length`` given, long sentences are cut instead).
    """
    tokens = checked_sentences(sentences) if length is None else check_sentences(sentences, where="sentences[{}]",
                                                                                  strings="tokenize")
    return encode_sources(tokens, vocabulary, length, "sentences", MAX_CLASSIFIER_TOKENS)


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


def class_probabilities(model, sentences, batch_size: int = PREDICT_BATCH_SIZE) -> np.ndarray:
    """float `(n, num_classes)` probabilities a trained classifier (with its ``vocabulary``) gives ``sentences``.

    Each sentence is scored on its own terms: the models mask padding, so the result does not depend on the other
    sentences of the call, nor on ``batch_size`` (sentences per model call, each batch padded to its longest).

    Raises:
        ValueError, TypeError: a bad ``batch_size``, or as ``checked_sentences``; all before the model runs.
    """
    batch_size = check_batch_size(batch_size)
    tokens = checked_sentences(sentences)
    parts = [ops.convert_to_numpy(model(encode_sentences(tokens[start : start + batch_size], model.vocabulary),
                                        training=False)) for start in range(0, len(tokens), batch_size)]
    return np.concatenate(parts).astype(np.float64)
