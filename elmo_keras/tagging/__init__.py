"""Sequence tagging (seed notes §2–4): the multi-task POS + frame tagger, TagLM, their training and scores, tagging
schemes (BIO, BIOES) as CRF constraints, and readers for CoNLL / CoNLL-U files.

    >>> from elmo_keras.data import frame_examples, pos_examples
    >>> tagger = train_multitask_tagger({"pos": pos_examples(), "frame": frame_examples()}, heads={"frame": "crf"})
    >>> tagger.predict_tags(["is the bank open on sunday ?"])["pos"]
    [['AUX', 'DET', 'NOUN', 'ADJ', 'ADP', 'PROPN', 'PUNCT']]
"""

from typing import TYPE_CHECKING

from elmo_keras._lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "elmo_keras.tagging.encoding": ["TaggingVocabulary"],
    "elmo_keras.tagging.evaluation": ["evaluate_tagger", "label_f1", "span_f1", "token_accuracy"],
    "elmo_keras.tagging.multitask": ["MultiTaskTagger"],
    "elmo_keras.tagging.persistence": ["load_tagger", "save_tagger"],
    "elmo_keras.tagging.schemes": ["allowed_transitions", "invalid_transitions", "is_valid_sequence", "parse_label"],
    "elmo_keras.tagging.taglm": ["TagLM"],
    "elmo_keras.tagging.training": ["TaggerConfig", "train_multitask_tagger", "train_taglm"],
    "elmo_keras.text.conll": ["ConllSentence", "read_conll", "read_conll_sentences", "read_conllu", "write_conll"],
})

if TYPE_CHECKING:  # what static tools and IDEs see
    from elmo_keras.tagging.encoding import TaggingVocabulary
    from elmo_keras.tagging.evaluation import evaluate_tagger, label_f1, span_f1, token_accuracy
    from elmo_keras.tagging.multitask import MultiTaskTagger
    from elmo_keras.tagging.persistence import load_tagger, save_tagger
    from elmo_keras.tagging.schemes import allowed_transitions, invalid_transitions, is_valid_sequence, parse_label
    from elmo_keras.tagging.taglm import TagLM
    from elmo_keras.tagging.training import TaggerConfig, train_multitask_tagger, train_taglm
    from elmo_keras.text.conll import ConllSentence, read_conll, read_conll_sentences, read_conllu, write_conll

__all__ = [
    "ConllSentence", "MultiTaskTagger", "TagLM", "TaggerConfig", "TaggingVocabulary", "allowed_transitions",
    "evaluate_tagger", "invalid_transitions", "is_valid_sequence", "label_f1", "load_tagger", "parse_label",
    "read_conll", "read_conll_sentences", "read_conllu", "save_tagger", "span_f1", "token_accuracy",
    "train_multitask_tagger", "train_taglm", "write_conll",
]
