"""TaggingVocabulary: inputs, tags padded with -1, errors naming the task and the tag, and its file."""

import json
import re

import numpy as np
import pytest

from elmo_keras.tagging.encoding import PAD_TAG, TaggingVocabulary
from elmo_keras.tagging.inputs import MAX_SENTENCE_TOKENS
from elmo_keras.text.vocabulary import UNK_ID, Vocabulary

EXAMPLES = {"pos": [(["the", "bank", "is", "open"], ["DET", "NOUN", "AUX", "ADJ"]), (["the", "bank"], ["DET", "NOUN"])],
            "frame": [(["is", "it", "open"], ["null", "B_Place#Opening", "Opening"])]}


def test_words_of_every_task_and_sorted_labels_per_task():
    vocabulary = TaggingVocabulary.from_examples(EXAMPLES, min_count=2)
    assert vocabulary.labels == {"pos": ("ADJ", "AUX", "DET", "NOUN"), "frame": ("B_Place#Opening", "Opening", "null")}
    assert "bank" in vocabulary.words and "it" not in vocabulary.words  # seen once: <unk>
    inputs = vocabulary.encode_inputs([["The", "bank"], ["it"]])
    assert list(inputs) == ["words"] and inputs["words"].dtype == np.int32
    assert inputs["words"][0, 1] == vocabulary.words.token_to_id("bank") and inputs["words"][1].tolist() == [UNK_ID, 0]


def test_tags_are_padded_with_minus_one_and_decoded_back():
    vocabulary = TaggingVocabulary.from_examples(EXAMPLES)
    tags = vocabulary.encode_tags("pos", [["DET", "NOUN"], ["ADJ"]], length=3)
    assert tags.tolist() == [[2, 3, PAD_TAG], [0, PAD_TAG, PAD_TAG]]
    assert vocabulary.ids_to_tags("pos", tags, [2, 1]) == [["DET", "NOUN"], ["ADJ"]]
    with pytest.raises(ValueError, match=r"task 'pos': sentence 0, token 1 has tag 'VERB', which is not one of"):
        vocabulary.encode_tags("pos", [["DET", "VERB"]])
    with pytest.raises(ValueError, match=r"task names .ner., a task this tagger was not trained on; its tasks are "
                                         r"\[.frame., .pos.\]"):
        vocabulary.encode_tags("ner", [["O"]])


def test_char_and_bilm_inputs():
    bilm_words = Vocabulary(["bank", "open"], lowercase=True)
    vocabulary = TaggingVocabulary.from_examples(EXAMPLES, use_chars=True, use_bilm=True, bilm_vocabulary=bilm_words)
    inputs = vocabulary.encode_inputs([["the", "bank"]], length=4)
    assert inputs["chars"].shape == (1, 4, 50) and inputs["chars"][0, 2:].sum() == 0
    assert inputs["bilm"].tolist() == [[UNK_ID, bilm_words.token_to_id("bank"), 0, 0]]
    chars_only = TaggingVocabulary.from_examples(EXAMPLES, use_bilm=True)  # a character-level biLM reads char ids
    assert chars_only.encode_inputs([["bank"]])["bilm"].shape == (1, 1, 50)
    with pytest.raises(ValueError, match=re.escape("sentences[1] is empty: every sentence needs at least one token")):
        vocabulary.encode_inputs([["a"], []])


def test_file_round_trip_and_errors(tmp_path):
    vocabulary = TaggingVocabulary.from_examples(EXAMPLES, use_chars=True)
    vocabulary.save(tmp_path / "v.json")
    again = TaggingVocabulary.load(tmp_path / "v.json")
    assert again == vocabulary and len(again) == len(vocabulary.words)
    (tmp_path / "bad.json").write_text(json.dumps({"words": vocabulary.words.to_dict()}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.json: not a tagging vocabulary \(KeyError: 'labels'\)"):
        TaggingVocabulary.load(tmp_path / "bad.json")
    (tmp_path / "words.json").write_text('{"words": 3, "labels": {}}', encoding="utf-8")
    with pytest.raises(ValueError, match="words.json is not an elmo_keras vocabulary"):
        TaggingVocabulary.load(tmp_path / "words.json")
    (tmp_path / "broken.json").write_text("{", encoding="utf-8")
    with pytest.raises(ValueError, match="broken.json is not a JSON tagging vocabulary file"):
        TaggingVocabulary.load(tmp_path / "broken.json")


def test_encode_inputs_refuses_a_str_an_over_long_sentence_and_a_bad_length(tmp_path):
    vocabulary = TaggingVocabulary.from_examples(EXAMPLES, use_chars=True)
    message = "sentences must be a list of token lists, received the str 'paris'"
    with pytest.raises(ValueError, match=re.escape(message)):
        vocabulary.encode_inputs("paris")  # read as five one-letter sentences before
    with pytest.raises(ValueError, match=re.escape(f"sentences[1] has {MAX_SENTENCE_TOKENS + 1:,} tokens, more than "
                                                   f"the limit of {MAX_SENTENCE_TOKENS:,}: split it")):
        vocabulary.encode_inputs([["a"], ["a"] * (MAX_SENTENCE_TOKENS + 1)])
    for length, message in ((1, "length must be from the longest sentence (2) to"),
                            (10**9, "received 1,000,000,000"), (0, "length must be a positive int, received 0")):
        with pytest.raises(ValueError, match=re.escape(message)):
            vocabulary.encode_inputs([["the", "bank"]], length=length)
    (tmp_path / "deep.json").write_text("[" * 100_000, encoding="utf-8")
    with pytest.raises(ValueError, match="deep.json is not a JSON tagging vocabulary file: nested too deeply"):
        TaggingVocabulary.load(tmp_path / "deep.json")
