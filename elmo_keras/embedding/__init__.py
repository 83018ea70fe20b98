"""Embedding with a biLM: ``ElmoEmbedder`` (sentences, batches, files, shards), the one job runner under it and
``layer_embeddings`` (``jobs``), its execution and precision choices, ONNX export and ``OnnxEmbedder``."""

from elmo_keras._lazy import attach_stub

__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
