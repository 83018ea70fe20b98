"""Data shipped with the package: the toy polysemy corpus (``polysemy.tsv``), the toy seq2seq pairs
(``seq2seq_pairs.tsv``) and their loaders."""

from elmo_keras.data.polysemy import (
    POS_TAGS,
    SENSES,
    SPLITS,
    TARGET_WORDS,
    load_polysemy,
    polysemy_sentences,
)
from elmo_keras.data.seq2seq import SEQ2SEQ_SPLITS, load_seq2seq_pairs, seq2seq_pairs, seq2seq_references

__all__ = [
    "POS_TAGS", "SENSES", "SEQ2SEQ_SPLITS", "SPLITS", "TARGET_WORDS", "load_polysemy", "load_seq2seq_pairs",
    "polysemy_sentences", "seq2seq_pairs", "seq2seq_references",
]
