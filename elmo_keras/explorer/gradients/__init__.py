"""The Gradients page's service: the gradient-flow study's first-use training and tables (``service``), the
measured arrays kept on disk by ``store`` (through ``result_cache`` and ``safe_files``), the quiz (``quiz``) and the
figures (``charts``)."""
