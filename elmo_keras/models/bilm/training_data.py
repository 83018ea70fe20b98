"""What ``train_bilm`` trains on: a corpus in memory or streamed from text files, behind one small interface, and
``fit_from_step``, which runs ``fit`` from any global step so that a resumed run sees exactly the batches (and
reports exactly the epochs) of an uninterrupted one.

The interface (``InMemoryData``, ``StreamedData``):

- ``steps_per_epoch``: batches per epoch (every batch has ``batch_size`` rows; the last one of an epoch is filled
  up with all-padding rows);
- ``batches(epochs, start_step)``: what ``fit`` reads: epochs ``0 … epochs−1`` concatenated, without their first
  ``start_step`` batches; epoch ``e`` is shuffled from ``[seed, e]`` alone;
- ``fingerprint()``: SHA-256 of the corpus (the checkpoints' guard against resuming on another corpus);
- ``num_sentences``, ``num_tokens``, and ``summary_sentences``: the sentences the training summary scores;
- ``split``: the ``SplitReport`` of the sentences over ``max_sentence_tokens``.

Two checks guard every training path (``train_bilm`` in memory or streamed, ``fine_tune_pretrained``), each done
once, from token counts the path has anyway: ``training_sentences`` / ``warn_split`` (over-long sentences are split,
with a ``TrainingDataWarning`` saying how many), and ``check_vocabulary_coverage`` (a ``TrainingDataWarning`` above
``UNKNOWN_RATE_WARNING`` of the tokens unknown to the vocabulary, an error when none is known).
"""

from __future__ import annotations

import glob
import os
import warnings
from collections import Counter
from collections.abc import Mapping

from elmo_keras.data.streaming import StreamingCorpus
from elmo_keras.models.bilm.batches import ShuffledBatches, training_batches
from elmo_keras.models.bilm.checkpoint_files import fingerprint
from elmo_keras.text.sentences import SplitReport, as_token_lists, split_long_sentences
from elmo_keras.text.vocabulary import UNK_ID, Vocabulary

SUMMARY_SAMPLE_SENTENCES = 2_000
UNKNOWN_RATE_WARNING = 0.10  # a corpus with more of its tokens outside the vocabulary trains mostly to predict <unk>


class TrainingDataWarning(UserWarning):
    """The training data was changed (over-long sentences split) or is suspect (many tokens unknown to the
    vocabulary); the ``train`` command prints it as one ``warning: …`` line."""


