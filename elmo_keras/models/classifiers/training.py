"""``train_text_classifier``: a CNN or RNN text classifier trained from scratch, deterministically for a seed."""

from __future__ import annotations

import numpy as np

from elmo_keras._quiet import keras
from elmo_keras.data.sentiment import load_sentiment
from elmo_keras.models.classifiers.cnn import CNNTextClassifier
from elmo_keras.models.classifiers.config import ClassifierConfig
from elmo_keras.models.classifiers.encoding import checked_sentences, encode_labels, encode_sentences
from elmo_keras.models.classifiers.rnn import RNNTextClassifier
from elmo_keras.models.fitting import train_model
from elmo_keras.text.vocabulary import Vocabulary


def build_classifier(config: ClassifierConfig, vocab_size: int, class_names) -> CNNTextClassifier | RNNTextClassifier:
    """The untrained model ``config.kind`` names, for ``vocab_size`` words and ``class_names``."""
    model_class = CNNTextClassifier if config.kind == "cnn" else RNNTextClassifier
    return model_class(vocab_size, len(class_names), class_names=tuple(class_names), **config.model_kwargs())


def train_text_classifier(sentences=None, labels=None, *, kind: str | None = None, class_names=None,
                          config: ClassifierConfig | dict | None = None, seed: int = 0, vocabulary=None,
                          callbacks=None, verbose: int = 0, **overrides):
    """Train a text classifier from scratch, deterministically for a given ``seed``.

    Args:
        sentences: sentences (strings or token lists) of at most ``MAX_CLASSIFIER_TOKENS`` tokens; default: the toy
            sentiment corpus's training split.
        labels: one label (str) per sentence; required with ``sentences``. Every option after it is keyword-only.
        kind: ``"cnn"``, ``"rnn-last"`` or ``"rnn-pooled"``; overrides ``config.kind``. Defaults to None (the
            config's, ``"cnn"``).
        class_names: the classes in id order. Defaults to None (the toy corpus's, else the sorted labels).
        config: a ``ClassifierConfig`` (or its dict). Defaults to None (``ClassifierConfig()``).
        seed: int, seeds Python, NumPy and the backend (weights, dropout and shuffling). Defaults to 0.
        vocabulary: a fixed ``Vocabulary``; default: built from the training sentences (lowercase), so a word
            never seen in training maps to ``<unk>``.
        callbacks: Keras callbacks and/or plain ``fn(epoch, logs)`` called after every epoch.
        verbose: Keras ``fit`` verbosity (0: silent). Defaults to 0.
        **overrides: single ``ClassifierConfig`` fields replacing the config's (``epochs=3``).

    Returns:
        The model, with ``vocabulary``, ``config`` and ``training_summary`` (history, seconds, seed) set.

    Raises:
        ValueError: no sentences, one over ``MAX_CLASSIFIER_TOKENS`` (named, with its length), ``labels`` missing
            or of another length, a label outside ``class_names``, or a bad config field; all before any work.
        TypeError: a sentence that is neither a str nor a list of str tokens (named by its index).
    """
    if isinstance(sentences, str) and sentences in ("cnn", "rnn-last", "rnn-pooled"):
        raise TypeError(f"the kind is keyword-only, the data comes first: train_text_classifier(sentences, labels, "
                        f"kind={sentences!r}) (received {sentences!r} where the sentences go)")
    config = config if isinstance(config, ClassifierConfig) else ClassifierConfig.from_dict(config or {})
    config = config.replace(**overrides, **({"kind": kind} if kind is not None else {}))
    if sentences is None:
        sentences, labels, default_names = load_sentiment("train")
        class_names = class_names or default_names
    sentences = checked_sentences(sentences)
    if labels is None or len(labels) != len(sentences):
        raise ValueError(f"labels must give one label per sentence ({len(sentences)}), received "
                         f"{'none' if labels is None else len(labels)}")
    class_names = tuple(class_names) if class_names is not None else tuple(sorted(set(labels)))
    vocabulary = vocabulary or Vocabulary.from_corpus(sentences, lowercase=True)
    ids, targets = encode_sentences(sentences, vocabulary), encode_labels(labels, class_names)

    keras.utils.set_random_seed(int(seed))
    model = build_classifier(config, len(vocabulary), class_names)
    # unclipped, unlike the other trainers (clip_norm=None)
    train_model(model, ids, targets, config=config, seed=seed, vocabulary=vocabulary, callbacks=callbacks,
                verbose=verbose, details={"num_sentences": len(sentences), "class_names": list(class_names)},
                what="the trained classifier", clip_norm=None,
                compile_options={"loss": "sparse_categorical_crossentropy", "metrics": ["accuracy"]},
                batch_size=config.batch_size, shuffle=True)
    model.training_summary["class_counts"] = np.bincount(targets, minlength=len(class_names)).tolist()
    return model
