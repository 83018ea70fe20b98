"""Checks of what users hand the taggers — sentences, examples, task names — and the sizes that bound the work of
one batch, so bad input is one clear ``ValueError`` before any model runs.

Limits (far above natural sentences: CoNLL-2003's longest has 124 tokens, Universal Dependencies' a few hundred):

- ``MAX_SENTENCE_TOKENS`` tokens in one sentence: a longer one is refused, naming its index and length, by the
  training functions and by ``predict_tags`` (split it at sentence ends first). Unchecked, one 50,000-token
  sentence padded every sentence of its batch to 50,000 steps.
- ``MAX_BATCH_TOKENS`` padded token positions (sentences × longest sentence) in one batch: ``predict_tags``
  starts a new batch before a batch would exceed it, and training refuses a ``batch_size`` whose batches could.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from elmo_keras.text.sentences import check_sentences, sentence_tokens

MAX_SENTENCE_TOKENS = 1_000
MAX_BATCH_TOKENS = 65_536
_LENGTH_FIX = "split it into shorter sentences (e.g. at sentence ends): taggers take one sentence at a time"


def check_not_str(value, name: str, expected: str, hint: str = "") -> None:
    """A ``ValueError`` if ``value`` is a str (or bytes) where ``expected`` (a list of something) is needed.

    Unchecked, a str is iterated character by character: ``predict_tags("paris")`` tagged five one-letter
    sentences.
    """
    if isinstance(value, (str, bytes)):
        raise ValueError(f"{name} must be {expected}, received the str {value!r:.60}{hint}")


def check_token_lists(sentences, name: str = "sentences") -> list[list[str]]:
    """``sentences`` as lists of str tokens, each non-empty and at most ``MAX_SENTENCE_TOKENS`` long
    (``text.sentences.check_sentences``, sentence ``i`` named ``"{name}[i]"``).

    Args:
        sentences: a list of token lists.
        name: the argument's name, for the messages. Defaults to ``"sentences"``.

    Raises:
        ValueError: naming ``name`` (and the sentence's index): a str where the list is, a sentence that is a str
            or not a list of str tokens, an empty or over-long sentence.
    """
    return _checked_sentences(sentences, name, "refuse")


def checked_sentences(sentences, name: str = "sentences") -> list[list[str]]:
    """Token lists of ``sentences``, a list whose items are token lists or strings (split on white space).

    Raises:
        ValueError: as ``check_token_lists``; a single str says to wrap it in a list.
    """
    return _checked_sentences(sentences, name, "split")


def _checked_sentences(sentences, name: str, strings: str) -> list[list[str]]:
    return check_sentences(sentences, name, where=f"{name}[{{}}]", strings=strings, empty_batch=True,
                           max_tokens=MAX_SENTENCE_TOKENS, length_fix=_LENGTH_FIX)


def checked_examples(task: str, examples) -> list[tuple[list[str], list[str]]]:
    """``(tokens, tags)`` pairs as lists, checked: a pair each, one tag per token, 1 to ``MAX_SENTENCE_TOKENS``
    tokens. A str ``tokens`` or ``tags`` is split on white space.

    Args:
        task: the task's name, for the messages.
        examples: a list of ``(tokens, tags)`` pairs.

    Raises:
        ValueError: naming the task and the example's index.
    """
    check_not_str(examples, f"task {task!r}: examples", "a list of (tokens, tags) pairs")
    rows = []
    for index, example in enumerate(_iterable(examples, f"task {task!r}: examples", "a list of (tokens, tags) pairs")):
        try:
            tokens, tags = example
        except (TypeError, ValueError):
            raise ValueError(f"task {task!r}: example {index} must be a (tokens, tags) pair, received "
                             f"{example!r:.80}") from None
        tokens = tokens.split() if isinstance(tokens, str) else list(tokens)
        tags = tags.split() if isinstance(tags, str) else list(tags)
        if not tokens or len(tokens) != len(tags):
            raise ValueError(f"task {task!r}: example {index} has {len(tokens)} tokens and {len(tags)} tags; "
                             "every sentence needs one tag per token")
        rows.append((sentence_tokens(tokens, f"task {task!r}: example {index}", max_tokens=MAX_SENTENCE_TOKENS,
                                     length_fix=_LENGTH_FIX), tags))
    return rows


def checked_task_names(tasks, known: Sequence[str], name: str = "tasks") -> list[str]:
    """``tasks`` as a list of the tagger's task names; None or empty: all of ``known``.

    Raises:
        ValueError: a str where the list is (naming the fix), or a task the tagger was not trained on.
    """
    if tasks is None:
        return list(known)
    check_not_str(tasks, name, "a list of task names", f"; pass [{tasks!r:.60}]")
    tasks = list(_iterable(tasks, name, "a list of task names")) or list(known)
    for task in tasks:
        check_task(task, known, name)
    return tasks


def check_task(task, known: Sequence[str], name: str = "task") -> str:
    """``task`` if it is one of ``known``, the tasks a tagger was trained on; else a ``ValueError`` naming both."""
    if not isinstance(task, str) or task not in known:
        raise ValueError(f"{name} names {task!r}, a task this tagger was not trained on; its tasks are "
                         f"{sorted(known)}")
    return task


def check_mapping_tasks(mapping, name: str, known: Sequence[str]) -> dict:
    """``mapping`` (``{task: value}``, None = empty) as a dict whose keys are all among ``known``.

    Raises:
        ValueError: ``mapping`` is not a dict, or names a task that has no examples (naming it and ``name``).
    """
    if mapping is None:
        return {}
    if not isinstance(mapping, Mapping):
        raise ValueError(f"{name} must be a dict {{task: ...}} or None, received {mapping!r:.60}")
    unknown = sorted(str(task) for task in mapping if task not in known)
    if unknown:
        raise ValueError(f"{name} names task(s) {unknown} that have no training examples; the tasks are "
                         f"{sorted(known)}")
    return dict(mapping)


def check_batch_tokens(batch_size: int, examples: Mapping[str, Sequence[tuple[list[str], list[str]]]]) -> None:
    """A ``ValueError`` naming ``batch_size`` if a training batch could hold more than ``MAX_BATCH_TOKENS``
    padded token positions: ``min(batch_size, sentences of the task) × the task's longest sentence``."""
    for task, rows in examples.items():
        longest = max(len(tokens) for tokens, _ in rows)
        positions = min(batch_size, len(rows)) * longest
        if positions > MAX_BATCH_TOKENS:
            raise ValueError(
                f"batch_size = {batch_size:,} would pad up to {positions:,} token positions in one batch of task "
                f"{task!r} (its longest sentence has {longest:,} tokens), more than {MAX_BATCH_TOKENS:,}: use "
                f"batch_size <= {max(1, MAX_BATCH_TOKENS // longest):,}"
            )


def bounded_batches(lengths: Sequence[int], batch_size: int) -> list[tuple[int, int]]:
    """``(start, stop)`` runs of consecutive sentences, at most ``batch_size`` each and at most
    ``MAX_BATCH_TOKENS`` padded positions (rows × longest), in order.

    Args:
        lengths: each sentence's token count (each at most ``MAX_SENTENCE_TOKENS``).
        batch_size: int, the most sentences in one run.
    """
    runs, start, longest = [], 0, 0
    for index, length in enumerate(lengths):
        wider = max(longest, length)
        if index > start and (index - start >= batch_size or (index - start + 1) * wider > MAX_BATCH_TOKENS):
            runs.append((start, index))
            start, wider = index, length
        longest = wider
    if start < len(lengths):
        runs.append((start, len(lengths)))
    return runs


def _iterable(value, name: str, expected: str):
    if isinstance(value, Mapping) or not isinstance(value, Iterable):
        raise ValueError(f"{name} must be {expected}, received {type(value).__name__}")
    return value
