"""The Probing page's service: what each layer of the treebank biLMs knows about real English, read from the
results ``tools/run_real_text_experiments.py`` ships (``service``), and its figures (``charts``)."""
