"""Data shipped with the package: the toy polysemy corpus (``polysemy.tsv``), the toy seq2seq pairs
(``seq2seq_pairs.tsv``), the synthetic tagging data (``*.conll``, ``tagging_unlabelled.txt``) and their loaders."""

from elmo_keras.data.polysemy import (
    POS_TAGS,
    SENSES,
    SPLITS,
    TARGET_WORDS,
    load_polysemy,
    polysemy_sentences,
)
from elmo_keras.data.seq2seq import SEQ2SEQ_SPLITS, load_seq2seq_pairs, seq2seq_pairs, seq2seq_references
from elmo_keras.data.tagging import (
    FRAME_ELEMENTS,
    FRAME_LABELS,
    NER_LABELS,
    frame_examples,
    ner_examples,
    pos_examples,
    tagging_unlabelled_sentences,
)

__all__ = [
    "FRAME_ELEMENTS", "FRAME_LABELS", "NER_LABELS", "POS_TAGS", "SENSES", "SEQ2SEQ_SPLITS", "SPLITS", "TARGET_WORDS",
    "frame_examples", "load_polysemy", "load_seq2seq_pairs", "ner_examples", "polysemy_sentences", "pos_examples",
    "seq2seq_pairs", "seq2seq_references", "tagging_unlabelled_sentences",
]
