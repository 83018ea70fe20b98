"""HRED and VHRED for multi-turn dialogue (Serban et al. 2016, 2017), split like ``models.seq2seq``: the models
(``hred``, ``vhred``), the latent-variable arithmetic (``gaussian``), configuration (``config``), dialogues as
arrays (``encoding``), training (``training``), model directories (``persistence``), replies through the shared
decoding strategies (``generation``) and held-out scores (``evaluation``)."""

from elmo_keras._lazy import attach_stub

__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
