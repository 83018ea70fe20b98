"""Keras layers, one per module."""

from elmo_keras.layers.bilm import BiLM
from elmo_keras.layers.char_cnn import CharCNN
from elmo_keras.layers.crf import CRF
from elmo_keras.layers.elmo import Elmo
from elmo_keras.layers.highway import Highway
from elmo_keras.layers.lstm_stack import LSTMStack
from elmo_keras.layers.projected_lstm_cell import ProjectedLSTMCell
from elmo_keras.layers.scalar_mix import ScalarMix
from elmo_keras.layers.sequence_ops import add_sentence_boundaries, remove_sentence_boundaries, reverse_within_length
from elmo_keras.layers.word_embedding import WordEmbedding

__all__ = [
    "BiLM", "CRF", "CharCNN", "Elmo", "Highway", "LSTMStack", "ProjectedLSTMCell", "ScalarMix", "WordEmbedding",
    "add_sentence_boundaries", "remove_sentence_boundaries", "reverse_within_length",
]
