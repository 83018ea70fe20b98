"""What users hand the taggers is checked before any model runs (issue #25): sentences (a str is not a list of
sentences), batch sizes, task names, schemes and heads, over-long sentences, and the work of one batch."""

import re

import numpy as np
import pytest

from elmo_keras.tagging import inputs as inputs_module
from elmo_keras.tagging import training as training_module
from elmo_keras.tagging.batches import TaskBatches
from elmo_keras.tagging.encoding import TaggingVocabulary
from elmo_keras.tagging.evaluation import evaluate_tagger, span_f1, token_accuracy
from elmo_keras.tagging.inputs import MAX_BATCH_TOKENS, MAX_SENTENCE_TOKENS
from elmo_keras.tagging.multitask import MultiTaskTagger
from elmo_keras.tagging.training import train_multitask_tagger, train_taglm

TASKS = {"pos": [(["the", "bank", "is", "open"], ["DET", "NOUN", "AUX", "ADJ"]), (["the", "bank"], ["DET", "NOUN"])],
         "frame": [(["is", "it", "open"], ["null", "B_Place#Opening", "Opening"])]}
LONG = ["word"] * (MAX_SENTENCE_TOKENS + 1)


@pytest.fixture(scope="module")
def tagger():
    """An untrained tagger with a vocabulary: ``predict_tags`` runs on it (no training needed to test inputs)."""
    vocabulary = TaggingVocabulary.from_examples(TASKS)
    model = MultiTaskTagger({task: len(labels) for task, labels in vocabulary.labels.items()}, len(vocabulary.words),
                            word_dim=4, units=4, head_kinds={"frame": "crf"})
    model.vocabulary = vocabulary
    return model


@pytest.mark.parametrize("kwargs, message", [
    ({"sentences": "paris"}, "sentences must be a list of sentences (token lists or strings), received the str "
                             "'paris'; to pass one sentence, wrap it in a list: ['paris']"),
    ({"batch_size": -1}, "batch_size must be a positive int, received -1"),
    ({"batch_size": 0}, "batch_size must be a positive int, received 0"),
    ({"batch_size": 2.0}, "batch_size must be a positive int, received 2.0"),
    ({"tasks": "pos"}, "tasks must be a list of task names, received the str 'pos'; pass ['pos']"),
    ({"tasks": ["pos", "ner"]}, "tasks names 'ner', a task this tagger was not trained on; its tasks are "
                                "['frame', 'pos']"),
    ({"sentences": ["the bank", ["open"], LONG]},
     f"sentences[2] has {MAX_SENTENCE_TOKENS + 1:,} tokens, more than the limit of {MAX_SENTENCE_TOKENS:,}: split "
     "it into shorter sentences (e.g. at sentence ends): taggers take one sentence at a time"),
    ({"sentences": [["a"], "  "]}, "sentences[1] is empty: every sentence needs at least one token"),
    ({"sentences": [["a", 3]]}, "sentences[0], token 1: a token must be a str, received int: 3"),
    ({"sentences": [5]}, "sentences[0] must be a str or a list of str tokens, received int (5)"),
])
def test_predict_tags_refuses_bad_arguments_before_the_model_runs(tagger, monkeypatch, kwargs, message):
    monkeypatch.setattr(tagger, "tag_ids", lambda inputs: pytest.fail("the model ran"))
    arguments = {"sentences": [["the", "bank"]], **kwargs}
    with pytest.raises(ValueError, match=re.escape(message)):
        tagger.predict_tags(**arguments)


def test_predict_tags_bounds_the_padded_tokens_of_each_model_call(tagger, monkeypatch):
    sentences = [["the", "bank", "is", "open", "now"]] * 3 + [["open"]] * 12
    alone = [tagger.predict_tags([sentence]) for sentence in sentences[2:4]]
    monkeypatch.setattr(inputs_module, "MAX_BATCH_TOKENS", 12)
    calls, tag_ids = [], tagger.tag_ids
    monkeypatch.setattr(tagger, "tag_ids", lambda inputs: calls.append(inputs["words"].shape) or tag_ids(inputs))
    tags = tagger.predict_tags(sentences, batch_size=64)
    assert calls == [(2, 5), (2, 5), (11, 1)]  # 3 × 5 = 15 positions would pass 12: a new batch starts
    assert {task: tags[task][2:4] for task in tags} == {task: [a[task][0] for a in alone] for task in tags}


