"""Data shipped with the package: the toy polysemy corpus (``polysemy.tsv``) and its loader."""

from elmo_keras.data.polysemy import (
    POS_TAGS,
    SENSES,
    SPLITS,
    TARGET_WORDS,
    load_polysemy,
    polysemy_sentences,
)

__all__ = ["POS_TAGS", "SENSES", "SPLITS", "TARGET_WORDS", "load_polysemy", "polysemy_sentences"]
