"""Keras layers, one per module."""

from typing import TYPE_CHECKING

from elmo_keras._lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "elmo_keras.layers.bilm": ["BiLM"],
    "elmo_keras.layers.char_cnn": ["CharCNN"],
    "elmo_keras.layers.crf": ["CRF"],
    "elmo_keras.layers.elmo": ["Elmo"],
    "elmo_keras.layers.elmo_character_ids": ["ElmoCharacterIds"],
    "elmo_keras.layers.highway": ["Highway"],
    "elmo_keras.layers.lstm_stack": ["LSTMStack"],
    "elmo_keras.layers.projected_lstm_cell": ["ProjectedLSTMCell"],
    "elmo_keras.layers.scalar_mix": ["ScalarMix"],
    "elmo_keras.layers.sequence_ops": ["add_sentence_boundaries", "remove_sentence_boundaries",
                                       "reverse_within_length"],
    "elmo_keras.layers.word_embedding": ["WordEmbedding"],
})

if TYPE_CHECKING:  # what static tools and IDEs see
    from elmo_keras.layers.bilm import BiLM
    from elmo_keras.layers.char_cnn import CharCNN
    from elmo_keras.layers.crf import CRF
    from elmo_keras.layers.elmo import Elmo
    from elmo_keras.layers.elmo_character_ids import ElmoCharacterIds
    from elmo_keras.layers.highway import Highway
    from elmo_keras.layers.lstm_stack import LSTMStack
    from elmo_keras.layers.projected_lstm_cell import ProjectedLSTMCell
    from elmo_keras.layers.scalar_mix import ScalarMix
    from elmo_keras.layers.sequence_ops import (
        add_sentence_boundaries,
        remove_sentence_boundaries,
        reverse_within_length,
    )
    from elmo_keras.layers.word_embedding import WordEmbedding

__all__ = [
    "BiLM", "CRF", "CharCNN", "Elmo", "ElmoCharacterIds", "Highway", "LSTMStack", "ProjectedLSTMCell", "ScalarMix",
    "WordEmbedding",
    "add_sentence_boundaries", "remove_sentence_boundaries", "reverse_within_length",
]
