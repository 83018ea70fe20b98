"""The original ELMo models (bilm-tf / AllenNLP ``options.json`` + ``weights.hdf5``) as our layers; the released ones
by name or URL, downloaded once into a cache (``registry``, ``downloads``, ``model_files``)."""

from elmo_keras._lazy import attach_stub

__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
