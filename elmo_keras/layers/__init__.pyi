"""The names ``elmo_keras.layers`` exports (read by ``_lazy.attach_stub``)."""

from elmo_keras.layers.bidirectional_transformer import BidirectionalTransformer
from elmo_keras.layers.bilm import BiLM
from elmo_keras.layers.bilm_base import BiLMBase
from elmo_keras.layers.char_cnn import CharCNN
from elmo_keras.layers.crf import CRF
from elmo_keras.layers.elmo import Elmo
from elmo_keras.layers.elmo_character_ids import ElmoCharacterIds
from elmo_keras.layers.highway import Highway
from elmo_keras.layers.lstm_stack import LSTMStack
from elmo_keras.layers.projected_lstm_cell import ProjectedLSTMCell
from elmo_keras.layers.scalar_mix import ScalarMix
from elmo_keras.layers.sequence_ops import add_sentence_boundaries, remove_sentence_boundaries, reverse_within_length
from elmo_keras.layers.transformer_bilm import TransformerBiLM
from elmo_keras.layers.word_embedding import WordEmbedding
