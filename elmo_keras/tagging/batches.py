"""Training batches for taggers: each batch holds one task's sentences, and the tasks take turns.

Every epoch each task's sentences are shuffled (seeded) and cut into batches of ``batch_size``; the batches
then alternate between tasks in a fixed order (``pos, frame, pos, frame, …``) while more than one task has
batches left, and the rest of the larger tasks follow. So an epoch is one pass over every task's data, and a
task with few sentences is neither repeated nor dropped. Items are ``(inputs, tags)`` as
``TaggingVocabulary`` encodes them, with ``inputs["task"]`` `(batch,)` the task's index.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from elmo_keras._backend import padded_time
from elmo_keras._quiet import keras
from elmo_keras.limits import check_batch_size
from elmo_keras.tagging.encoding import Example, TaggingVocabulary
from elmo_keras.tagging.sequence_tagger import TASK_INPUT


class TaskBatches(keras.utils.PyDataset):
    """Alternating single-task batches (see the module docstring), deterministic for a ``seed``.

    Args:
        examples: ``{task: [(tokens, tags), ...]}``.
        vocabulary: the ``TaggingVocabulary`` that encodes the sentences and tags.
        batch_size: int in ``[1, 65,536]``, sentences per batch.
        seed: int, shuffling seed (epoch ``e`` uses ``[seed, e]``). Defaults to 0.
        task_names: the tagger's task order, whose indices the ``"task"`` input holds; a task may have no
            examples. Defaults to None (the keys of ``examples``).

    Items: ``(inputs, tags)``: ``inputs`` as ``vocabulary.encode_inputs`` gives them plus ``"task"`` `(batch,)`
    int32 (every row the same task index), ``tags`` `(batch, time)` int32 padded with ``PAD_TAG``.
    """

    def __init__(self, examples: Mapping[str, Sequence[Example]], vocabulary: TaggingVocabulary, batch_size: int,
                 seed: int = 0, task_names: Sequence[str] | None = None):
        super().__init__()
        self.task_names = list(task_names or examples)
        self.examples = {task: list(examples.get(task, ())) for task in self.task_names}
        self.vocabulary = vocabulary
        self.batch_size = check_batch_size(batch_size)
        self.seed = int(seed)
        self._epoch, self._plan = 0, self.epoch_plan(0)

    def epoch_plan(self, epoch: int) -> list[tuple[int, list[int]]]:
        """``[(task index, example indices), …]`` of one epoch, in training order.

        Args:
            epoch: int, counted from 0.
        """
        rng = np.random.default_rng([self.seed, epoch])
        queues = []
        for task_index, task in enumerate(self.task_names):
            order = [int(i) for i in rng.permutation(len(self.examples[task]))]
            queues.append([(task_index, order[i : i + self.batch_size]) for i in range(0, len(order), self.batch_size)])
        plan = []
        while any(queues):
            for queue in queues:
                if queue:
                    plan.append(queue.pop(0))
        return plan

    def __len__(self) -> int:
        return sum(-(-len(self.examples[task]) // self.batch_size) for task in self.task_names)

    def __getitem__(self, index):
        task_index, rows = self._plan[int(index)]
        task = self.task_names[task_index]
        batch = [self.examples[task][row] for row in rows]
        time = padded_time(max(len(tokens) for tokens, _ in batch))
        if int(index) == 0 and len(self._plan) > 1:  # the first two batches differ in length: Keras then keeps
            time += int(time == self._batch_time(1))  # the time axis symbolic and traces the step once
        inputs = self.vocabulary.encode_inputs([tokens for tokens, _ in batch], time)
        inputs[TASK_INPUT] = np.full((len(batch),), task_index, np.int32)
        return inputs, self.vocabulary.encode_tags(task, [tags for _, tags in batch], time)

    def _batch_time(self, index: int) -> int:
        task_index, rows = self._plan[index]
        return max(len(self.examples[self.task_names[task_index]][row][0]) for row in rows)

    def on_epoch_end(self):
        self._epoch += 1
        self._plan = self.epoch_plan(self._epoch)
