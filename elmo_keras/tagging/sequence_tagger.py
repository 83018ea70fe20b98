"""``SequenceTagger``: what every tagger shares — one ``TagHead`` per task over a shared representation, training
that alternates batches between tasks, and ``predict_tags``.

A subclass implements ``represent(inputs, training) -> (batch, time, dim)``: ``MultiTaskTagger`` (embeddings →
BiLSTM) and ``TagLM`` (embeddings → BiLSTM → + frozen biLM vectors → BiLSTM).

Alternating tasks (as in Collobert et al. 2011): every training batch holds sentences of one task, named by the
int32 input ``"task"`` `(batch,)` (all rows equal). ``train_step`` computes only that task's head and loss, and
updates only the shared layers and that head: the step runs the task's branch of a ``switch`` (its gradient and its
optimizer update), so the other heads' weights do not move — not even through Adam's momentum. A sentence
therefore needs labels of its own task only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from elmo_keras._backend import branch_test_step, branch_train_step, loss_and_gradients, uses_stateless_steps
from elmo_keras._quiet import keras, ops
from elmo_keras.limits import check_batch_size
from elmo_keras.models.model_directory import ModelDirectory
from elmo_keras.tagging.config import TaggerConfig
from elmo_keras.tagging.encoding import TaggingVocabulary
from elmo_keras.tagging.inputs import bounded_batches, check_task, checked_sentences, checked_task_names
from elmo_keras.tagging.layers import TagHead

TASK_INPUT = "task"


class SequenceTagger(ModelDirectory, keras.Model):
    """Base class: ``heads`` (one ``TagHead`` per task, in ``task_names`` order) over ``represent``.

    Abstract: a subclass provides ``represent``, ``shared_layers``, ``features`` and ``units`` (see
    ``MultiTaskTagger`` and ``TagLM`` for examples).

    Args:
        tasks: ``{task: num_tags}``.
        head_kinds: ``{task: "softmax" | "crf"}``. Defaults to None (softmax for every task); a task left out
            gets softmax.
        constraints: ``{task: (allowed, allowed_start, allowed_end)}`` for CRF heads, bool arrays
            `(num_tags, num_tags)`, `(num_tags,)`, `(num_tags,)`. Defaults to None (unconstrained).

    Call arguments:
        inputs: the dict of ``tagging.encoding`` (``"words"``, optional ``"chars"``, ``"bilm"``; a ``"task"``
            entry is ignored).

    Returns:
        ``{task: emissions (batch, time, num_tags)}``.

    Attributes set by the training functions: ``vocabulary`` (``TaggingVocabulary``), ``config``,
    ``training_summary``.

    Saved with ``tagger.save(directory)`` and loaded with ``SequenceTagger.from_preset(directory)`` (either tagger;
    ``MultiTaskTagger.from_preset`` / ``TagLM.from_preset`` insist on theirs), as every family
    (``models.model_directory``); ``tagging.persistence.save_tagger`` / ``load_tagger`` are the aliases.
    """

    directory_config = TaggerConfig  # model.save(directory) / SequenceTagger.from_preset(directory)
    directory_vocabulary = TaggingVocabulary

    def __init__(self, tasks, head_kinds=None, constraints=None, **kwargs):
        super().__init__(**kwargs)
        head_kinds, constraints = dict(head_kinds or {}), dict(constraints or {})
        unknown = (set(head_kinds) | set(constraints)) - set(tasks)
        if unknown:
            raise ValueError(f"head_kinds/constraints name unknown tasks {sorted(unknown)}; tasks are {sorted(tasks)}")
        self.tasks = {str(task): int(count) for task, count in tasks.items()}
        self.task_names = list(self.tasks)
        self.head_kinds = {task: head_kinds.get(task, "softmax") for task in self.task_names}
        self.constraints = {task: _as_lists(constraints.get(task)) for task in self.task_names}
        self.heads = [TagHead(self.tasks[task], kind=self.head_kinds[task], constraints=self.constraints[task],
                              name=f"head_{task}") for task in self.task_names]
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.task_loss_trackers = [keras.metrics.Mean(name=f"{task}_loss") for task in self.task_names]
        self.vocabulary = None
        self.config = None
        self.training_summary = None

    # -- the forward pass ---------------------------------------------------------------------------------------

    def represent(self, inputs, training=None):
        """The shared token representations `(batch, time, dim)`.

        Args:
            inputs: the dict of ``tagging.encoding``, ``"words"`` `(batch, time)` and the others the model reads.
            training: bool or None; dropout only when True.
        """
        raise NotImplementedError

    @property
    def shared_layers(self) -> list:
        """Every layer below the heads."""
        raise NotImplementedError

    def call(self, inputs, training=None):
        shared = self.represent(inputs, training=training)
        return {task: head(shared) for task, head in zip(self.task_names, self.heads)}

    def head(self, task: str) -> TagHead:
        """The ``TagHead`` of one task.

        Args:
            task: one of ``task_names`` (another is a ``ValueError`` naming them).
        """
        return self.heads[self.task_names.index(check_task(task, self.task_names))]

    @property
    def vocab_size(self) -> int:
        """Rows of the word embedding (the size the saved ``TaggingVocabulary`` must have)."""
        return self.features.vocab_size

    def architecture(self) -> dict:
        """The ``TaggerConfig`` fields that fix the weights' shapes, read from the model itself."""
        features = self.features
        return {"word_dim": features.word_dim, "char_dim": features.char_dim, "units": self.units}

    # -- training -----------------------------------------------------------------------------------------------

    def train_step(self, *args):
        if uses_stateless_steps():  # the stateless contract: train_step(state, data) -> (logs, state)
            state, (inputs, tags) = args[0], _unpacked(args[1])
            return branch_train_step(self, state, _task_of(inputs),
                                     lambda index: self._task_loss(index, inputs, tags, True),
                                     self._variables_per_task(), self._trackers())
        inputs, tags = _unpacked(args[0])
        variables_per_task = self._variables_per_task()

        def branch(index):
            def step():
                variables = variables_per_task[index]
                loss, gradients = loss_and_gradients(lambda: self._task_loss(index, inputs, tags, True), variables)
                self.optimizer.apply(gradients, variables)
                self.task_loss_trackers[index].update_state(loss)
                return loss
            return step

        self.loss_tracker.update_state(ops.switch(_task_of(inputs), [branch(k) for k in range(len(self.heads))]))
        return self.get_metrics_result()

    def test_step(self, *args):
        if uses_stateless_steps():
            state, (inputs, tags) = args[0], _unpacked(args[1])
            return branch_test_step(self, state, _task_of(inputs),
                                    lambda index: self._task_loss(index, inputs, tags, False), self._trackers())
        inputs, tags = _unpacked(args[0])

        def branch(index):
            def evaluate():
                loss = self._task_loss(index, inputs, tags, False)
                self.task_loss_trackers[index].update_state(loss)
                return loss
            return evaluate

        self.loss_tracker.update_state(ops.switch(_task_of(inputs), [branch(k) for k in range(len(self.heads))]))
        return self.get_metrics_result()

    def _variables_per_task(self) -> list[list]:
        """Per task, what its batches update: the shared layers' trainable variables and its own head's."""
        shared = [v for layer in self.shared_layers for v in layer.trainable_variables]
        return [shared + head.trainable_variables for head in self.heads]

    def _trackers(self):
        return self.loss_tracker, self.task_loss_trackers

    @property
    def metrics(self):
        """The mean loss over all batches and, per task, over that task's batches (reset every epoch)."""
        return [self.loss_tracker, *self.task_loss_trackers]

    def _task_loss(self, index, inputs, tags, training):
        head = self.heads[index]
        return head.loss(head(self.represent(inputs, training=training)), tags)

    # -- prediction ---------------------------------------------------------------------------------------------

    def tag_ids(self, inputs) -> dict[str, np.ndarray]:
        """``{task: best tag ids}``, int32 NumPy `(batch, time)` each, 0 at padding.

        Args:
            inputs: the dict ``vocabulary.encode_inputs`` returns (``"words"`` `(batch, time)`, …).
        """
        mask = ops.not_equal(inputs["words"], 0)
        emissions = self(inputs, training=False)
        return {task: ops.convert_to_numpy(self.head(task).decode(emissions[task], mask)) for task in self.task_names}

    def predict_tags(self, sentences: Sequence[Sequence[str] | str], tasks: Sequence[str] | None = None,
                     batch_size: int = 64) -> dict[str, list[list[str]]]:
        """``{task: [[tag, …] per sentence]}`` for ``sentences``.

        Every argument is checked before the model runs. The sentences go through the model in order, at most
        ``batch_size`` at a time and at most ``tagging.inputs.MAX_BATCH_TOKENS`` padded token positions per call
        (a batch of long sentences is cut shorter); a sentence's tags do not depend on its batch-mates.

        Args:
            sentences: a list of sentences: token lists, or strings (split on whitespace); each 1 to
                ``MAX_SENTENCE_TOKENS`` (1,000) tokens. A str alone is refused: wrap one sentence in a list.
            tasks: a list of the tasks to tag. Defaults to None (all of ``task_names``).
            batch_size: int in ``[1, 65,536]``, the most sentences per model call. Defaults to 64.

        Raises:
            ValueError: the model has no vocabulary (train it with ``train_multitask_tagger`` / ``train_taglm``
                or load it); a bad ``batch_size``; ``tasks`` naming a task the tagger was not trained on;
                ``sentences`` a str, or holding an empty or over-long sentence (its index and length named).
        """
        if self.vocabulary is None:
            raise ValueError("the tagger has no vocabulary; train it with train_multitask_tagger / train_taglm "
                             "or load a saved one")
        batch_size = check_batch_size(batch_size)
        tasks = checked_task_names(tasks, self.task_names)
        sentences = checked_sentences(sentences)
        results: dict[str, list[list[str]]] = {task: [] for task in tasks}
        for start, stop in bounded_batches([len(s) for s in sentences], batch_size):
            batch = sentences[start:stop]
            ids = self.tag_ids(self.vocabulary.encode_inputs(batch))
            lengths = [len(s) for s in batch]
            for task in tasks:
                results[task] += self.vocabulary.ids_to_tags(task, ids[task], lengths)
        return results

    def get_config(self):
        return {"tasks": self.tasks, "head_kinds": self.head_kinds,
                "constraints": {task: c for task, c in self.constraints.items() if c is not None},
                "name": self.name}


def _task_of(inputs):
    """The batch's task index, an int32 scalar (every row of ``inputs["task"]`` holds it)."""
    return ops.cast(inputs[TASK_INPUT][0], "int32")


def _unpacked(data):
    """``(inputs, tags)`` of a batch; sample weights are refused (a task's loss weighs every sentence alike)."""
    inputs, tags, sample_weight = keras.utils.unpack_x_y_sample_weight(data)
    if sample_weight is not None:
        raise ValueError("taggers do not take sample weights: every sentence of a task counts alike")
    return inputs, tags


def _as_lists(constraints):
    if constraints is None:
        return None
    return [np.asarray(part, bool).tolist() for part in constraints]
