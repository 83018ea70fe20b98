"""The biLM language model and everything that trains it: the model (``language_model``), ``presets``, the
shuffled length-bucketed batches (``batches``, ``training_data``), ``training`` (``train_bilm``) and
``training_sizes``, ``evaluation`` (perplexity), ``sampled_softmax``, data-parallel training (``distribution``),
exact resume (``checkpoints``, ``checkpoint_files``), ``precision`` (float32 or mixed bfloat16), model directories
(``directory``) and ``inference``, the one compiled embedding path every consumer uses.

The names below are imported on first use (``_lazy``): ``import elmo_keras.models.bilm`` does not load Keras.
"""

from elmo_keras._lazy import attach_stub

__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
