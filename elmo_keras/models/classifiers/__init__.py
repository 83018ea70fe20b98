"""Text classifiers of seed notes §1: a CNN over n-gram filters and an RNN with last-state or pooled sentence
vectors, sharing the pipeline sentence matrix → features per position → one sentence vector → softmax.

Beside the models: ``NgramFilters`` (one height's filters, masked max over time), ``ClassifierConfig``,
``train_text_classifier`` (deterministic for a seed), ``evaluate_classifier``, ``class_probabilities`` and
``save_classifier`` / ``load_classifier``.
"""

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
