"""Real English: biLMs trained on the shipped treebank (UD English EWT), a count-based baseline, per-layer probes,
task layer weights and ELMo's gain on a real tagging task (``tools/run_real_text_experiments.py``)."""

from elmo_keras._lazy import attach_stub

__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
