"""The one job runner: sentences cut into windows, each window into batches, each batch embedded as its run says.

``ElmoEmbedder`` (``embed_batch``, ``embed_sentences``, ``embed_file``) and ``analysis.sentence_activations``
(``layer_embeddings``, the explorer's probes) all embed through ``embed_job``, which checks every window's sentences
once (``text.batching.check_token_lists``, naming a sentence by its index in the whole job), so they batch, pad and
refuse alike.

A stateless job reads ``SORT_WINDOW_BATCHES`` batches' worth of sentences at a time and, when ``sort``, batches
each window longest first so that batches need little padding (the order of the results is restored). A stateful
biLM carries LSTM state per batch row from call to call, so its job keeps the input order, one batch per window,
and refuses an empty sentence (its row would have nothing to carry the state through).

How a batch runs (``BatchRun``): ``execution="auto"`` is ``"graph"``, one TensorFlow graph traced once for every
shape; ``"xla"`` is an explicit opt-in (compiled once per padded shape: a job's batches are padded to ``batch_size``
rows and the time axis to a multiple of ``time_bucket``, so that a job compiles at most once per such bucket;
docs/speed.md says when it pays). On JAX every mode but ``"eager"`` is ``jax.jit``, padded the same way; PyTorch runs
every mode eagerly.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np

from elmo_keras._backend import compiles_per_shape
from elmo_keras.embedding.choices import AUTO, DEFAULT_TIME_BUCKET
from elmo_keras.embedding.inference import embed_token_lists
from elmo_keras.embedding.shards import SORT_WINDOW_BATCHES
from elmo_keras.layers.transformer_bilm import TransformerBiLM
from elmo_keras.limits import check_attention_fits, check_length
from elmo_keras.text.batching import SentenceIds, check_token_lists

BOUNDARIES = 2  # <S> and </S>, added to every sentence


@dataclasses.dataclass(frozen=True)
class BatchRun:
    """How one batch runs: the execution mode and what its ids are padded to.

    Args:
        execution: ``"graph"``, ``"xla"`` or ``"eager"``.
        rows: pad the batch to this many rows (padding rows are masked); None: a power of two where the mode
            compiles per shape, else as it is.
        time_bucket: pad the time axis to a multiple of this many steps (1: as it is).
    """

    execution: str
    rows: int | None = None
    time_bucket: int = 1


def batch_run(execution: str, time_bucket: int, rows: int | None = None) -> BatchRun:
    """How a batch runs for ``execution`` (``"auto"`` is ``"graph"``): a mode that compiles per shape pads the rows
    to ``rows`` (a job's ``batch_size``; None for a single call: a power of two) and the time axis to a multiple of
    ``time_bucket``; any other runs the batch as it is."""
    execution = "graph" if execution == AUTO else execution
    if compiles_per_shape(execution):
        return BatchRun(execution, rows, time_bucket)
    return BatchRun(execution)


def window_batches(lengths: Sequence[int], batch_size: int, sort: bool = True) -> list[list[int]]:
    """The batches one window of sentences is embedded in: their indices, ``batch_size`` at a time, longest first
    when ``sort`` (stable: equal lengths keep their order), else in order."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i]) if sort else list(range(len(lengths)))
    return [order[start : start + batch_size] for start in range(0, len(order), batch_size)]


def embed_batch(bilm, sentence_ids: SentenceIds, sentences: Sequence[Sequence[str]], run: BatchRun, *,
                strategy=None, matmul_dtype=None, first: int = 0) -> list[np.ndarray]:
    """One batch of checked sentences (``check_token_lists``) as one biLM call: a float32 `(num_layers, tokens, dim)`
    array each, an empty sentence's with 0 tokens.

    Args:
        bilm: a built ``BiLM`` (stateful or not).
        sentence_ids: how sentences become its input (``text.batching.sentence_ids``).
        sentences: token lists.
        run: how the batch runs (``batch_run``).
        strategy, matmul_dtype: as ``inference.embed_token_lists``. Default to None.
        first: int, the caller's index of ``sentences[0]`` (for the error). Defaults to 0.

    Raises:
        ValueError: a stateful ``bilm`` and an empty sentence (naming it by ``first + i``).
    """
    results = [np.zeros((bilm.num_activation_layers, 0, bilm.output_dim), dtype=np.float32) for _ in sentences]
    rows = [i for i, sentence in enumerate(sentences) if len(sentence) > 0]
    if bilm.stateful and len(rows) != len(sentences):
        empty = next(i for i, sentence in enumerate(sentences) if len(sentence) == 0)
        raise ValueError(f"sentence {first + empty} is empty; stateful mode keeps LSTM state per batch row, so every "
                         "row needs tokens")
    if rows:
        check_batch_fits(bilm, [len(sentences[i]) for i in rows], run, [first + i for i in rows])
        embedded = embed_token_lists(bilm, sentence_ids, [list(sentences[i]) for i in rows], run.execution,
                                     run.time_bucket, strategy, run.rows, matmul_dtype)
        for i, vectors in zip(rows, embedded):
            results[i] = vectors
    return results


def check_batch_fits(bilm, lengths: Sequence[int], run: BatchRun, indices: Sequence[int]) -> None:
    """Refuse, before any work, a batch of non-empty sentences of ``lengths`` (tokens, boundaries not counted) that
    a ``TransformerBiLM`` cannot embed: a sentence past its ``max_length`` positions (with its boundaries), or a batch
    whose attention (``limits.attention_bytes``, at the rows and length ``run`` pads to) exceeds available memory.
    Any other biLM passes.

    Raises:
        ValueError: one line, naming the sentence (by its caller's index, ``indices[i]``) or the batch's rows ×
            positions.
    """
    if not isinstance(bilm, TransformerBiLM) or not lengths:
        return
    for index, length in zip(indices, lengths):
        check_length(f"sentences[{index}]", length, bilm.max_length - BOUNDARIES,
                     fix=f"the transformer has {bilm.max_length:,} positions, {BOUNDARIES} of them for <S> and </S>; "
                         "split or shorten it")
    positions = -(-(max(lengths) + BOUNDARIES) // run.time_bucket) * run.time_bucket
    check_attention_fits(max(len(lengths), run.rows or 0), positions, bilm.num_heads)


def embed_job(bilm, sentence_ids: SentenceIds, sentences: Iterable[Sequence[str]], batch_size: int, *,
              execution: str = AUTO, time_bucket: int = DEFAULT_TIME_BUCKET, strategy=None, matmul_dtype=None,
              sort: bool = True,
              on_batch: Callable[[int], None] | None = None) -> Iterator[np.ndarray]:
    """Lazily embed ``sentences`` (see the module docstring); yields one float32 `(num_layers, tokens, dim)` array per
    sentence, in input order.

    Args:
        bilm: a built ``BiLM``; a stateful one keeps the input order (one batch per window).
        sentence_ids: how sentences become its input (``text.batching.sentence_ids``).
        sentences: token lists (any iterable: read one window at a time).
        batch_size: int, sentences per biLM call.
        execution: ``"auto"``, ``"graph"``, ``"xla"`` or ``"eager"``. Defaults to ``"auto"`` (the graph).
        time_bucket: int ≥ 1, where a mode compiles per shape: pad the time axis to a multiple of this. Defaults to 16.
        strategy, matmul_dtype: as ``inference.embed_token_lists``. Default to None.
        sort: bool, batch each stateless window longest first; False keeps the caller's order (the batches are then
            the caller's sentences ``batch_size`` at a time). Defaults to True.
        on_batch: called as ``on_batch(number_of_sentences)`` after every biLM call. Defaults to None.

    Raises:
        TypeError, ValueError: as ``check_token_lists(window, bilm.token_input)`` and ``embed_batch``, as each window
            is reached, naming a sentence by its index in ``sentences``.
    """
    window_size = batch_size if bilm.stateful else batch_size * SORT_WINDOW_BATCHES
    run = batch_run(execution, time_bucket, batch_size)
    window: list[Sequence[str]] = []
    first = 0  # the index of window[0] in sentences
    for sentence in sentences:
        window.append(sentence)
        if len(window) == window_size:
            yield from _embed_window(bilm, sentence_ids, window, batch_size, run, strategy, matmul_dtype,
                                     sort and not bilm.stateful, on_batch, first)
            first += len(window)
            window = []
    if window:
        yield from _embed_window(bilm, sentence_ids, window, batch_size, run, strategy, matmul_dtype,
                                 sort and not bilm.stateful, on_batch, first)


def _embed_window(bilm, sentence_ids, window, batch_size, run, strategy, matmul_dtype, sort, on_batch,
                  first: int) -> list[np.ndarray]:
    check_token_lists(window, bilm.token_input, first)  # errors name the caller's sentence, not the batch's
    lengths = [len(sentence) for sentence in window]
    results = [None] * len(window)
    chunks = window_batches(lengths, batch_size, sort)
    for chunk in chunks:  # every batch of the window, before the first is embedded
        rows = [i for i in chunk if lengths[i]]
        check_batch_fits(bilm, [lengths[i] for i in rows], run, [first + i for i in rows])
    for chunk in chunks:
        # first + chunk[0]: the caller's index of the chunk's first sentence (stateful mode: unsorted, one chunk)
        embedded = embed_batch(bilm, sentence_ids, [window[i] for i in chunk], run, strategy=strategy,
                               matmul_dtype=matmul_dtype, first=first + chunk[0])
        for i, vectors in zip(chunk, embedded):
            results[i] = vectors
        if on_batch is not None:
            on_batch(len(chunk))
    return results
