"""AppTest: the PCA page with the tiny model."""

from __future__ import annotations

from tests.explorer_fixtures import assert_no_exception, open_app, plotly_charts


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
    at.selectbox(key="pca_word").set_value("play").run()
    assert_no_exception(at)
    assert len(plotly_charts(at)) == 1
