"""Data shipped with the package: the toy polysemy corpus (``polysemy.tsv``), the toy seq2seq pairs
(``seq2seq_pairs.tsv``), the synthetic tagging data (``*.conll``, ``tagging_unlabelled.txt``), the toy sentiment
set (``sentiment.tsv``), the toy dialogues and their loaders; and ``StreamingCorpus``, a training corpus streamed
from text files (glob, gzip) that is never loaded whole."""

from elmo_keras._lazy import attach_stub

__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
