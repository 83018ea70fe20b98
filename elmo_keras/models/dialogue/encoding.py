"""Dialogues (history turns + response, word lists or strings) → the padded int32 arrays HRED and VHRED read.

``history``: `(n, turns, words)`, right-padded in both axes with ``PAD_ID`` (a padded turn is all ``PAD_ID``);
``response_in = <bos> y_1 … y_k`` and ``response_out = y_1 … y_k <eos>`` `(n, length)` (teacher forcing).
"""

from __future__ import annotations

import numpy as np

from elmo_keras.text.sentences import as_words
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID, PAD_ID, UNK_ID, Vocabulary


def checked_turns(history, what: str = "history") -> list[list[str]]:
    """``history`` (a list of turns, each a string or a word list) as word lists.

    Raises:
        ValueError: no turn at all (a dialogue needs history to answer), or an empty turn (named by index).
    """
    if isinstance(history, str) or not history:
        raise ValueError(f"{what} must be a non-empty list of turns (strings or word lists); a dialogue with no "
                         f"history has nothing to answer, received {history!r:.60}")
    turns = [as_words(turn) for turn in history]
    for index, words in enumerate(turns):
        if not words:
            raise ValueError(f"{what} turn {index} is empty: every utterance needs at least one word (drop the turn)")
    return turns


def encode_history(history, vocabulary: Vocabulary) -> tuple[np.ndarray, list[str]]:
    """One dialogue history → ``(ids int32 (turns, longest turn), unknown words)``.

    Unknown words become ``<unk>``; they are returned (in order, once each) so a caller can say so.

    Raises:
        ValueError: as ``checked_turns``.
    """
    turns = checked_turns(history)
    ids = np.full((len(turns), max(len(t) for t in turns)), PAD_ID, dtype=np.int32)
    unknown = []
    for i, words in enumerate(turns):
        ids[i, : len(words)] = vocabulary.encode(words)
        unknown += [w for w, token in zip(words, ids[i]) if token == UNK_ID and w not in unknown]
    return ids, unknown


def encode_dialogues(examples, vocabulary: Vocabulary) -> tuple[dict, np.ndarray]:
    """``[(history turns, response)]`` → ``({"history", "response_in"}, response_out)``, all int32 and padded.

    Args:
        examples: a non-empty list of ``(history, response)``: ``history`` a list of turns, each turn and the
            response a string or a word list.
        vocabulary: maps words to ids (unknown words → ``UNK_ID``).

    Returns:
        ``({"history": (n, most turns, longest turn), "response_in": (n, length)}, response_out (n, length))``,
        ``length`` = the longest response + 1.

    Raises:
        ValueError: no examples, a history without turns, an empty turn or an empty response (named by index).
    """
    if not examples:
        raise ValueError("no dialogues given: pass a list of (history turns, response) pairs")
    histories, responses = [], []
    for index, (history, response) in enumerate(examples):
        histories.append(checked_turns(history, f"dialogue {index} history"))
        words = as_words(response)
        if not words:
            raise ValueError(f"dialogue {index} has an empty response: every response needs at least one word")
        responses.append(vocabulary.encode(words))
    turns, width = max(len(h) for h in histories), max(len(t) for h in histories for t in h)
    history_ids = np.full((len(examples), turns, width), PAD_ID, dtype=np.int32)
    for i, history in enumerate(histories):
        for j, words in enumerate(history):
            history_ids[i, j, : len(words)] = vocabulary.encode(words)
    length = max(len(r) for r in responses) + 1
    response_in = np.full((len(examples), length), PAD_ID, dtype=np.int32)
    response_out = np.full((len(examples), length), PAD_ID, dtype=np.int32)
    for i, ids in enumerate(responses):
        response_in[i, : len(ids) + 1] = [BOS_ID, *ids]
        response_out[i, : len(ids) + 1] = [*ids, EOS_ID]
    return {"history": history_ids, "response_in": response_in}, response_out
