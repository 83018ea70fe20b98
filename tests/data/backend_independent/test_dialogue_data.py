"""The toy dialogues: the file is what the seeded generator writes, the split is fixed and fair, each context has
several replies, and the reply depends on a turn before the last one."""

from importlib import resources

import pytest

from elmo_keras.data.dialogue import DIALOGUE_FILE, dialogue_examples, dialogue_references, split_turns
from tools import make_dialogue_data


def test_the_shipped_file_is_what_the_generator_writes():
    text = resources.files("elmo_keras.data").joinpath(DIALOGUE_FILE).read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0].split("\t") == make_dialogue_data.HEADER
    assert [tuple(line.split("\t")) for line in lines[1:]] == make_dialogue_data.rows()


def test_splits_are_disjoint_fixed_and_every_context_has_several_replies():
    train, heldout = dialogue_references("train"), dialogue_references("heldout")
    assert len(train) + len(heldout) == 252 and len(heldout) == 50
    assert not set(train) & set(heldout)
    assert all(3 <= len(replies) <= 4 for replies in {**train, **heldout}.values())
    train_words = {w for history, response in dialogue_examples("train") for w in [*sum(history, []), *response]}
    assert {w for history, response in dialogue_examples("heldout")
            for w in [*sum(history, []), *response]} <= train_words
    assert {len(history) for history, _ in dialogue_examples("all")} == {1, 2, 3}  # dialogues of 2–4 turns


def test_the_reply_depends_on_the_topic_two_turns_back():
    references = dialogue_references("all")
    tail = "| tell me more | any advice ?"
    same_tail = [replies for context, replies in references.items() if context.endswith(tail)]
    assert len(same_tail) == 12  # 6 topics × 2 openers, identical last two turns
    assert len({tuple(replies) for replies in same_tail}) == 6  # …but one reply set per topic


def test_turn_splitting_and_bad_splits():
    assert split_turns("a b | c\nd |  ") == [["a", "b"], ["c"], ["d"]]
    with pytest.raises(ValueError, match="split"):
        dialogue_examples("test")
