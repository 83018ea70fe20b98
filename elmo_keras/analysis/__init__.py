"""Analysis helpers: per-layer word vectors, cosine similarity, PCA and sense separation; the gradient-flow study
(vanishing gradients, clipping vs gating) and the worked convolution example (imported on first use, ``_lazy``)."""

from elmo_keras._lazy import attach_stub

__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
