"""AppTest: the Dialogue page with tiny HRED (with and without context) and VHRED (the page's plumbing; the
experiment measures quality)."""

from __future__ import annotations

from tests.explorer.test_explorer_dialogue import dialogue_models_dir  # noqa: F401  (the session fixture)
from tests.support.explorer_fixtures import assert_no_exception, open_app, plotly_charts

PAGE = "pages/dialogue.py"


def test_pick_another_context_and_get_new_replies(dialogue_models_dir, app_env):  # noqa: F811
    at = open_app(PAGE)
    assert at.title[0].value == "Dialogue: HRED and VHRED"
    keys = [chart.key for chart in plotly_charts(at)]
    assert sorted(keys) == ["dialogue_experiment_kl", "dialogue_training_kl"]  # the shipped experiment's, the model's
    hred, hred_last_turn, vhred, scores, hred_table, vhred_table = (frame.value for frame in at.dataframe)
    assert list(hred["strategy"])[:2] == ["greedy", "beam #1"] and len(vhred) == 5 and len(scores) == 2
    assert list(hred_last_turn["strategy"]) == ["greedy"]
    assert set(hred["valid"]) | set(vhred["valid"]) <= {"✓ valid", "✗ invalid"}  # a held-out context: judged
    assert list(hred_table["method"]) == ["HRED: greedy", "HRED: sampling (T=1)", "HRED, last utterance only: greedy"]
    assert vhred_table["method"].iloc[0] == "VHRED plain: z samples" and "exp(ELBO bound / token)" in vhred_table
    assert any("held-out contexts, HRED" in m.value for m in at.markdown)  # the findings, from the shipped numbers
    context = at.markdown[[m.value.startswith("**Context:**") for m in at.markdown].index(True)].value
    options = at.selectbox(key="dialogue_context").options
    at.selectbox(key="dialogue_context").set_value(options[-1]).run()
    assert_no_exception(at)
    new_context = next(m.value for m in at.markdown if m.value.startswith("**Context:**"))
    assert new_context != context and options[-1].split(" | ")[0] in new_context
    at.text_input(key="dialogue_typed").set_value("i had a zebra | any advice ?").run()
    assert_no_exception(at)
    assert set(at.dataframe[0].value["valid"]) == {"–"}  # not in the corpus: nothing to judge the replies by
    at.text_input(key="dialogue_typed").set_value("   |  ").run()
    assert_no_exception(at)
    assert at.error[0].value.startswith("Type a dialogue history")
