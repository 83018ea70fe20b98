"""Text pipeline: tokenizer, sentences as token lists, word vocabulary, ELMo character ids and padded model inputs."""

from elmo_keras._lazy import attach_stub

__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
