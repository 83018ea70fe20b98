"""The Tagging page's service: the multi-task tagger and TagLM + CRF, their first-use training and predictions
(``service``), the view kept on disk by ``store`` (through ``result_cache``), and the figures (``charts``)."""
