"""Text classifiers: a CNN over n-gram filters (Kim 2014) and an RNN with last-state (Ravuri & Stolcke 2015) or
pooled (Lee & Dernoncourt 2016) sentence vectors, sharing the pipeline sentence matrix → features per position →
one sentence vector → softmax.

Beside the models: ``NgramFilters`` (one height's filters, masked max over time), ``ClassifierConfig``,
``train_text_classifier`` (deterministic for a seed), ``evaluate_classifier``, ``class_probabilities`` and
``save_classifier`` / ``load_classifier``.
"""

from elmo_keras._lazy import attach_stub

__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
