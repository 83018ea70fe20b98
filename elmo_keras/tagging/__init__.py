"""Sequence tagging: the multi-task POS + frame tagger (Tafforeau et al. 2016), TagLM (Peters et al. 2017), their
training and scores, tagging schemes (BIO, BIOES) as CRF constraints (Lample et al. 2016), and readers for CoNLL /
CoNLL-U files.

    >>> from elmo_keras.data import frame_examples, pos_examples
    >>> tagger = train_multitask_tagger({"pos": pos_examples(), "frame": frame_examples()}, heads={"frame": "crf"})
    >>> tagger.predict_tags(["is the bank open on sunday ?"])["pos"]
    [['AUX', 'DET', 'NOUN', 'ADJ', 'ADP', 'PROPN', 'PUNCT']]
"""

from elmo_keras._lazy import attach_stub

__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
