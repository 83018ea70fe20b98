"""What ``train_bilm`` trains on: a corpus in memory or streamed from text files, behind one small interface, and
``fit_from_step``, which runs ``fit`` from any global step so that a resumed run sees exactly the batches (and
reports exactly the epochs) of an uninterrupted one.

The interface (``InMemoryData``, ``StreamedData``):

- ``steps_per_epoch``: batches per epoch (every batch has ``batch_size`` rows; the last one of an epoch is filled
  up with all-padding rows);
- ``batches(epochs, start_step)``: what ``fit`` reads: epochs ``0 … epochs−1`` concatenated, without their first
  ``start_step`` batches; epoch ``e`` is shuffled from ``[seed, e]`` alone;
- ``fingerprint()``: SHA-256 of the corpus (the checkpoints' guard against resuming on another corpus);
- ``num_sentences``, ``num_tokens``, and ``summary_sentences``: the sentences the training summary scores.
"""

from __future__ import annotations

import glob
import os

from elmo_keras.data.streaming import StreamingCorpus
from elmo_keras.models.batches import ShuffledBatches, training_batches
from elmo_keras.models.checkpoint_files import fingerprint
from elmo_keras.text.sentences import as_token_lists
from elmo_keras.text.vocabulary import Vocabulary

SUMMARY_SAMPLE_SENTENCES = 2_000


class InMemoryData:
    """Token lists held in memory, batched by ``ShuffledBatches`` (``training_batches`` picks ``tf.data`` or a
    ``PyDataset``).

    Args:
        sentences: non-empty token lists, ``list[list[str]]``.
        vocabulary, token_input, batch_size, seed: as ``ShuffledBatches``.
    """

    def __init__(self, sentences, vocabulary, token_input, batch_size, seed):
        self.plan = ShuffledBatches(sentences, vocabulary, token_input, batch_size, seed=seed)
        self.num_sentences = len(sentences)
        self.num_tokens = int(sum(len(s) for s in sentences))
        self.summary_sentences = self.plan.sentences

    @property
    def steps_per_epoch(self) -> int:
        return len(self.plan)

    def batches(self, epochs: int, start_step: int = 0):
        return training_batches(self.plan, epochs, start_step)

    def fingerprint(self) -> str:
        return fingerprint(" ".join(sentence) for sentence in self.plan.sentences)


class StreamedData:
    """Sentences streamed from text files by a scanned ``StreamingCorpus`` (``data.streaming``).

    Args:
        corpus: the ``StreamingCorpus``, after ``scan``.
        stats: the ``CorpusStats`` its scan returned.
        vocabulary, token_input, batch_size, seed: as ``StreamingCorpus.batches``.
        sample_size: int, sentences the training summary scores (the first ones read). Defaults to
            ``SUMMARY_SAMPLE_SENTENCES``.
    """

    def __init__(self, corpus, stats, vocabulary, token_input, batch_size, seed,
                 sample_size=SUMMARY_SAMPLE_SENTENCES):
        self.corpus, self.stats, self.vocabulary = corpus, stats, vocabulary
        self.token_input, self.batch_size, self.seed = token_input, int(batch_size), int(seed)
        self.num_sentences = int(stats.num_sentences)
        self.num_tokens = int(stats.num_tokens)
        self.summary_sentences = corpus.head(sample_size)

    @property
    def steps_per_epoch(self) -> int:
        return self.corpus.steps_per_epoch(self.batch_size)

    def batches(self, epochs: int, start_step: int = 0):
        return self.corpus.batches(self.vocabulary, self.token_input, self.batch_size, self.seed, epochs,
                                   start_step=start_step)

    def fingerprint(self) -> str:
        """The corpus's SHA-256, computed by the scan (``CorpusStats.fingerprint``: file names and sentences)."""
        return self.stats.fingerprint


