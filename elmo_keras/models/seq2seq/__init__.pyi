"""The names ``elmo_keras.models.seq2seq`` exports (read by ``_lazy.attach_stub``)."""

from elmo_keras.models.seq2seq.config import Seq2SeqConfig
from elmo_keras.models.seq2seq.encoding import encode_pairs, encode_sources
from elmo_keras.models.seq2seq.evaluation import evaluate_seq2seq
from elmo_keras.models.seq2seq.model import CELLS, Seq2Seq
from elmo_keras.models.seq2seq.persistence import load_seq2seq, save_seq2seq
from elmo_keras.models.seq2seq.training import train_seq2seq
