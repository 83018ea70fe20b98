"""The Context similarity page's service: one word's occurrences compared layer by layer (``service``), the
view the page draws (``view``), kept on disk by ``store`` (through ``result_cache``), and its figures (``charts``)."""
