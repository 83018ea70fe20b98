"""The names ``elmo_keras.models.classifiers`` exports (read by ``_lazy.attach_stub``)."""

from elmo_keras.models.classifiers.base import CELLS, POOLINGS, TextClassifier
from elmo_keras.models.classifiers.cnn import CNNTextClassifier, FilterResponses
from elmo_keras.models.classifiers.config import KINDS, ClassifierConfig
from elmo_keras.models.classifiers.encoding import class_probabilities, encode_labels, encode_sentences
from elmo_keras.models.classifiers.evaluation import evaluate_classifier
from elmo_keras.models.classifiers.ngram_filters import NgramFilters
from elmo_keras.models.classifiers.persistence import load_classifier, save_classifier
from elmo_keras.models.classifiers.rnn import RNNTextClassifier
from elmo_keras.models.classifiers.training import build_classifier, train_text_classifier
