"""The working corpus: the built-in polysemy corpus, filtered for browsing, edited as a table, split for training.

A corpus is a DataFrame with the columns of ``load_polysemy()`` (``id, word, sense, sentence, tokens,
target_index, split, pos``). Rows with an empty ``word`` are unlabelled (fillers, or uploaded sentences);
``pos`` is empty where no tags are known (such rows are left out of the POS task).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import pandas as pd

from elmo_keras.data.polysemy import COLUMNS, SENSES, SPLITS, TARGET_WORDS, TYPED, UNLABELLED, load_polysemy
from elmo_keras.text.tokenizer import tokenize

EDITABLE_COLUMNS = ["word", "sense", "sentence", "split"]
MAX_TOKENS_PER_SENTENCE = 100


def builtin_corpus() -> pd.DataFrame:
    """A fresh copy of the built-in polysemy corpus."""
    return load_polysemy()


def fingerprint(frame: pd.DataFrame) -> str:
    """A short hash of the corpus content (a cache key that changes whenever a sentence or label does)."""
    digest = hashlib.sha1()
    for row in frame[["word", "sense", "sentence", "split", "pos"]].itertuples(index=False):
        digest.update("\t".join([row.word, row.sense, row.sentence, row.split, " ".join(row.pos)]).encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()[:16]


def make_corpus(records: Iterable[Mapping], where: str = "row") -> pd.DataFrame:
    """Build a corpus from dicts with ``sentence`` and optional ``word``, ``sense``, ``split``, ``pos``.

    A row with a ``word`` must contain it (case-insensitive; ``target_index`` is its first occurrence); a row
    with a word but no sense counts as unlabelled. ``split`` defaults to ``train``. ``pos`` (a list or a
    space-separated string) must have one tag per token if given.

    Args:
        records: one mapping per sentence.
        where: str, how error messages name a record (``"table row"``, ``"data.tsv line"``). Defaults to
            ``"row"``.

    Raises:
        ValueError: naming the row (``where`` + its 1-based number) and the problem: an empty sentence, more
            than ``MAX_TOKENS_PER_SENTENCE`` tokens, an unknown split, a POS tag count that differs from the
            token count, a word the sentence does not contain; or no records at all.
    """
    rows = []
    for number, record in enumerate(records, start=1):
        label = f"{where} {number}"
        sentence = str(record.get("sentence") or "").strip()
        tokens = tokenize(sentence)
        if not tokens:
            raise ValueError(f"{label}: the sentence is empty.")
        if len(tokens) > MAX_TOKENS_PER_SENTENCE:
            raise ValueError(f"{label}: the sentence has {len(tokens)} tokens; the limit is {MAX_TOKENS_PER_SENTENCE}.")
        word = str(record.get("word") or "").strip().lower()
        sense = str(record.get("sense") or "").strip()
        split = str(record.get("split") or "train").strip().lower()
        if split not in SPLITS:
            raise ValueError(f"{label}: split must be one of {', '.join(SPLITS)}, not {split!r}.")
        pos = record.get("pos") or []
        pos = pos.split() if isinstance(pos, str) else [str(tag) for tag in pos]
        if pos and len(pos) != len(tokens):
            raise ValueError(f"{label}: {len(pos)} POS tags for {len(tokens)} tokens.")
        lowered = [token.lower() for token in tokens]
        target_index = -1
        if word and sense:
            if word not in lowered:
                raise ValueError(f"{label}: the sentence does not contain the word {word!r}.")
            target_index = lowered.index(word)
        else:
            word, sense = "", ""
        rows.append((number, word, sense, sentence, tokens, target_index, split, pos))
    if not rows:
        raise ValueError("the corpus has no sentences.")
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    return frame.astype({"id": "int64", "target_index": "int64"})


def editor_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The editable columns (word, sense, sentence, split) for ``st.data_editor``."""
    return frame[EDITABLE_COLUMNS].reset_index(drop=True).copy()


