"""AppTest: the layer-weights page — learned mixes, probes, and sliders that re-score without retraining."""

from __future__ import annotations

from elmo_keras.explorer.layer_weights import service as layer_weights
from tests.support.explorer_fixtures import assert_no_exception, open_app, plotly_charts


def test_learned_weights_probes_and_sliders(app_env, monkeypatch):
    at = open_app("pages/layer_weights.py")
    keys = [c.key for c in plotly_charts(at)]
    assert {"learned_weights_pos", "learned_weights_sense", "accuracies_pos", "accuracies_sense"} <= set(keys)
    assert len(at.slider) == 8  # s0, s1, s2, γ for each task
    assert any("Comparing the two" in m.value for m in at.markdown)
    assert len(at.metric) == 2

    def no_training(*args, **kwargs):
        raise AssertionError("a slider move retrained the head")

    monkeypatch.setattr(layer_weights, "fit_mix_and_probes", no_training)
    at.slider(key="layer_weights_sense_gamma").set_value(0.0).run()  # γ = 0: the head sees only its bias
    assert_no_exception(at)
    accuracy = float(at.metric[1].value.rstrip("%")) / 100
    assert accuracy <= 0.2  # a constant prediction over six balanced senses
    at.button[0].click().run()  # back to the learned values
    assert_no_exception(at)
    assert at.slider(key="layer_weights_sense_gamma").value > 0
