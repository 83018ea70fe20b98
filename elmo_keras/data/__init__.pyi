"""The names ``elmo_keras.data`` exports (read by ``_lazy.attach_stub``)."""

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
from elmo_keras.data.treebank import (
    TREEBANK_ATTRIBUTION,
    TREEBANK_COLUMNS,
    TREEBANK_COUNTS,
    TREEBANK_SPLITS,
    treebank_examples,
    treebank_sentences,
    ud_english_ewt,
)