def corpus_from_table(table: pd.DataFrame, previous: pd.DataFrame | None = None) -> pd.DataFrame:
    """A corpus from an edited table; POS tags are kept for sentences that did not change.

    Args:
        table: ``editor_table``'s columns after editing; blank rows are skipped.
        previous: the corpus before editing, whose POS tags are carried over by sentence text. Defaults to None.

    Raises:
        ValueError: naming the table row that is wrong.
    """
    tags = {}
    if previous is not None:
        tags = {row.sentence: list(row.pos) for row in previous.itertuples(index=False) if len(row.pos)}
    records = []
    for row in table.fillna("").to_dict("records"):
        if not str(row.get("sentence", "")).strip() and not str(row.get("word", "")).strip():
            continue  # a blank row the editor added
        row["pos"] = tags.get(str(row.get("sentence", "")).strip(), [])
        records.append(row)
    return make_corpus(records, where="table row")


def filter_corpus(frame: pd.DataFrame, words: Sequence[str] = (), senses: Sequence[str] = (),
                  splits: Sequence[str] = (), contains: str = "") -> pd.DataFrame:
    """Rows matching every given filter (empty = no filter); ``"(none)"`` in ``words`` selects unlabelled rows."""
    keep = pd.Series(True, index=frame.index)
    if words:
        wanted = {"" if w == "(none)" else w for w in words}
        keep &= frame["word"].isin(wanted)
    if senses:
        keep &= frame["sense"].isin(set(senses))
    if splits:
        keep &= frame["split"].isin(set(splits))
    if contains.strip():
        keep &= frame["sentence"].str.contains(contains.strip(), case=False, regex=False)
    return frame.loc[keep, ["id", "word", "sense", "sentence", "split"]].reset_index(drop=True)


def split_sentences(frame: pd.DataFrame) -> tuple[list[list[str]], list[list[str]]]:
    """``(train, heldout)`` token lists (``heldout`` may be empty).

    Raises:
        ValueError: the corpus has no ``train`` rows.
    """
    train = [list(t) for t, s in zip(frame["tokens"], frame["split"]) if s == "train"]
    heldout = [list(t) for t, s in zip(frame["tokens"], frame["split"]) if s == "heldout"]
    if not train:
        raise ValueError("the corpus has no training sentences (split 'train').")
    return train, heldout


def labelled_words(frame: pd.DataFrame) -> list[str]:
    """Words with sense-labelled rows, the built-in targets first."""
    words = set(frame.loc[frame["word"] != "", "word"])
    return [w for w in TARGET_WORDS if w in words] + sorted(words - set(TARGET_WORDS))


def word_choices(frame: pd.DataFrame, vocabulary=None, min_count: int = 2) -> list[str]:
    """Words to follow: labelled words first, then corpus words seen ``min_count``+ times (and in ``vocabulary``)."""
    first = labelled_words(frame) or [w for w in TARGET_WORDS]
    counts = Counter(token.lower() for tokens in frame["tokens"] for token in tokens if any(c.isalpha() for c in token))
    others = sorted(w for w, c in counts.items() if c >= min_count and w not in first
                    and (vocabulary is None or w in vocabulary))
    return first + others


def sense_order(word: str, senses: Iterable[str]) -> list[str]:
    """Sense labels in display order: the built-in order for a target word, then alphabetical, special labels last."""
    present = list(dict.fromkeys(senses))
    known = [s for s in SENSES.get(word, ()) if s in present]
    rest = sorted(s for s in present if s not in known and s not in (UNLABELLED, TYPED))
    return known + rest + [s for s in (UNLABELLED, TYPED) if s in present]


def describe(frame: pd.DataFrame) -> str:
    """A one-line summary: ``"588 sentences (516 train / 72 held-out), 288 sense-labelled"`` for the built-in
    corpus."""
    n_train = int((frame["split"] == "train").sum())
    labelled = int((frame["word"] != "").sum())
    sentences = f"{len(frame)} sentence" + ("" if len(frame) == 1 else "s")
    return f"{sentences} ({n_train} train / {len(frame) - n_train} held-out), {labelled} sense-labelled"
