"""Dialogues (history turns + response, word lists or strings) → the padded int32 arrays HRED and VHRED read.

``history``: `(n, turns, words)`, right-padded in both axes with ``PAD_ID`` (a padded turn is all ``PAD_ID``);
``response_in = <bos> y_1 … y_k`` and ``response_out = y_1 … y_k <eos>`` `(n, length)` (teacher forcing).

Every dialogue is bounded before it is encoded: at most ``MAX_HISTORY_TURNS`` history turns and
``MAX_UTTERANCE_TOKENS`` words per turn or response, so a padded batch is at most ``batch × 32 × 128`` ids
whatever one dialogue holds; ``check_history_ids`` applies the same bounds (and the vocabulary) to a history
given as ids.
"""

from __future__ import annotations

import numpy as np

from elmo_keras.decoding._checks import check_token_ids
from elmo_keras.limits import check_length
from elmo_keras.text.sentences import as_words
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID, PAD_ID, UNK_ID, Vocabulary

MAX_HISTORY_TURNS = 32  # turns of one history: HRED's context RNN reads them one by one
MAX_UTTERANCE_TOKENS = 128  # words of one turn or response: far above a dialogue turn (the toy ones have ≤ 7)


def checked_turns(history, what: str = "history") -> list[list[str]]:
    """``history`` (a list of turns, each a string or a word list) as word lists.

    Raises:
        ValueError: no turn at all (a dialogue needs history to answer), an empty turn (named by index), more than
            ``MAX_HISTORY_TURNS`` turns or a turn of more than ``MAX_UTTERANCE_TOKENS`` words (named, with its
            length and the limit).
    """
    if isinstance(history, str) or not history:
        raise ValueError(f"{what} must be a non-empty list of turns (strings or word lists); a dialogue with no "
                         f"history has nothing to answer, received {history!r:.60}")
    check_length(what, len(history), MAX_HISTORY_TURNS, "turns", "keep only its latest turns")
    turns = [as_words(turn) for turn in history]
    for index, words in enumerate(turns):
        if not words:
            raise ValueError(f"{what} turn {index} is empty: every utterance needs at least one word (drop the turn)")
        check_length(f"{what} turn {index}", len(words), MAX_UTTERANCE_TOKENS, "words")
    return turns


def checked_dialogues(examples) -> list[tuple[list[list[str]], list[str]]]:
    """``examples`` (``[(history turns, response)]``, strings or word lists) as ``(turn word lists, response
    words)``, every bound of ``checked_turns`` checked, before anything is encoded or built.

    Raises:
        ValueError: no examples, or a dialogue ``checked_turns`` refuses, or an empty response or one of more than
            ``MAX_UTTERANCE_TOKENS`` words (each named by the dialogue's index).
    """
    if not examples:
        raise ValueError("no dialogues given: pass a list of (history turns, response) pairs")
    checked = []
    for index, (history, response) in enumerate(examples):
        turns = checked_turns(history, f"dialogue {index} history")
        words = as_words(response)
        if not words:
            raise ValueError(f"dialogue {index} has an empty response: every response needs at least one word")
        check_length(f"dialogue {index} response", len(words), MAX_UTTERANCE_TOKENS, "words")
        checked.append((turns, words))
    return checked


def check_history_ids(history, model) -> np.ndarray:
    """One history of ids, int `(turns, words)` right-padded with ``model.pad_id``, checked before the model reads
    it; trailing padded turns and words (the padding convention) are dropped.

    Args:
        history: int `(turns, words)` ids (``encode_history`` makes them from text).
        model: the ``HRED`` / ``VHRED`` (its ``vocab_size`` and ``pad_id``).

    Returns:
        int32 `(turns, words)`, without trailing padding.

    Raises:
        ValueError: not 2-D, an id outside ``[0, vocab_size)`` (named, with its position), only padding, a padded
            (empty) turn before a real one, more than ``MAX_HISTORY_TURNS`` turns or ``MAX_UTTERANCE_TOKENS`` words.
    """
    fix = "; encode text with encode_history(turns, model.vocabulary)"
    ids = check_token_ids("history", history, model.vocab_size, fix)
    if ids.ndim != 2:
        raise ValueError(f"history must be one dialogue's int ids (turns, words), received shape {ids.shape}{fix}")
    real = ids != model.pad_id
    if not real.any():
        raise ValueError(f"history holds only padding (id {model.pad_id}): a dialogue with no words has nothing to "
                         "answer; give at least one turn")
    turns = real.any(axis=1)
    count = int(np.flatnonzero(turns)[-1]) + 1  # trailing padded turns are padding
    empty = np.flatnonzero(~turns[:count])
    if len(empty):
        raise ValueError(f"history turn {int(empty[0])} is only padding: every utterance needs at least one word "
                         "(drop the turn)")
    check_length("history", count, MAX_HISTORY_TURNS, "turns", "keep only its latest turns")
    lengths = real.shape[1] - np.argmax(real[:count, ::-1], axis=1)  # per turn: its last real word + 1
    longest = int(np.argmax(lengths))
    check_length(f"history turn {longest}", int(lengths[longest]), MAX_UTTERANCE_TOKENS, "words")
    return ids[:count, : int(lengths.max())]


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
        ValueError: as ``checked_dialogues`` (no examples, a history without turns, an empty turn or response, or
            one over ``MAX_HISTORY_TURNS`` / ``MAX_UTTERANCE_TOKENS``, named by index).
    """
    checked = checked_dialogues(examples)
    histories = [turns for turns, _ in checked]
    responses = [vocabulary.encode(words) for _, words in checked]
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