class InMemoryData:
    """Token lists held in memory, batched by ``ShuffledBatches`` (``training_batches`` picks ``tf.data`` or a
    ``PyDataset``).

    Args:
        sentences: non-empty token lists, ``list[list[str]]``.
        vocabulary, token_input, batch_size, seed: as ``ShuffledBatches``.
        split: the ``SplitReport`` of how ``sentences`` were cut (``training_sentences``). Defaults to none.
    """

    def __init__(self, sentences, vocabulary, token_input, batch_size, seed, split=SplitReport()):
        self.plan = ShuffledBatches(sentences, vocabulary, token_input, batch_size, seed=seed)
        self.split = split
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
        self.split = stats.split
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
        config: the ``BiLMConfig`` (``token_input``, ``batch_size``, ``lowercase``, ``max_sentence_tokens``: longer
            sentences are split, with a ``TrainingDataWarning``).
        seed: int, the shuffling seed.
        vocabulary: a fixed ``Vocabulary``; default: built from the corpus (one streaming pass for files).
        min_count, max_size: ``Vocabulary.from_corpus``'s, when the vocabulary is built here.

    Returns:
        ``(data, vocabulary, config)``.

    Raises:
        TypeError: a single str that is neither an existing path nor a glob matching one, or a malformed sentence.
        ValueError: an empty corpus or sentence; a vocabulary that holds none of the corpus's tokens
            (``check_vocabulary_coverage``).
    """
    given = vocabulary
    if is_streamed_corpus(corpus):
        # counts normalized as the vocabulary normalizes: exact unknown-token counts
        lowercase = given.lowercase if given is not None else config.lowercase
        streaming = StreamingCorpus(_as_patterns(corpus), lowercase=lowercase,
                                    max_sentence_tokens=config.max_sentence_tokens)
        scanned, stats = streaming.scan(min_count=min_count, max_size=max_size)
        vocabulary = given or scanned
        counts, split = stats.token_counts, stats.split
        config = _capped(config, stats.num_sentences)
        data = StreamedData(streaming, stats, vocabulary, config.token_input, config.batch_size, seed)
    else:
        if isinstance(corpus, str):
            raise TypeError(f"corpus must be a list of sentences, received a single str; wrap it in a list, or give "
                            f"the path or glob of text files to stream ({corpus[:60]!r} matches no file)")
        sentences, split = split_long_sentences(as_token_lists(corpus), config.max_sentence_tokens)
        counts = Counter(token for sentence in sentences for token in sentence)
        vocabulary = given or Vocabulary.from_counts(counts, min_count=min_count, lowercase=config.lowercase,
                                                     max_size=max_size)
        config = _capped(config, len(sentences))
        data = InMemoryData(sentences, vocabulary, config.token_input, config.batch_size, seed, split)
    warn_split(split, config.max_sentence_tokens)
    check_vocabulary_coverage(counts, vocabulary, given is not None, min_count, max_size)
    return data, vocabulary, config


def training_sentences(sentences, max_tokens: int, what: str = "corpus") -> tuple[list, SplitReport]:
    """``sentences`` (token lists) with those over ``max_tokens`` split (``text.sentences.split_long_sentences``),
    and a ``TrainingDataWarning`` if any was (``warn_split``)."""
    sentences, split = split_long_sentences(sentences, max_tokens)
    warn_split(split, max_tokens, what)
    return sentences, split


def warn_split(split: SplitReport, max_tokens: int, what: str = "corpus") -> None:
    """A ``TrainingDataWarning`` saying how many sentences of ``what`` were split, and how to change it."""
    if split.sentences:
        many = split.sentences != 1
        warnings.warn(
            f"{what}: {split.sentences:,} sentence{'s' if many else ''} over max_sentence_tokens = {max_tokens:,} "
            f"tokens (the longest: {split.longest:,}) {'were' if many else 'was'} split into {split.pieces:,} "
            f"training sentences of at most {max_tokens:,} tokens each, so no batch grows with one long line; "
            "to keep longer sentences whole, raise max_sentence_tokens (train: --max-sentence-tokens)",
            TrainingDataWarning, stacklevel=3)


def check_vocabulary_coverage(token_counts: Mapping[str, int], vocabulary: Vocabulary, given: bool = True,
                              min_count: int = 1, max_size=None) -> float:
    """The share of the corpus's tokens that ``vocabulary`` maps to ``<unk>``; a ``TrainingDataWarning`` above
    ``UNKNOWN_RATE_WARNING``.

    Args:
        token_counts: ``{token: count}`` of the corpus, normalized (lowercased or not) as ``vocabulary`` is or not.
        vocabulary: the ``Vocabulary`` trained with (its ``source``, if any, is named).
        given: bool, the vocabulary was passed in (else built from the corpus with ``min_count``, ``max_size``,
            which the messages name).

    Raises:
        ValueError: not one token of the corpus is in the vocabulary (the model could only learn ``<unk>``).
    """
    total = sum(token_counts.values())
    unknown = sum(count for token, count in token_counts.items() if vocabulary.token_to_id(token) == UNK_ID)
    rate = unknown / total if total else 0.0
    if given:
        source = f"the vocabulary {vocabulary.source}" if getattr(vocabulary, "source", None) else "the vocabulary"
        what = f"{source} ({len(vocabulary):,} entries, lowercase={vocabulary.lowercase})"
        remedy = ("use the vocabulary written for this corpus (its language and casing), or leave the vocabulary "
                  "out to build one from the corpus (train: omit --vocab)")
    else:
        what = f"the vocabulary built with min_count={min_count}, max_size={max_size}"
        remedy = "lower min_count or raise max_size (train: --min-count, --max-vocab)"
    if total and unknown == total:
        raise ValueError(f"none of the corpus's {total:,} tokens is in {what}: the model could learn only to predict "
                         f"<unk>; {remedy}")
    if rate > UNKNOWN_RATE_WARNING:
        warnings.warn(f"{rate:.1%} of the corpus's {total:,} tokens are not in {what} and train as <unk> (warned "
                      f"above {UNKNOWN_RATE_WARNING:.0%}): the perplexity will look better than the model is; {remedy}",
                      TrainingDataWarning, stacklevel=3)
    return rate


def _capped(config, num_sentences: int):
    """``config`` with a batch no larger than the corpus (a bigger one would only be padded with empty rows)."""
    return config.replace(batch_size=num_sentences) if config.batch_size > num_sentences else config


def _as_patterns(corpus):
    """What ``StreamingCorpus`` takes: a str pattern, or a list of str paths / patterns."""
    if isinstance(corpus, (list, tuple)):
        return [os.fspath(path) for path in corpus]
    return os.fspath(corpus)
