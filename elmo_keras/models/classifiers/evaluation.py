"""How well a trained text classifier does: accuracy, overall and per pattern of the toy sentiment corpus."""

from __future__ import annotations

import numpy as np

from elmo_keras.data.sentiment import load_sentiment, sentiment_patterns
from elmo_keras.models.classifiers.encoding import class_probabilities, encode_labels


def evaluate_classifier(model, sentences=None, labels=None, split: str = "heldout") -> dict:
    """Accuracy of ``model`` on ``sentences`` / ``labels`` (default: the toy sentiment corpus's ``split``).

    Args:
        model: a trained classifier carrying ``vocabulary`` and ``class_names``.
        sentences, labels: the sentences (strings or token lists) and their labels; both or neither.
        split: the toy corpus's split when no sentences are given. Defaults to ``"heldout"``.

    Returns:
        ``{"accuracy", "num_sentences"}``, and on the toy corpus ``"by_pattern"``: ``{pattern: accuracy}``.

    Raises:
        ValueError: only one of ``sentences`` and ``labels``, or a label the model does not know.
    """
    if (sentences is None) != (labels is None):
        raise ValueError("pass both sentences and labels, or neither (the toy corpus's split)")
    patterns = None
    if sentences is None:
        sentences, labels, _ = load_sentiment(split)
        patterns = np.array(sentiment_patterns(split))
    targets = encode_labels(labels, model.class_names)  # checked before the model runs
    hits = np.argmax(class_probabilities(model, sentences), axis=-1) == targets
    result = {"accuracy": float(hits.mean()), "num_sentences": int(len(hits))}
    if patterns is not None:
        result["by_pattern"] = {p: float(hits[patterns == p].mean()) for p in dict.fromkeys(patterns)}
    return result
