"""Text classifiers of seed notes §1: a CNN over n-gram filters and an RNN with last-state or pooled sentence
vectors, sharing the pipeline sentence matrix → features per position → one sentence vector → softmax.

Beside the models: ``NgramFilters`` (one height's filters, masked max over time), ``ClassifierConfig``,
``train_text_classifier`` (deterministic for a seed), ``evaluate_classifier``, ``class_probabilities`` and
``save_classifier`` / ``load_classifier``.
"""

from typing import TYPE_CHECKING

from elmo_keras._lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "elmo_keras.models.classifiers.base": ["CELLS", "POOLINGS", "TextClassifier"],
    "elmo_keras.models.classifiers.cnn": ["CNNTextClassifier", "FilterResponses"],
    "elmo_keras.models.classifiers.config": ["KINDS", "ClassifierConfig"],
    "elmo_keras.models.classifiers.encoding": ["class_probabilities", "encode_labels", "encode_sentences"],
    "elmo_keras.models.classifiers.evaluation": ["evaluate_classifier"],
    "elmo_keras.models.classifiers.ngram_filters": ["NgramFilters"],
    "elmo_keras.models.classifiers.persistence": ["load_classifier", "save_classifier"],
    "elmo_keras.models.classifiers.rnn": ["RNNTextClassifier"],
    "elmo_keras.models.classifiers.training": ["build_classifier", "train_text_classifier"],
})

if TYPE_CHECKING:  # what static tools and IDEs see
    from elmo_keras.models.classifiers.base import CELLS, POOLINGS, TextClassifier
    from elmo_keras.models.classifiers.cnn import CNNTextClassifier, FilterResponses
    from elmo_keras.models.classifiers.config import KINDS, ClassifierConfig
    from elmo_keras.models.classifiers.encoding import class_probabilities, encode_labels, encode_sentences
    from elmo_keras.models.classifiers.evaluation import evaluate_classifier
    from elmo_keras.models.classifiers.ngram_filters import NgramFilters
    from elmo_keras.models.classifiers.persistence import load_classifier, save_classifier
    from elmo_keras.models.classifiers.rnn import RNNTextClassifier
    from elmo_keras.models.classifiers.training import build_classifier, train_text_classifier

__all__ = [
    "CELLS", "KINDS", "POOLINGS", "CNNTextClassifier", "ClassifierConfig", "FilterResponses", "NgramFilters",
    "RNNTextClassifier", "TextClassifier", "build_classifier", "class_probabilities", "encode_labels",
    "encode_sentences", "evaluate_classifier", "load_classifier", "save_classifier", "train_text_classifier",
]
