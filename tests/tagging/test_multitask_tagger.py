"""MultiTaskTagger: alternating tasks update the shared layers and the batch's own head only; it learns the toy
tasks; its predictions do not depend on batch-mates; it saves and loads."""

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.data import frame_examples, pos_examples
from elmo_keras.tagging.batches import TaskBatches
from elmo_keras.tagging.evaluation import evaluate_tagger
from elmo_keras.tagging.persistence import load_tagger, save_tagger
from elmo_keras.tagging.training import train_multitask_tagger
from tests.support.backend_support import outcome

TASKS = {"pos": pos_examples("train")[:300], "frame": frame_examples("train")}
# most-frequent-tag-per-word baselines on the held-out splits (tests/tagging/backend_independent/test_tagging_data.py
# pins them)
POS_BASELINE_ACCURACY, FRAME_BASELINE_ACCURACY = 0.9565, 0.7143


@pytest.fixture(scope="module")
def trained_tagger():
    """Six epochs on the toy tasks: what the tagging page trains (for the outcome test)."""
    return train_multitask_tagger(TASKS, heads={"pos": "softmax", "frame": "crf"}, epochs=6, seed=0)


@pytest.fixture(scope="module")
def tagger():
    """One epoch on a slice: the same layers and heads, cheap to build on every backend."""
    small = {"pos": TASKS["pos"][:60], "frame": TASKS["frame"][:30]}
    return train_multitask_tagger(small, heads={"pos": "softmax", "frame": "crf"}, epochs=1, seed=0)


def _weights(layer):
    return [np.array(w) for w in layer.get_weights()]


def test_a_batch_updates_the_shared_layers_and_its_own_head_only(tagger):
    """Adam keeps moving weights whose gradient is 0 (momentum): the other head must not move at all."""
    batches = TaskBatches(TASKS, tagger.vocabulary, batch_size=8, seed=1, task_names=tagger.task_names)
    for index in range(4):  # a pos batch, then a frame batch, twice
        inputs, tags = batches[index]
        task = tagger.task_names[inputs["task"][0]]
        other = next(t for t in tagger.task_names if t != task)
        shared, own, others = _weights(tagger.features), _weights(tagger.head(task)), _weights(tagger.head(other))
        logs = tagger.train_on_batch(inputs, tags, return_dict=True)
        assert np.isfinite(logs["loss"])
        assert any(not np.array_equal(a, b) for a, b in zip(shared, _weights(tagger.features)))
        assert any(not np.array_equal(a, b) for a, b in zip(own, _weights(tagger.head(task))))
        assert all(np.array_equal(a, b) for a, b in zip(others, _weights(tagger.head(other))))


@outcome("the tagger's layers, CRF and training steps give the same numbers on every backend "
         "(test_backend_portability, test_crf, test_every_shipped_model_gives_the_same_numbers_on_every_backend)")
def test_it_learns_both_tasks_beyond_the_most_frequent_tag_baseline(trained_tagger):
    tagger = trained_tagger
    pos = evaluate_tagger(tagger, "pos", pos_examples("heldout"))
    frame = evaluate_tagger(tagger, "frame", frame_examples("heldout"))
    assert pos["accuracy"] > POS_BASELINE_ACCURACY and frame["accuracy"] > FRAME_BASELINE_ACCURACY
    history = tagger.training_summary["history"]
    assert history["pos_loss"][-1] < history["pos_loss"][0] and history["frame_loss"][-1] < history["frame_loss"][0]


def test_predictions_do_not_depend_on_batch_mates_and_survive_saving(tagger, tmp_path):
    sentence = ["is", "the", "bank", "open", "on", "sunday", "?"]
    longer = ["yes", ",", "the", "book", "shop", "opens", "at", "nine", "on", "monday", "morning", "."]
    alone = tagger.predict_tags([sentence])
    together = tagger.predict_tags([longer, sentence, ["open"]])
    assert {task: tags[1] for task, tags in together.items()} == {task: tags[0] for task, tags in alone.items()}
    inputs = tagger.vocabulary.encode_inputs([sentence])
    padded = tagger.vocabulary.encode_inputs([sentence, longer])
    for task, emissions in tagger(inputs).items():
        np.testing.assert_allclose(keras.ops.convert_to_numpy(tagger(padded)[task])[0, : len(sentence)],
                                   keras.ops.convert_to_numpy(emissions)[0], atol=1e-5)
    save_tagger(tagger, tmp_path / "tagger")
    loaded = load_tagger(tmp_path / "tagger")
    assert type(loaded).__name__ == "MultiTaskTagger" and loaded.vocabulary == tagger.vocabulary
    assert loaded.predict_tags([sentence, longer]) == tagger.predict_tags([sentence, longer])
    assert loaded.head("frame").crf is not None and loaded.head("pos").crf is None


def test_training_is_deterministic_for_a_seed():
    small = {"pos": TASKS["pos"][:40], "frame": TASKS["frame"][:20]}
    first, second = (train_multitask_tagger(small, epochs=1, seed=5) for _ in range(2))
    for a, b in zip(first.get_weights(), second.get_weights()):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("tasks, message", [
    ({}, "tasks must be a non-empty dict"),
    ({"pos": []}, "task 'pos' has no examples"),
    ({"pos": [(["a", "b"], ["X"])]}, "task 'pos': example 0 has 2 tokens and 1 tags"),
    ({"pos": ["a b"]}, "task 'pos': example 0 must be a \\(tokens, tags\\) pair"),
])
def test_bad_tasks_are_refused_before_training(tasks, message):
    with pytest.raises(ValueError, match=message):
        train_multitask_tagger(tasks)


def test_predict_tags_needs_a_trained_vocabulary():
    from elmo_keras.tagging.multitask import MultiTaskTagger

    with pytest.raises(ValueError, match="the tagger has no vocabulary"):
        MultiTaskTagger({"pos": 3}, vocab_size=10).predict_tags([["a"]])


def test_char_cnn_and_a_frozen_bilm_read_through_an_elmo_mix(tmp_path):
    from elmo_keras.models import train_bilm

    bilm = train_bilm([tokens for tokens, _ in TASKS["pos"][:100]], size="tiny", epochs=1, seed=0)
    small = {"pos": TASKS["pos"][:60], "frame": TASKS["frame"][:20]}
    model = train_multitask_tagger(small, bilm=bilm, char_dim=8, epochs=1, seed=0)
    inputs = model.vocabulary.encode_inputs([["is", "the", "bank", "open", "?"]])
    assert set(inputs) == {"words", "chars", "bilm"} and inputs["chars"].shape == (1, 5, 50)
    weights, gamma = model.features.bilm_layer_weights  # ELMo's s_j (softmax) and gamma, learned by the task
    assert weights.shape == (bilm.bilm.num_activation_layers,) and abs(weights.sum() - 1) < 1e-6
    assert any("scalar_mix" in v.path for v in model.trainable_variables)
    assert not any("bilm" in v.path and "scalar_mix" not in v.path for v in model.trainable_variables)
    save_tagger(model, tmp_path / "elmo_tagger")
    assert load_tagger(tmp_path / "elmo_tagger").predict_tags([["is", "the", "bank", "open", "?"]]) == \
        model.predict_tags([["is", "the", "bank", "open", "?"]])