def test_evaluate_tagger_and_head_refuse_a_task_the_tagger_was_not_trained_on(tagger, monkeypatch):
    monkeypatch.setattr(tagger, "tag_ids", lambda inputs: pytest.fail("the model ran"))
    message = "task names 'ner', a task this tagger was not trained on; its tasks are ['frame', 'pos']"
    with pytest.raises(ValueError, match=re.escape(message)):
        evaluate_tagger(tagger, "ner", TASKS["pos"])
    with pytest.raises(ValueError, match=re.escape(message)):
        tagger.head("ner")
    with pytest.raises(ValueError, match=re.escape("scheme must be one of ['BIO', 'BIOES'], received 'IOB1'")):
        evaluate_tagger(tagger, "pos", TASKS["pos"], scheme="IOB1")
    with pytest.raises(ValueError, match=re.escape("task 'pos': example 0 has 2 tokens and 1 tags")):
        evaluate_tagger(tagger, "pos", [(["the", "bank"], ["DET"])])


@pytest.mark.parametrize("train, message", [
    (lambda: train_multitask_tagger(TASKS, heads={"frame": "crf"}, schemes={"ner": "BIOES"}),
     "schemes names task(s) ['ner'] that have no training examples; the tasks are ['frame', 'pos']"),
    (lambda: train_multitask_tagger(TASKS, heads={"ner": "crf"}),
     "heads names task(s) ['ner'] that have no training examples; the tasks are ['frame', 'pos']"),
    (lambda: train_multitask_tagger(TASKS, schemes={"pos": "BIO"}),
     "schemes names task 'pos', whose head is softmax: a scheme constrains a CRF head; pass heads={'pos': 'crf'}"),
    (lambda: train_multitask_tagger(TASKS, heads={"frame": "crf"}, schemes={"frame": "BIOES"}),
     "schemes['frame'] = 'BIOES' does not fit the task's tags: label 'B_Place#Opening' is not a BIOES label"),
    (lambda: train_multitask_tagger(TASKS, heads="CRF"), "heads must be one of ('softmax', 'crf')"),
    (lambda: train_multitask_tagger(TASKS, heads={"pos": "hmm"}), "heads['pos'] must be one of ('softmax', 'crf')"),
    (lambda: train_multitask_tagger({"pos": [*TASKS["pos"], (LONG, ["X"] * len(LONG))]}),
     f"task 'pos': example 2 has {MAX_SENTENCE_TOKENS + 1:,} tokens, more than the limit of "
     f"{MAX_SENTENCE_TOKENS:,}: split it"),
    (lambda: train_multitask_tagger({"pos": [(LONG[:1000], ["X"] * 1000)] * 70}, batch_size=66),
     f"batch_size = 66 would pad up to 66,000 token positions in one batch of task 'pos' (its longest sentence "
     f"has 1,000 tokens), more than {MAX_BATCH_TOKENS:,}: use batch_size <= 65"),
    (lambda: train_taglm("George went home"),
     "task 'ner': examples must be a list of (tokens, tags) pairs, received the str 'George went home'"),
    (lambda: train_taglm([(LONG, ["O"] * len(LONG))]), f"task 'ner': example 0 has {MAX_SENTENCE_TOKENS + 1:,} tokens"),
    (lambda: train_taglm([(["Paris"], ["S-LOC"])], head="CRF"), "head must be one of ('softmax', 'crf')"),
    (lambda: train_taglm([(["Paris"], ["S-LOC"])], scheme="IOB"), "scheme must be one of ['BIO', 'BIOES'], received"),
    (lambda: train_taglm([(["Paris"], ["S-LOC"])], task=""), "task must be a non-empty str"),
])
def test_training_refuses_bad_arguments_before_any_model_is_built(train, message, monkeypatch):
    for name in ("MultiTaskTagger", "TagLM", "_fit"):
        monkeypatch.setattr(training_module, name, lambda *a, **k: pytest.fail("a model was built"))
    with pytest.raises(ValueError, match=re.escape(message)):
        train()


def test_task_batches_and_scores_refuse_bad_sizes_and_strings():
    vocabulary = TaggingVocabulary.from_examples(TASKS)
    for batch_size in (0, -2):
        with pytest.raises(ValueError, match=re.escape(f"batch_size must be a positive int, received {batch_size}")):
            TaskBatches(TASKS, vocabulary, batch_size)
    with pytest.raises(ValueError, match=re.escape("gold must be a list of tag lists, one per sentence, received the "
                                                   "str 'O O'")):
        token_accuracy("O O", "O O")  # 1.0 before: compared letter by letter
    with pytest.raises(ValueError, match=re.escape("predicted[0] must be a list of tags, received the str 'S-LOC'")):
        span_f1([["S-LOC"]], ["S-LOC"])
    with pytest.raises(ValueError, match="gold and predicted hold no tags"):
        token_accuracy([], [])
    assert token_accuracy([np.array(["O", "B"])], [("O", "I")]) == 0.5
