"""Sources and targets (word lists or strings) → the padded int32 arrays a ``Seq2Seq`` reads and predicts.

A source or target has at most ``MAX_SEQ2SEQ_TOKENS`` words (refused, with its index and length, before anything
is encoded), so a padded batch is at most ``batch × MAX_SEQ2SEQ_TOKENS`` ids whatever one line holds.
"""

from __future__ import annotations

import numpy as np

from elmo_keras.argument_checks import check_int
from elmo_keras.decoding._checks import MAX_DECODE_LENGTH
from elmo_keras.limits import check_length
from elmo_keras.text.sentences import as_words
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID, PAD_ID, Vocabulary

# Words of one source or target: a target longer than decoding's longest output (max_len) could never be generated.
MAX_SEQ2SEQ_TOKENS = MAX_DECODE_LENGTH


def encode_sources(sources, vocabulary: Vocabulary, length: int | None = None, name: str = "sources",
                   max_tokens: int = MAX_SEQ2SEQ_TOKENS) -> np.ndarray:
    """Word lists (or strings, see ``as_words``) → int32 `(n, length or longest)`, right-padded with ``PAD_ID``.

    Args:
        sources: word lists or strings.
        vocabulary: maps words to ids (unknown words → ``UNK_ID``).
        length: int in ``[1, max_tokens]``, the width; longer sources are cut. Defaults to None (the longest
            source's length; then a source over ``max_tokens`` words is refused).
        name: how messages name ``sources``. Defaults to ``"sources"``.
        max_tokens: int, the most words of a source. Defaults to ``MAX_SEQ2SEQ_TOKENS``.

    Raises:
        ValueError: ``sources`` is empty, a bad ``length``, or a source over ``max_tokens`` words (named).
    """
    if length is not None:
        check_length("length", check_int(length, "length"), max_tokens, "tokens", "pass a smaller width")
    sources = [as_words(s) for s in sources]
    if not sources:
        raise ValueError(f"no {name} given: pass a list of {name} (strings or word lists)")
    if length is None:
        for index, words in enumerate(sources):
            check_length(f"{name}[{index}]", len(words), max_tokens)
    width = max(len(s) for s in sources) if length is None else length
    ids = np.full((len(sources), width), PAD_ID, dtype=np.int32)
    for i, words in enumerate(sources):
        ids[i, : len(words)] = vocabulary.encode(words)[:width]
    return ids


def encode_pairs(pairs, vocabulary: Vocabulary) -> tuple[dict, np.ndarray]:
    """``[(source words, target words)]`` → ``({"source", "target_in"}, target_out)``, all int32 and padded.

    ``target_in = <bos> y_1 … y_n``, ``target_out = y_1 … y_n <eos>`` (teacher forcing). Strings are split
    into words by ``as_words``.

    Args:
        pairs: a non-empty list of ``(source, target)``, each a word list or a string.
        vocabulary: maps words to ids (unknown words → ``UNK_ID``).

    Returns:
        ``({"source": (n, source_len), "target_in": (n, target_len)}, target_out (n, target_len))``, int32,
        ``target_len`` = the longest target + 1.

    Raises:
        ValueError: a source or target over ``MAX_SEQ2SEQ_TOKENS`` words (named by its pair), before any encoding.
    """
    pairs = [(as_words(source), as_words(target)) for source, target in pairs]
    for index, pair in enumerate(pairs):
        for side, words in zip(("source", "target"), pair):
            check_length(f"pairs[{index}] {side}", len(words), MAX_SEQ2SEQ_TOKENS)
    targets = [vocabulary.encode(target) for _, target in pairs]
    width = max(len(t) for t in targets) + 1
    target_in = np.full((len(pairs), width), PAD_ID, dtype=np.int32)
    target_out = np.full((len(pairs), width), PAD_ID, dtype=np.int32)
    for i, ids in enumerate(targets):
        target_in[i, : len(ids) + 1] = [BOS_ID, *ids]
        target_out[i, : len(ids) + 1] = [*ids, EOS_ID]
    return {"source": encode_sources([s for s, _ in pairs], vocabulary), "target_in": target_in}, target_out
