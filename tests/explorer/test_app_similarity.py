"""AppTest: the context-similarity page with the tiny model."""

from __future__ import annotations

from elmo_keras.explorer import state
from tests.support.explorer_fixtures import assert_no_exception, open_app, plotly_charts


def test_heatmaps_summary_and_a_new_word(app_env):
    at = open_app("pages/context_similarity.py")
    assert [c.key for c in plotly_charts(at)] == ["similarity_heatmaps", "similarity_summary"]
    assert at.selectbox(key="similarity_word").value == "bank"
    assert "'bank'" in at.subheader[0].value
    assert any("Layer 0: every occurrence of 'bank' has the same vector" in m.value for m in at.markdown)
    assert len(at.dataframe) == 1

    at.selectbox(key="similarity_word").set_value("right").run()
    assert_no_exception(at)
    assert "'right'" in at.subheader[0].value and at.session_state[state.WORD] == "right"


def test_typed_sentences_join_and_lines_without_the_word_are_reported(app_env):
    at = open_app("pages/context_similarity.py")
    at.text_area(key="similarity_typed").set_value("I swam to the far bank .\nNothing to see here .").run()
    assert_no_exception(at)
    assert [w.value for w in at.warning] == ["Left out (they do not contain 'bank'): Nothing to see here ."]
    assert "typed sentences labelled 'typed'" in at.caption[1].value
    assert at.session_state[state.TYPED_SENTENCES].startswith("I swam")


def test_a_word_without_sense_labels_gets_a_note_instead_of_empty_charts(app_env):
    at = open_app("pages/context_similarity.py")
    at.selectbox(key="similarity_word").set_value("the").run()
    assert_no_exception(at)
    assert [c.key for c in plotly_charts(at)] == ["similarity_heatmaps"]  # the matrices stay
    assert len(at.dataframe) == 0
    [note] = at.info
    assert note.value.startswith("No occurrence of 'the' has a sense label") and "(bank, play, right)" in note.value
    at.selectbox(key="similarity_word").set_value("bank").run()
    assert [c.key for c in plotly_charts(at)] == ["similarity_heatmaps", "similarity_summary"] and not at.info
