"""Data shipped with the package: the toy polysemy corpus (``polysemy.tsv``), the toy seq2seq pairs
(``seq2seq_pairs.tsv``), the synthetic tagging data (``*.conll``, ``tagging_unlabelled.txt``), the toy sentiment
set (``sentiment.tsv``), the toy dialogues and their loaders; and ``StreamingCorpus``, a training corpus streamed
from text files (glob, gzip) that is never loaded whole."""

from typing import TYPE_CHECKING

from elmo_keras._lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "elmo_keras.data.corpus_files": ["CorpusFileError"],
    "elmo_keras.data.dialogue": ["DIALOGUE_SPLITS", "dialogue_examples", "dialogue_references", "split_turns"],
    "elmo_keras.data.polysemy": ["POS_TAGS", "SENSES", "SPLITS", "TARGET_WORDS", "load_polysemy", "polysemy_sentences"],
    "elmo_keras.data.sentiment": ["LABELS as SENTIMENT_LABELS", "load_sentiment", "sentiment_patterns"],
    "elmo_keras.data.seq2seq": ["SEQ2SEQ_SPLITS", "load_seq2seq_pairs", "seq2seq_pairs", "seq2seq_references"],
    "elmo_keras.data.streaming": ["CorpusStats", "StreamingCorpus"],
    "elmo_keras.data.tagging": ["FRAME_ELEMENTS", "FRAME_LABELS", "NER_LABELS", "frame_examples", "ner_examples",
                                "pos_examples", "tagging_unlabelled_sentences"],
})

if TYPE_CHECKING:  # what static tools and IDEs see
    from elmo_keras.data.corpus_files import CorpusFileError
    from elmo_keras.data.dialogue import DIALOGUE_SPLITS, dialogue_examples, dialogue_references, split_turns
    from elmo_keras.data.polysemy import POS_TAGS, SENSES, SPLITS, TARGET_WORDS, load_polysemy, polysemy_sentences
    from elmo_keras.data.sentiment import LABELS as SENTIMENT_LABELS
    from elmo_keras.data.sentiment import load_sentiment, sentiment_patterns
    from elmo_keras.data.seq2seq import SEQ2SEQ_SPLITS, load_seq2seq_pairs, seq2seq_pairs, seq2seq_references
    from elmo_keras.data.streaming import CorpusStats, StreamingCorpus
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
    "CorpusFileError", "CorpusStats", "StreamingCorpus",
    "DIALOGUE_SPLITS", "FRAME_ELEMENTS", "FRAME_LABELS", "NER_LABELS", "POS_TAGS", "SENSES", "SENTIMENT_LABELS",
    "SEQ2SEQ_SPLITS", "SPLITS", "TARGET_WORDS",
    "dialogue_examples", "dialogue_references", "frame_examples", "load_polysemy", "load_sentiment",
    "load_seq2seq_pairs", "ner_examples", "polysemy_sentences", "pos_examples", "sentiment_patterns", "seq2seq_pairs",
    "seq2seq_references", "split_turns", "tagging_unlabelled_sentences",
]
