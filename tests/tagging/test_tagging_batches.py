"""TaskBatches: single-task batches that alternate between tasks, every sentence once an epoch, seeded."""

from elmo_keras.tagging.batches import TaskBatches
from elmo_keras.tagging.encoding import PAD_TAG, TaggingVocabulary
from tests.support.backend_support import BACKEND


def _examples(task, count, length=3):
    return [([f"{task}{i}"] * (length + i % 4), [task.upper()] * (length + i % 4)) for i in range(count)]


EXAMPLES = {"pos": _examples("pos", 23), "frame": _examples("frame", 7)}


def test_batches_alternate_while_both_tasks_have_some_and_cover_every_sentence_once():
    vocabulary = TaggingVocabulary.from_examples(EXAMPLES)
    batches = TaskBatches(EXAMPLES, vocabulary, batch_size=4, seed=3)
    plan = batches.epoch_plan(0)
    assert len(batches) == len(plan) == 6 + 2
    assert [task for task, _ in plan] == [0, 1, 0, 1, 0, 0, 0, 0]  # pos, frame, pos, frame, then the rest of pos
    for task_index, task in enumerate(batches.task_names):
        rows = sorted(row for index, rows in plan if index == task_index for row in rows)
        assert rows == list(range(len(EXAMPLES[task])))
    assert batches.epoch_plan(0) == TaskBatches(EXAMPLES, vocabulary, 4, seed=3).epoch_plan(0)
    assert batches.epoch_plan(1) != plan


def test_items_hold_one_task_its_index_and_padded_tags():
    vocabulary = TaggingVocabulary.from_examples(EXAMPLES)
    batches = TaskBatches(EXAMPLES, vocabulary, batch_size=4, seed=0)
    for index in range(len(batches)):
        inputs, tags = batches[index]
        task = inputs["task"][0]
        assert (inputs["task"] == task).all() and tags.shape == inputs["words"].shape
        label = vocabulary.labels[batches.task_names[task]]
        assert set(tags[tags != PAD_TAG].tolist()) == {0} and label == (batches.task_names[task].upper(),)
        assert ((inputs["words"] == 0) == (tags == PAD_TAG)).all()
    # the first two batches differ in length, so the traced step keeps a symbolic time axis (on TensorFlow; JAX
    # compiles per shape and pads to multiples of 8 steps, _backend.padded_time)
    if BACKEND == "tensorflow":
        assert batches[0][0]["words"].shape[1] != batches[1][0]["words"].shape[1]
