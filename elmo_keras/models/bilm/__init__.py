"""The biLM language model and everything that trains it: the model (``language_model``), ``presets``, the
shuffled length-bucketed batches (``batches``, ``training_data``), ``training`` (``train_bilm``) and
``training_sizes``, ``evaluation`` (perplexity), ``sampled_softmax``, data-parallel training (``distribution``),
exact resume (``checkpoints``, ``checkpoint_files``), ``precision`` (float32 or mixed bfloat16), model directories
(``directory``) and ``inference``, the one compiled embedding path every consumer uses.

The names below are imported on first use (``_lazy``): ``import elmo_keras.models.bilm`` does not load Keras.
"""

from typing import TYPE_CHECKING

from elmo_keras._lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "elmo_keras.models.bilm.checkpoint_files": ["CheckpointError"],
    "elmo_keras.models.bilm.directory": ["load_bilm"],
    "elmo_keras.models.bilm.evaluation": ["perplexities", "unigram_perplexity"],
    "elmo_keras.models.bilm.language_model": ["BiLanguageModel", "Perplexity", "build_bilm_lm"],
    "elmo_keras.models.bilm.presets": ["PRESETS", "BiLMConfig", "get_preset"],
    "elmo_keras.models.bilm.training": ["train_bilm"],
})

if TYPE_CHECKING:  # what static tools and IDEs see
    from elmo_keras.models.bilm.checkpoint_files import CheckpointError
    from elmo_keras.models.bilm.directory import load_bilm
    from elmo_keras.models.bilm.evaluation import perplexities, unigram_perplexity
    from elmo_keras.models.bilm.language_model import BiLanguageModel, Perplexity, build_bilm_lm
    from elmo_keras.models.bilm.presets import PRESETS, BiLMConfig, get_preset
    from elmo_keras.models.bilm.training import train_bilm

__all__ = ["PRESETS", "BiLMConfig", "BiLanguageModel", "CheckpointError", "Perplexity", "build_bilm_lm",
           "get_preset", "load_bilm", "perplexities", "train_bilm", "unigram_perplexity"]
