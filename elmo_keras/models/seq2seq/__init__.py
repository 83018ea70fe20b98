"""The RNN encoder-decoder of seed notes §9–11, split the way the biLM side is: the model (``model``), its
configuration (``config``), sources and targets as arrays (``encoding``), training (``training``), model
directories (``persistence``) and held-out quality (``evaluation``)."""

from typing import TYPE_CHECKING

from elmo_keras._lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "elmo_keras.models.seq2seq.config": ["Seq2SeqConfig"],
    "elmo_keras.models.seq2seq.encoding": ["encode_pairs", "encode_sources"],
    "elmo_keras.models.seq2seq.evaluation": ["evaluate_seq2seq"],
    "elmo_keras.models.seq2seq.model": ["CELLS", "Seq2Seq"],
    "elmo_keras.models.seq2seq.persistence": ["load_seq2seq", "save_seq2seq"],
    "elmo_keras.models.seq2seq.training": ["train_seq2seq"],
})

if TYPE_CHECKING:  # what static tools and IDEs see
    from elmo_keras.models.seq2seq.config import Seq2SeqConfig
    from elmo_keras.models.seq2seq.encoding import encode_pairs, encode_sources
    from elmo_keras.models.seq2seq.evaluation import evaluate_seq2seq
    from elmo_keras.models.seq2seq.model import CELLS, Seq2Seq
    from elmo_keras.models.seq2seq.persistence import load_seq2seq, save_seq2seq
    from elmo_keras.models.seq2seq.training import train_seq2seq

__all__ = [
    "CELLS", "Seq2Seq", "Seq2SeqConfig", "encode_pairs", "encode_sources", "evaluate_seq2seq", "load_seq2seq",
    "save_seq2seq", "train_seq2seq",
]
