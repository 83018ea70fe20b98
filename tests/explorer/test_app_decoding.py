"""AppTest: the decoding page with the tiny seq2seq model."""

from __future__ import annotations

from elmo_keras.explorer.decoding.service import STRATEGIES
from tests.support.explorer_fixtures import assert_no_exception, open_app, plotly_charts


def test_strategies_side_by_side_tree_distribution_and_worked_examples(app_env):
    at = open_app("pages/decoding.py")
    assert [c.key for c in plotly_charts(at)] == ["beam_tree", "step_distribution"]
    bold = [m.value for m in at.markdown if m.value.startswith("**")]
    assert [f"**{name}**" for name in STRATEGIES] == bold[:4]
    assert any("Greedy takes the most probable first word" in s.value for s in at.success)

    at.selectbox(key="decoding_example").set_value("same_branch_beam").run()
    assert_no_exception(at)
    assert "example_tree" in [c.key for c in plotly_charts(at)]
    assert any("branch C is dropped" in s.value for s in at.success)

    at.radio(key="decoding_dist_strategy").set_value("nucleus sampling").run()
    at.number_input(key="decoding_beam").set_value(5).run()
    assert_no_exception(at)
    steps = at.slider(key="decoding_dist_step")
    steps.set_value(steps.max).run()
    at.number_input(key="decoding_max_len").set_value(1).run()  # a one-step trace: the remembered step shrinks
    assert_no_exception(at)
    assert "decoding_dist_step" not in [s.key for s in at.slider]  # one step: no step slider
    assert at.session_state["decoding_dist_step"] == 1


def test_an_unknown_word_in_a_typed_source_is_explained(app_env):
    at = open_app("pages/decoding.py")
    at.text_input(key="decoding_typed").set_value("feed the zebra").run()
    assert_no_exception(at)
    assert "does not know 'feed', 'zebra'" in at.error[0].value
