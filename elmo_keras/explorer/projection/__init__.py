"""The PCA page's service: each layer's vectors of one word projected to 2 or 3 components (``service``), the
view the page draws (``view``), kept on disk by ``store`` (through ``result_cache``), and its figure (``charts``)."""
