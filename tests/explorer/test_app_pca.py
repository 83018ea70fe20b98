"""AppTest: the PCA page with the tiny model."""

from __future__ import annotations

import json

from tests.support.explorer_fixtures import assert_no_exception, open_app, plotly_charts


def test_scatter_variance_table_and_the_3d_toggle(app_env):
    at = open_app("pages/pca.py")
    assert [c.key for c in plotly_charts(at)] == ["pca_scatter"]
    assert at.title[0].value == "PCA per layer"
    assert "Layer 0: all" in at.info[0].value  # the word-level layer 0 collapses to one point
    variance = at.dataframe[0].value
    assert list(variance.columns) == ["layer", "PC1", "PC2", "total"]

    at.toggle(key="pca_three_d").set_value(True).run()
    assert_no_exception(at)
    assert list(at.dataframe[0].value.columns) == ["layer", "PC1", "PC2", "PC3", "total"]
    layout = json.loads(plotly_charts(at)[0].proto.spec)["layout"]
    scenes = [layout[name] for name in ("scene", "scene2", "scene3")]
    assert all([scene[f"{axis}axis"]["title"]["text"] for axis in "xyz"] == ["PC1", "PC2", "PC3"] for scene in scenes)
    at.selectbox(key="pca_word").set_value("play").run()
    assert_no_exception(at)
    assert len(plotly_charts(at)) == 1


def test_a_frequent_words_context_free_layer_is_reported_as_one_point(app_env):
    at = open_app("pages/pca.py")
    at.selectbox(key="pca_word").set_value("the").run()
    assert_no_exception(at)
    assert at.info[0].value.startswith("Layer 0: all ") and "share one vector" in at.info[0].value
    titles = [a["text"] for a in json.loads(plotly_charts(at)[0].proto.spec)["layout"]["annotations"]]
    assert titles[0] == "layer 0: one point (no variance)"
