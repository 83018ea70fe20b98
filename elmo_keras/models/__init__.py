"""Trainable models, one package per family: ``bilm`` (the biLM language model: presets; training, streamed,
resumable, data-parallel, with a full or sampled softmax; evaluation; model directories), ``seq2seq`` (the
encoder-decoder), ``classifiers`` (the CNN and RNN text classifiers) and ``dialogue`` (HRED / VHRED). What they
share lives here: ``optimizer`` (``DenseGradientAdam``), ``sparse_optimizers`` (``LazyAdam``, ``SparseAdagrad``),
``callbacks`` (the divergence guards), ``fitting`` (the one trainer skeleton), ``persistence``, ``directory_files``
and ``legacy_files`` (model directories), ``provenance`` (what made a shipped experiment file).

The names below are imported on first use (``_lazy``): ``import elmo_keras.models.bilm.presets`` does not load Keras.
"""

from elmo_keras._lazy import attach_stub

__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
