"""The RNN encoder-decoder (Sutskever et al. 2014), split the way the biLM side is: the model (``model``), its
configuration (``config``), sources and targets as arrays (``encoding``), training (``training``), model
directories (``persistence``) and held-out quality (``evaluation``)."""

from elmo_keras._lazy import attach_stub

__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
