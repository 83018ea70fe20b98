"""AppTest: the corpus & training page — browsing, a refused upload, an accepted one, a refused model name."""

from __future__ import annotations

from elmo_keras.explorer import state
from elmo_keras.explorer.corpus import fingerprint
from tests.support.explorer_fixtures import (
    TINY_NAME,
    assert_no_exception,
    open_app,
    plotly_charts,
)

PAGE = "pages/corpus_training.py"


def test_browse_filters_and_the_active_model_curves(app_env):
    at = open_app(PAGE)
    total = len(at.dataframe[0].value)
    at.multiselect(key="browse_words").set_value(["play"]).run()
    at.multiselect(key="browse_splits").set_value(["heldout"]).run()
    assert_no_exception(at)
    shown = at.dataframe[0].value
    assert 0 < len(shown) < total and set(shown["word"]) == {"play"} and set(shown["split"]) == {"heldout"}
    assert [c.key for c in plotly_charts(at)] == ["active_curves"]


def test_a_bad_upload_is_refused_and_changes_nothing(app_env):
    at = open_app(PAGE)
    before = fingerprint(at.session_state[state.CORPUS])
    at.file_uploader(key="corpus_upload").set_value(("corpus.txt", b"\x00\x01\x02binary\x00", "text/plain")).run()
    assert_no_exception(at)
    assert "Upload refused: corpus.txt looks like a binary file" in at.error[0].value
    assert fingerprint(at.session_state[state.CORPUS]) == before
    assert at.session_state[state.ACTIVE_MODEL] == TINY_NAME


def test_a_good_upload_becomes_the_working_corpus_on_request(app_env):
    at = open_app(PAGE)
    text = b"We walked along the river bank .\nShe will play the piano .\nTurn right at the corner .\n"
    at.file_uploader(key="corpus_upload").set_value(("mine.txt", text, "text/plain")).run()
    assert_no_exception(at)
    assert at.success[0].value.startswith("mine.txt: 3 sentences")
    at.button[2].click().run()  # "Use mine.txt as the working corpus" (Apply edits and Back come first)
    assert_no_exception(at)
    assert at.session_state[state.CORPUS_SOURCE] == "uploaded mine.txt" and len(at.session_state[state.CORPUS]) == 3


def test_an_upload_whose_labels_were_dropped_says_so(app_env):
    at = open_app(PAGE)
    text = b"sense\tsentence\nriver\tWe walked along the river bank .\nmoney\tThe bank closed early .\n"
    at.file_uploader(key="corpus_upload").set_value(("half.tsv", text, "text/plain")).run()
    assert_no_exception(at)
    assert at.success[0].value.startswith("half.tsv: 2 sentences") and "0 sense-labelled" in at.success[0].value
    assert [w.value for w in at.warning] == [
        "half.tsv has a `sense` column but no `word` column, so its labels were dropped and every sentence is "
        "unlabelled: a sense label needs both the word and its sense."]
    one_column = b"sentence\nWe walked along the river bank .\n"
    at.file_uploader(key="corpus_upload").set_value(("one.tsv", one_column, "text/plain")).run()
    assert at.success[0].value.startswith("one.tsv: 1 sentence") and not at.warning
    assert list(at.dataframe[-1].value["sentence"]) == ["We walked along the river bank ."]


def test_an_invalid_model_name_is_refused_before_training(app_env):
    at = open_app(PAGE)
    before = sorted(p.name for p in app_env.iterdir())  # the tiny biLM and the models other pages' tests saved
    assert TINY_NAME in before
    at.text_input(key="train_name").set_value("my model!").run()
    [train] = [b for b in at.button if b.label == "Train and save"]
    train.click().run()
    assert_no_exception(at)
    assert "use only letters, digits, - and _" in at.error[0].value
    assert sorted(p.name for p in app_env.iterdir()) == before  # nothing trained, nothing saved
