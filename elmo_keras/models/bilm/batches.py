"""The biLM's training batches: shuffled deterministically per epoch, bucketed by length, padded per batch."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from elmo_keras._backend import gathered_batches, generated_batches, padded_time, trains_from_tf_data
from elmo_keras._quiet import keras
from elmo_keras.data.streaming import encoded_batch
from elmo_keras.text.batching import lm_inputs_and_targets
from elmo_keras.text.char_ids import MAX_CHARS_PER_TOKEN


class ShuffledBatches(keras.utils.PyDataset):
    """Shuffled training batches, deterministic for a given ``seed``, each padded to its own longest sentence.

    Every epoch (``on_epoch_end`` moves to the next) the
    sentences are shuffled, cut into pools of ``pool_batches`` batches and sorted by length inside each pool,
    so that a batch's sentences are of similar length and little time is spent on padding; the batch order
    is shuffled too. The last batch of an epoch is filled up with empty rows (no loss) so the batch size never
    changes. The first two batches differ in length whenever the corpus allows, so that a pipeline reading
    its signature from them (Keras does) leaves the time axis symbolic: one trace of the training step.

    ``train_bilm`` feeds ``fit`` from ``training_batches``: on TensorFlow a ``tf.data`` pipeline that
    gathers this plan's rows from the encoded corpus (no Python in the loop: a Python generator behind
    ``tf.data`` stalls the end of every epoch while its pipeline is torn down); elsewhere a ``PlannedBatches``
    over this plan (indexed across epochs: Keras's ``on_epoch_end`` calls do not line up with epochs).

    Args:
        sentences: non-empty token lists (``list[list[str]]``), without ``<S>``/``</S>``.
        vocabulary: the ``Vocabulary`` of the targets (and of the inputs for ``"word"``).
        token_input: ``"word"`` or ``"char"`` (``text.batching``).
        batch_size: int, sentences per batch.
        seed: int, the shuffling seed (epoch ``e`` uses ``[seed, e]``). Defaults to 0.
        pool_batches: int, batches per length-sorted pool. Defaults to 8.

    Items (``dataset[i]``) are ``(inputs, targets)`` as ``lm_inputs_and_targets`` makes them: int32 word ids
    `(batch_size, time)` or character ids `(batch_size, time, 50)`, and int32 word ids `(batch_size, time)`,
    ``time`` = the batch's longest sentence + 2.
    """

    def __init__(self, sentences, vocabulary, token_input, batch_size, seed=0, pool_batches=8):
        super().__init__()
        self.sentences = list(sentences)
        self.vocabulary = vocabulary
        self.token_input = token_input
        self.batch_size = int(batch_size)
        self.pool_batches = int(pool_batches)
        self.seed = int(seed)
        self._epoch, self._batches = 0, self.epoch_batches(0)

    def epoch_batches(self, epoch: int) -> list[list[int]]:
        """The sentence indices of every batch of ``epoch``, in training order."""
        rng = np.random.default_rng([self.seed, epoch])
        order = rng.permutation(len(self.sentences))
        pool = self.batch_size * self.pool_batches
        batches = []
        for start in range(0, len(order), pool):
            chunk = sorted(order[start : start + pool], key=lambda i: len(self.sentences[i]))
            batches += [chunk[i : i + self.batch_size] for i in range(0, len(chunk), self.batch_size)]
        batches = [[int(i) for i in batches[k]] for k in rng.permutation(len(batches))]
        lengths = [self.batch_length(batch) for batch in batches]
        other = next((i for i in range(1, len(batches)) if lengths[i] != lengths[0]), None)
        if other is not None:  # batches 0 and 1 of different lengths: a symbolic time axis, one trace
            batches[1], batches[other] = batches[other], batches[1]
        return batches

    def batch_length(self, batch: Sequence[int]) -> int:
        """Time steps of a batch: its longest sentence + ``<S>`` and ``</S>`` (rounded up on JAX: ``padded_time``)."""
        return padded_time(max(len(self.sentences[i]) for i in batch) + 2)

    def __len__(self):
        """Batches per epoch."""
        return -(-len(self.sentences) // self.batch_size)

    def __getitem__(self, index):
        return self.encoded(self._batches[int(index)])

    def encoded(self, indices: Sequence[int]):
        """The ``(inputs, targets)`` batch of the sentences at ``indices``, filled up to ``batch_size`` rows."""
        # one encoding for the in-memory and the streamed corpora: the same sentences give the same batch
        return encoded_batch([self.sentences[i] for i in indices], self.vocabulary, self.token_input, self.batch_size)

    def on_epoch_end(self):
        self._epoch += 1
        self._batches = self.epoch_batches(self._epoch)


class PlannedBatches(keras.utils.PyDataset):
    """Epochs of a ``ShuffledBatches`` plan as one sequence indexed across epochs, from global batch ``start_step``.

    Item ``i`` is batch ``k`` of epoch ``e``, where ``e * steps_per_epoch + k = start_step + i``: what an epoch
    holds depends only on its number (``[seed, e]``), never on how often Keras calls ``on_epoch_end`` (it calls it
    once more than there are epochs: when ``fit`` resets its iterator before the first one). ``fit`` keeps one
    iterator across epochs when given ``steps_per_epoch``, as for the ``tf.data`` pipeline.

    Args:
        batches: the ``ShuffledBatches`` whose plan and encoding are used.
        epochs: int, the run's last epoch + 1.
        start_step: int, batches skipped, counted across epochs. Defaults to 0.
    """

    def __init__(self, batches: ShuffledBatches, epochs: int, start_step: int = 0):
        super().__init__()
        self.batches, self.epochs, self.start_step = batches, int(epochs), int(start_step)
        self._epoch, self._plan = None, None  # the plan of the epoch read last (items are read in order)

    def __len__(self):
        return self.epochs * len(self.batches) - self.start_step

    def __getitem__(self, index):
        epoch, k = divmod(self.start_step + int(index), len(self.batches))
        if epoch != self._epoch:
            self._epoch, self._plan = epoch, self.batches.epoch_batches(epoch)
        return self.batches.encoded(self._plan[k])


MAX_GATHERED_BYTES = 256 * 2**20


def training_batches(batches: ShuffledBatches, epochs: int, start_step: int = 0):
    """What ``fit`` trains on for ``epochs`` epochs of ``batches`` (see ``ShuffledBatches``), from the global
    batch ``start_step`` on: exactly the batches an uninterrupted run sees after its first ``start_step``.

    The gathered pipeline holds the whole encoded corpus in memory; past ``MAX_GATHERED_BYTES`` (a large
    character-level corpus) a ``PyDataset`` is used, which encodes batch by batch.

    Args:
        batches: the epoch plan and the corpus.
        epochs: int, the run's last epoch + 1 (the gathered pipeline holds every planned epoch's batch order).
        start_step: int, batches to skip, counted across epochs. Defaults to 0.

    Returns:
        On TensorFlow a ``tf.data.Dataset`` of ``(inputs, targets)`` with the shapes of ``ShuffledBatches``' items
        (past the memory bound, a ``PlannedBatches`` behind it); otherwise a ``PlannedBatches``. Either holds
        ``epochs × len(batches) − start_step`` batches, for ``fit(..., steps_per_epoch=len(batches))``.
    """
    start_epoch, offset = divmod(int(start_step), len(batches))
    longest = max(len(s) for s in batches.sentences) + 2
    row_bytes = longest * (MAX_CHARS_PER_TOKEN if batches.token_input == "char" else 1) * 4
    if not trains_from_tf_data():
        return PlannedBatches(batches, epochs, start_step)
    if len(batches.sentences) * row_bytes > MAX_GATHERED_BYTES:  # batch by batch, with a symbolic time axis
        tail = (MAX_CHARS_PER_TOKEN,) if batches.token_input == "char" else ()
        planned = PlannedBatches(batches, epochs, start_step)
        return generated_batches(lambda: (planned[index] for index in range(len(planned))), batches.batch_size, tail)
    inputs, targets = lm_inputs_and_targets(batches.sentences, batches.vocabulary, batches.token_input)
    empty = len(batches.sentences)  # an extra all-padding row, the filler of short batches
    inputs = np.concatenate([inputs, np.zeros_like(inputs[:1])])
    targets = np.concatenate([targets, np.zeros_like(targets[:1])])
    plan, lengths = [], []
    for epoch in range(start_epoch, epochs):
        for batch in batches.epoch_batches(epoch)[offset if epoch == start_epoch else 0:]:
            plan.append(batch + [empty] * (batches.batch_size - len(batch)))
            lengths.append(batches.batch_length(batch))
    return gathered_batches(inputs, targets, np.asarray(plan, np.int32), np.asarray(lengths, np.int32))
