"""``StreamingCorpus``: a biLM's training batches from text files too large to hold in memory.

The corpus is read one line at a time (``data.corpus_files``: globs, gzip, UTF-8 checked line by line) in two
kinds of pass:

- ``scan`` — one pass in file order: the vocabulary (counts, ``min_count``, ``max_size``; equal to
  ``Vocabulary.from_corpus`` on the same sentences) and the corpus statistics, among them the sentence count
  that fixes ``steps_per_epoch`` and the fingerprint that checkpoints compare. It also checks every line, so a
  bad byte fails here, naming file and line, before any training starts.

A line of more than ``max_sentence_tokens`` tokens is read as several training sentences
(``text.sentences.sentence_windows``, the in-memory path's rule), in every pass: no batch holds a longer one.
- ``batches`` — ``epochs`` passes as one ``tf.data.Dataset`` of ``(inputs, targets)`` batches, encoded exactly as
  the in-memory path encodes them (``text.batching.lm_inputs_and_targets``, ``models.bilm.batches.ShuffledBatches``).
  Epoch ``e`` is shuffled from ``np.random.default_rng([seed, e])``:

  1. the files in a random order, ``files_at_once`` of them read in turn, one line from each (an interleave);
  2. a shuffle buffer of ``shuffle_buffer`` sentences (a random one leaves as each new one enters: the
     ``tf.data`` shuffle's rule);
  3. pools of ``pool_batches × batch_size`` sentences sorted by length and cut into batches (little padding),
     the batch order shuffled inside each pool. The epoch's one short batch (``num_sentences`` not a multiple of
     ``batch_size``; it lies in the last pool) is filled up with all-padding rows.

  Memory is bounded by the buffer, a pool and the open files, whatever the corpus size. Every epoch yields
  exactly ``steps_per_epoch`` batches and every sentence once; ``start_step`` skips batches without encoding them
  (whole epochs without reading them), so a resumed run sees exactly the batches an uninterrupted one would.

The shuffling runs in Python, inside one ``tf.data.Dataset.from_generator``: its random numbers come from NumPy,
never from TensorFlow's global seed (which ``keras.utils.set_random_seed`` changes, and which a ``tf.data``
shuffle would mix into its own), so the same seed gives the same batches in any process, on every backend.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import os
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence

import numpy as np

from elmo_keras.argument_checks import check_int
from elmo_keras.data.corpus_files import CorpusFileError, corpus_paths, file_sentences
from elmo_keras.limits import check_batch_size
from elmo_keras.text.batching import TOKEN_INPUTS, lm_inputs_and_targets
from elmo_keras.text.char_ids import MAX_CHARS_PER_TOKEN
from elmo_keras.text.sentences import DEFAULT_MAX_SENTENCE_TOKENS, SplitReport, sentence_windows
from elmo_keras.text.vocabulary import Vocabulary

RANDOM_DRAWS_AT_ONCE = 4096  # shuffle-buffer positions drawn per NumPy call (one call per sentence is slow)


@dataclasses.dataclass(frozen=True)
class CorpusStats:
    """What ``StreamingCorpus.scan`` counted.

    Attributes:
        num_files: int, files read.
        num_sentences: int, training sentences: non-blank lines, a line over ``max_sentence_tokens`` counted as the
            pieces it is split into.
        num_tokens: int, tokens in them (without ``<S>``/``</S>``).
        longest_sentence: int, tokens in the longest line (before any split).
        token_counts: ``{token: count}`` over the whole corpus, lowercased when the corpus is (the counts the
            vocabulary was chosen from, with any special tokens the text holds, which the vocabulary leaves out).
        fingerprint: str, SHA-256 (hex) of the corpus: each file's name, then its sentences (tokens joined by one
            space), as length-prefixed UTF-8 chunks (``models.bilm.checkpoint_files.fingerprint``'s scheme); a file's
            name is prefixed with ``"\\n"``, which no sentence holds. Checkpoints compare it to refuse resuming on
            another corpus.
        split: the ``SplitReport`` of the lines over ``max_sentence_tokens``.
    """

    num_files: int
    num_sentences: int
    num_tokens: int
    longest_sentence: int
    token_counts: Mapping[str, int]
    fingerprint: str
    split: SplitReport = SplitReport()


class StreamingCorpus:
    """Sentences in text files, streamed: a vocabulary scan and shuffled training batches (module docstring).

    Args:
        pattern: a glob (``"shards/*.txt.gz"``), a path, or a list of them (``data.corpus_files.corpus_paths``).
        shuffle_buffer: int, sentences in the shuffle buffer. Defaults to 10_000.
        lowercase: bool, ``scan`` builds a lowercase vocabulary (``Vocabulary.from_corpus``'s rule). Batches
            always encode the text as written: word ids follow the given vocabulary's own rule, character ids
            are never lowercased (as in ``train_bilm``). Defaults to False.
        files_at_once: int, files read in turn (interleaved). Defaults to 4.
        pool_batches: int, batches per length-sorted pool (1: no sorting). Defaults to 8, ``ShuffledBatches``'.
        max_sentence_tokens: int, tokens per training sentence; a longer line is split into pieces
            (``text.sentences.sentence_windows``). Defaults to ``DEFAULT_MAX_SENTENCE_TOKENS``.

    Attributes:
        paths: the corpus files, sorted.
        num_sentences: int once ``scan`` has run, else None.
        stats: the ``CorpusStats`` of the last ``scan``, else None.

    Raises:
        TypeError, ValueError, FileNotFoundError: as ``corpus_paths`` (no file matches, a directory, …); a
            setting that is not a positive int.

    Example:
        >>> corpus = StreamingCorpus("shards/*.txt.gz")  # doctest: +SKIP
        >>> vocabulary, stats = corpus.scan(min_count=2)  # doctest: +SKIP
        >>> dataset = corpus.batches(vocabulary, "char", batch_size=64, seed=0, epochs=3)  # doctest: +SKIP
        >>> model.fit(dataset, epochs=3, steps_per_epoch=corpus.steps_per_epoch(64))  # doctest: +SKIP
    """

    def __init__(self, pattern, shuffle_buffer: int = 10_000, lowercase: bool = False, files_at_once: int = 4,
                 pool_batches: int = 8, max_sentence_tokens: int = DEFAULT_MAX_SENTENCE_TOKENS):
        self.paths = corpus_paths(pattern)
        self.shuffle_buffer = check_int(shuffle_buffer, "shuffle_buffer")
        self.lowercase = bool(lowercase)
        self.files_at_once = check_int(files_at_once, "files_at_once")
        self.pool_batches = check_int(pool_batches, "pool_batches")
        self.max_sentence_tokens = check_int(max_sentence_tokens, "max_sentence_tokens")
        self.num_sentences: int | None = None
        self.stats: CorpusStats | None = None

    def __repr__(self) -> str:
        return f"StreamingCorpus({len(self.paths)} files, num_sentences={self.num_sentences})"

    # -- reading in file order ------------------------------------------------------------------------------------

    def sentences(self) -> Iterator[list[str]]:
        """Every training sentence (a token list; a long line's pieces), files in ``paths`` order, lines in file
        order."""
        for path in self.paths:
            for _, tokens in file_sentences(path):
                yield from sentence_windows(tokens, self.max_sentence_tokens)

    def head(self, count: int) -> list[list[str]]:
        """The first ``count`` sentences in file order (fewer if the corpus is smaller): a bounded sample, e.g. to
        report a training perplexity on."""
        count = check_int(count, "count")
        sample = []
        for tokens in self.sentences():
            sample.append(tokens)
            if len(sample) == count:
                break
        return sample

    def scan(self, min_count: int = 1, max_size: int | None = None) -> tuple[Vocabulary, CorpusStats]:
        """One pass over the corpus: its vocabulary, statistics and fingerprint; sets ``num_sentences`` and ``stats``.

        Args:
            min_count, max_size: as ``Vocabulary.from_corpus`` (the vocabulary is equal to it on these sentences,
                with this corpus's ``lowercase``: ``Vocabulary.from_counts`` of the counted tokens).

        Returns:
            ``(vocabulary, stats)``.

        Raises:
            CorpusFileError: a line that is not UTF-8 or is too long (naming the file and line).
            ValueError: the files hold no sentence; a bad ``min_count`` / ``max_size``.
        """
        counts: Counter[str] = Counter()
        digest = hashlib.sha256()
        num_lines = num_tokens = longest = 0
        split = SplitReport()
        for path in self.paths:
            _add_chunk(digest, "\n" + os.path.basename(path))
            for _, tokens in file_sentences(path):
                _add_chunk(digest, " ".join(tokens))
                counts.update([token.lower() for token in tokens] if self.lowercase else tokens)
                num_lines += 1
                num_tokens += len(tokens)
                longest = max(longest, len(tokens))
                split = split.counted(len(tokens), self.max_sentence_tokens)
        if num_lines == 0:
            raise ValueError(f"the corpus files hold no sentence (only blank lines): {self._files_named()}")
        vocabulary = Vocabulary.from_counts(counts, min_count=min_count, lowercase=self.lowercase, max_size=max_size)
        num_sentences = num_lines - split.sentences + split.pieces
        self.stats = CorpusStats(len(self.paths), num_sentences, num_tokens, longest, dict(counts),
                                 digest.hexdigest(), split)
        self.num_sentences = num_sentences
        return vocabulary, self.stats

    def steps_per_epoch(self, batch_size: int) -> int:
        """Batches per epoch: ``ceil(num_sentences / batch_size)``.

        Raises:
            RuntimeError: ``scan`` has not run (the sentence count is unknown).
        """
        return -(-self._scanned_sentences() // check_batch_size(batch_size))

    # -- shuffled batches -----------------------------------------------------------------------------------------

    def epoch_sentence_batches(self, batch_size: int, seed: int, epoch: int) -> Iterator[list[list[str]]]:
        """The sentences of every batch of ``epoch``, in training order (the last batch may be short).

        Raises:
            CorpusFileError: the files no longer hold ``num_sentences`` sentences (changed since ``scan``).
        """
        batch_size = check_batch_size(batch_size)
        rng = np.random.default_rng([int(seed), int(epoch)])
        order = [self.paths[i] for i in rng.permutation(len(self.paths))]
        stream = _buffer_shuffled(_interleaved(order, self.files_at_once, self.max_sentence_tokens),
                                  self.shuffle_buffer, rng)
        expected, seen = self._scanned_sentences(), 0
        pool_size = batch_size * self.pool_batches
        for pool in _chunks(stream, pool_size):
            seen += len(pool)
            if seen > expected:
                break
            pool.sort(key=len)  # stable: equal lengths keep their shuffled order
            cut = [pool[i : i + batch_size] for i in range(0, len(pool), batch_size)]
            for k in rng.permutation(len(cut)):
                yield cut[k]
        if seen != expected:
            raise CorpusFileError(f"the corpus files changed since scan(): {self.num_sentences:,} sentences then, "
                                  f"{'more' if seen > expected else seen} now ({self._files_named()}); scan again")

    def epoch_batches(self, vocabulary: Vocabulary, token_input: str, batch_size: int, seed: int, epoch: int,
                      skip: int = 0) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """``epoch``'s batches as NumPy ``(inputs, targets)``, ``ShuffledBatches``' items: int32 word ids
        `(batch_size, time)` or character ids `(batch_size, time, 50)`, and int32 targets `(batch_size, time)`,
        ``time`` = the batch's longest sentence + 2 (rounded up on JAX: ``padded_time``); short batches filled
        with all-zero rows. The first ``skip`` batches are planned but not encoded nor yielded."""
        for index, batch in enumerate(self.epoch_sentence_batches(batch_size, seed, epoch)):
            if index >= skip:
                yield encoded_batch(batch, vocabulary, token_input, batch_size)

    def batches(self, vocabulary: Vocabulary, token_input: str, batch_size: int, seed: int, epochs: int,
                start_step: int = 0):
        """``epochs`` epochs of shuffled training batches, concatenated, as a ``tf.data.Dataset``.

        Args:
            vocabulary: the ``Vocabulary`` of the targets (and of the inputs for ``"word"``).
            token_input: ``"word"`` or ``"char"``.
            batch_size: int, rows in every batch.
            seed: int, epoch ``e`` is shuffled from ``[seed, e]``.
            epochs: int, epochs to yield.
            start_step: int, batches to skip, counted across epochs (a resumed run's global step). Defaults to 0.

        Returns:
            A ``tf.data.Dataset`` of ``(inputs, targets)`` (``epoch_batches``) with the time axis left None in its
            element spec (one trace of the training step); ``epochs × steps_per_epoch(batch_size) − start_step``
            batches. ``fit`` takes it on every backend (``steps_per_epoch`` keeps one iterator across epochs).

        Raises:
            RuntimeError: ``scan`` has not run.
            ValueError: an unknown ``token_input``, a bad ``batch_size``/``epochs``, ``start_step`` outside
                ``[0, epochs × steps_per_epoch]``.
            TypeError: ``vocabulary`` is not a ``Vocabulary``.
        """
        # here: importing this module loads no Keras (the explorer's first page imports elmo_keras.data)
        from elmo_keras._backend import generated_batches

        steps = self.steps_per_epoch(batch_size)
        self._check_batch_arguments(vocabulary, token_input, epochs, start_step, steps)
        batch_size, seed, epochs, start_step = int(batch_size), int(seed), int(epochs), int(start_step)

        def all_batches():
            for epoch in range(start_step // steps, epochs):
                skip = start_step - epoch * steps if epoch == start_step // steps else 0
                yield from self.epoch_batches(vocabulary, token_input, batch_size, seed, epoch, skip)

        return generated_batches(all_batches, batch_size, (MAX_CHARS_PER_TOKEN,) if token_input == "char" else ())

    # -- checks ---------------------------------------------------------------------------------------------------

    def _scanned_sentences(self) -> int:
        if self.num_sentences is None:
            raise RuntimeError("the sentence count is unknown: call corpus.scan() first (one pass over the files)")
        return self.num_sentences

    def _files_named(self) -> str:
        shown = ", ".join(self.paths[:3])
        return shown + (f" and {len(self.paths) - 3} more" if len(self.paths) > 3 else "")

    def _check_batch_arguments(self, vocabulary, token_input, epochs, start_step, steps) -> None:
        if not isinstance(vocabulary, Vocabulary):
            raise TypeError(f"vocabulary must be a Vocabulary, received {type(vocabulary).__name__}")
        if token_input not in TOKEN_INPUTS:
            raise ValueError(f"token_input must be one of {TOKEN_INPUTS}, received {token_input!r}")
        epochs = check_int(epochs, "epochs")
        if isinstance(start_step, bool) or not isinstance(start_step, (int, np.integer)) \
                or not 0 <= start_step <= epochs * steps:
            raise ValueError(f"start_step must be an int in [0, epochs × steps_per_epoch = {epochs * steps}], "
                             f"received {start_step!r}")


def encoded_batch(sentences: Sequence[Sequence[str]], vocabulary: Vocabulary, token_input: str,
                  batch_size: int) -> tuple[np.ndarray, np.ndarray]:
    """One training batch exactly as ``ShuffledBatches`` encodes it: ``lm_inputs_and_targets`` padded to
    ``padded_time(longest + 2)`` steps, then filled up to ``batch_size`` rows with zeros."""
    # here: keeps `import elmo_keras.data.streaming` free of Keras (the explorer's first page imports elmo_keras.data)
    from elmo_keras._backend import padded_time

    length = padded_time(max(len(sentence) for sentence in sentences) + 2)
    inputs, targets = lm_inputs_and_targets(sentences, vocabulary, token_input, length)
    missing = batch_size - len(sentences)
    if missing:
        inputs = np.concatenate([inputs, np.zeros((missing,) + inputs.shape[1:], inputs.dtype)])
        targets = np.concatenate([targets, np.zeros((missing,) + targets.shape[1:], targets.dtype)])
    return inputs, targets


def _add_chunk(digest, text: str) -> None:
    """Feed ``text`` to ``digest`` as ``models.bilm.checkpoint_files.fingerprint`` feeds a chunk: its UTF-8 length
    (8 bytes, little-endian), then its UTF-8 bytes."""
    data = text.encode("utf-8")
    digest.update(len(data).to_bytes(8, "little"))
    digest.update(data)


def _interleaved(paths: Sequence[str], at_once: int, max_tokens: int | None = None) -> Iterator[list[str]]:
    """Sentences of ``paths`` read ``at_once`` files in turn, one line from each; a finished file's place goes to
    the next file in ``paths``. A line over ``max_tokens`` gives its pieces (``sentence_windows``) in turn."""
    upcoming = iter(paths)
    readers = [file_sentences(path) for path in itertools.islice(upcoming, at_once)]
    while readers:
        still_reading = []
        for reader in readers:
            item = next(reader, None)
            while item is None and (path := next(upcoming, None)) is not None:
                reader = file_sentences(path)
                item = next(reader, None)
            if item is not None:
                still_reading.append(reader)
                if max_tokens is None:
                    yield item[1]
                else:
                    yield from sentence_windows(item[1], max_tokens)
        readers = still_reading


def _buffer_shuffled(stream: Iterable, size: int, rng: np.random.Generator) -> Iterator:
    """``stream`` shuffled through a buffer of ``size`` items: once it is full, each new item takes the place of a
    random one, which leaves; at the end the rest leave in a random order."""
    buffer, draws = [], iter(())
    for item in stream:
        if len(buffer) < size:
            buffer.append(item)
            continue
        index = next(draws, None)
        if index is None:
            draws = iter(rng.integers(0, size, RANDOM_DRAWS_AT_ONCE).tolist())
            index = next(draws)
        yield buffer[index]
        buffer[index] = item
    for index in rng.permutation(len(buffer)):
        yield buffer[index]


def _chunks(stream: Iterable, size: int) -> Iterator[list]:
    """``stream`` cut into lists of ``size`` items (the last may be shorter, never empty)."""
    chunk = []
    for item in stream:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