def fit_from_step(model, data, epochs: int, start_step: int, callbacks, verbose: int = 0) -> None:
    """Train ``model`` on ``data`` from global step ``start_step`` to the end of epoch ``epochs − 1``.

    ``fit`` runs whole epochs of one length, so a run resumed inside epoch ``e`` first fits the rest of that epoch
    alone (``initial_epoch=e``, ``steps_per_epoch`` = the steps left), then the following epochs
    (``initial_epoch=e+1``): callbacks see the same epoch numbers as in an uninterrupted run.

    Args:
        model: the compiled model.
        data: an ``InMemoryData`` or ``StreamedData``.
        epochs: int, the run's number of epochs.
        start_step: int, optimizer steps already done (0 for a new run).
        callbacks: Keras callbacks for both ``fit`` calls.
        verbose: ``fit``'s verbosity.
    """
    steps = data.steps_per_epoch
    epoch, offset = divmod(int(start_step), steps)
    options = {"shuffle": False, "callbacks": callbacks, "verbose": verbose}
    if offset and epoch < epochs:
        model.fit(data.batches(epoch + 1, start_step), epochs=epoch + 1, initial_epoch=epoch,
                  steps_per_epoch=steps - offset, **options)
        epoch += 1
    if epoch < epochs:
        model.fit(data.batches(epochs, epoch * steps), epochs=epochs, initial_epoch=epoch, steps_per_epoch=steps,
                  **options)


def is_streamed_corpus(corpus) -> bool:
    """Whether ``train_bilm`` streams ``corpus`` from files: a ``pathlib.Path`` / ``os.PathLike``, a list of them, or
    a str that names an existing path or is a glob pattern matching one (a list of str is a list of sentences)."""
    if isinstance(corpus, str):  # a sentence may be long, or hold "?", "*" or "[": neither names a file
        return os.path.exists(corpus) or (glob.has_magic(corpus) and bool(glob.glob(corpus, recursive=True)))
    if hasattr(corpus, "__fspath__"):
        return True
    return isinstance(corpus, (list, tuple)) and bool(corpus) and all(hasattr(c, "__fspath__") for c in corpus)


def prepare_training_data(corpus, config, seed: int, vocabulary=None, min_count: int = 1, max_size=None):
    """The training data of ``corpus`` and its vocabulary, with ``config.batch_size`` capped at the corpus size.

    Args:
        corpus: sentences (a list of str or token lists: held in memory), or text files to stream: a str path or
            glob, an ``os.PathLike``, or a list of ``os.PathLike``.
        config: the ``BiLMConfig`` (``token_input``, ``batch_size``, ``lowercase``).
        seed: int, the shuffling seed.
        vocabulary: a fixed ``Vocabulary``; default: built from the corpus (one streaming pass for files).
        min_count, max_size: ``Vocabulary.from_corpus``'s, when the vocabulary is built here.

    Returns:
        ``(data, vocabulary, config)``.

    Raises:
        TypeError: a single str that is neither an existing path nor a glob matching one, or a malformed sentence.
        ValueError: an empty corpus or sentence.
    """
    if is_streamed_corpus(corpus):
        streaming = StreamingCorpus(_as_patterns(corpus), lowercase=config.lowercase)
        scanned, stats = streaming.scan(min_count=min_count, max_size=max_size)
        vocabulary = vocabulary or scanned
        config = _capped(config, stats.num_sentences)
        return (StreamedData(streaming, stats, vocabulary, config.token_input, config.batch_size, seed),
                vocabulary, config)
    if isinstance(corpus, str):
        raise TypeError(f"corpus must be a list of sentences, received a single str; wrap it in a list, or give the "
                        f"path or glob of text files to stream ({corpus[:60]!r} matches no file)")
    sentences = as_token_lists(corpus)
    vocabulary = vocabulary or Vocabulary.from_corpus(sentences, min_count=min_count, lowercase=config.lowercase,
                                                      max_size=max_size)
    config = _capped(config, len(sentences))
    return InMemoryData(sentences, vocabulary, config.token_input, config.batch_size, seed), vocabulary, config


def _capped(config, num_sentences: int):
    """``config`` with a batch no larger than the corpus (a bigger one would only be padded with empty rows)."""
    return config.replace(batch_size=num_sentences) if config.batch_size > num_sentences else config


def _as_patterns(corpus):
    """What ``StreamingCorpus`` takes: a str pattern, or a list of str paths / patterns."""
    if isinstance(corpus, (list, tuple)):
        return [os.fspath(path) for path in corpus]
    return os.fspath(corpus)
