"""Universal Dependencies English Web Treebank (EWT), shipped in the package: real English from weblogs, newsgroups,
emails, reviews and Yahoo! answers, hand-annotated with UPOS, Penn XPOS, lemmas and dependency relations.

``ud_english_ewt("train")`` is the one-line loader: one ``ConlluSentence`` per sentence (``tokens``, ``tags`` with
the ``TREEBANK_COLUMNS``, ``metadata`` with ``sent_id`` and ``text``), read once per process (about 7 s for train) by
the project's CoNLL-U reader (``text.conllu_files``: multi-word tokens such as ``don't`` become their syntactic words
``do n't``; empty nodes are skipped). ``treebank_sentences`` gives the token lists alone (to train a biLM),
``treebank_examples`` the ``(tokens, tags)`` pairs of one column (to train a tagger).

License: CC BY-SA 4.0, © The Board of Trustees of The Leland Stanford Junior University; ``TREEBANK_ATTRIBUTION``
and ``ud_english_ewt/README.md`` say who made it, how to cite it and what ShareAlike covers.
"""

from __future__ import annotations

import functools
import importlib.resources

from elmo_keras.text.conllu_files import ConlluSentence, read_conllu_sentences

TREEBANK_SPLITS = ("train", "dev", "test")
TREEBANK_COLUMNS = ("upos", "xpos", "lemma", "deprel")
# (sentences, syntactic words) of each split, as the treebank's statistics publish them
TREEBANK_COUNTS = {"train": (12_544, 204_577), "dev": (2_001, 25_147), "test": (2_077, 25_094)}
TREEBANK_VERSION = "UD English EWT v2.15 (commit 15d613d8447b3478787d4c278730a1e48a945efb)"
TREEBANK_ATTRIBUTION = (
    "Universal Dependencies English Web Treebank v2.15, © 2013-2021 The Board of Trustees of The Leland Stanford "
    "Junior University, CC BY-SA 4.0 (Silveira et al. 2014, A Gold Standard Dependency Corpus for English, "
    "LREC 2014); shipped gzipped, otherwise unchanged"
)


def treebank_path(split: str):
    """The packaged ``en_ewt-ud-{split}.conllu.gz`` (a ``pathlib.Path`` inside the installed package).

    Raises:
        ValueError: ``split`` is not one of ``TREEBANK_SPLITS``.
    """
    if split not in TREEBANK_SPLITS:
        raise ValueError(f"split must be one of {TREEBANK_SPLITS}, received {split!r}")
    return importlib.resources.files("elmo_keras.data") / "ud_english_ewt" / f"en_ewt-ud-{split}.conllu.gz"


def ud_english_ewt(split: str = "train") -> list[ConlluSentence]:
    """The sentences of one split of the shipped treebank, in file order.

    Args:
        split: ``"train"`` (12,544 sentences), ``"dev"`` (2,001) or ``"test"`` (2,077). Defaults to ``"train"``.

    Returns:
        New ``ConlluSentence`` objects (the caller may change them): ``tokens`` (the syntactic words), ``tags``
        (``{"upos": [...], "xpos": [...], "lemma": [...], "deprel": [...]}``, one value per token; a missing lemma
        is ``"_"``), ``metadata`` (``sent_id``, ``text``, ...) and ``line``.

    Raises:
        ValueError: ``split`` is not one of ``TREEBANK_SPLITS``.
    """
    return [ConlluSentence(list(s.tokens), {column: list(values) for column, values in s.tags.items()},
                           dict(s.metadata), s.line) for s in _read(split)]


def treebank_sentences(split: str = "train", limit: int | None = None) -> list[list[str]]:
    """The token lists of one split (the first ``limit`` sentences; None: all), e.g. to train a biLM.

    Raises:
        ValueError: a bad ``split``.
    """
    return [list(sentence.tokens) for sentence in _read(split)[:limit]]


def treebank_examples(split: str = "train", column: str = "upos",
                      limit: int | None = None) -> list[tuple[list[str], list[str]]]:
    """``(tokens, tags)`` pairs of one split and column (the first ``limit`` sentences; None: all), e.g. to train
    a tagger on UPOS.

    Raises:
        ValueError: a bad ``split``, or ``column`` not one of ``TREEBANK_COLUMNS``.
    """
    if column not in TREEBANK_COLUMNS:
        raise ValueError(f"column must be one of {TREEBANK_COLUMNS}, received {column!r}")
    return [(list(sentence.tokens), list(sentence.tags[column])) for sentence in _read(split)[:limit]]


@functools.lru_cache(maxsize=len(TREEBANK_SPLITS))
def _read(split: str) -> tuple[ConlluSentence, ...]:
    path = treebank_path(split)
    with importlib.resources.as_file(path) as file:
        return tuple(read_conllu_sentences(file, TREEBANK_COLUMNS, allow_missing=True))
