"""AppTest: the Dialogue page with tiny HRED and VHRED (the page's plumbing; the experiment measures quality)."""

from __future__ import annotations

from tests.explorer_fixtures import assert_no_exception, open_app, plotly_charts
from tests.test_explorer_dialogue import dialogue_models_dir  # noqa: F401  (the session fixture)

PAGE = "pages/dialogue.py"


def test_pick_another_context_and_get_new_replies(dialogue_models_dir, app_env):  # noqa: F811
    at = open_app(PAGE)
    assert at.title[0].value == "Dialogue: HRED and VHRED"
    keys = [chart.key for chart in plotly_charts(at)]
    assert sorted(keys) == ["dialogue_experiment_kl", "dialogue_training_kl"]  # the shipped experiment's, the model's
    hred, vhred, scores, experiment = (frame.value for frame in at.dataframe)  # the interactive part comes first
    assert list(hred["strategy"])[:2] == ["greedy", "beam #1"] and len(vhred) == 5 and len(scores) == 2
    assert experiment["method"].iloc[0] == "HRED greedy"
    context = at.markdown[[m.value.startswith("**Context:**") for m in at.markdown].index(True)].value
    options = at.selectbox(key="dialogue_context").options
    at.selectbox(key="dialogue_context").set_value(options[-1]).run()
    assert_no_exception(at)
    new_context = next(m.value for m in at.markdown if m.value.startswith("**Context:**"))
    assert new_context != context and options[-1].split(" | ")[0] in new_context
    at.text_input(key="dialogue_typed").set_value("   |  ").run()
    assert_no_exception(at)
    assert at.error[0].value.startswith("Type a dialogue history")
