"""Trainable models: the biLM language model (presets, training, evaluation, model directories) and the
seq2seq encoder-decoder.

The names below are imported on first use (``_lazy``): ``import elmo_keras.models.presets`` does not load Keras.
"""

from typing import TYPE_CHECKING

from elmo_keras._lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "elmo_keras.models.bilm_directory": ["load_bilm"],
    "elmo_keras.models.bilm_lm": ["BiLanguageModel", "Perplexity", "build_bilm_lm"],
    "elmo_keras.models.callbacks": ["TrainingDivergedError"],
    "elmo_keras.models.evaluation": ["perplexities", "unigram_perplexity"],
    "elmo_keras.models.optimizer": ["DenseGradientAdam"],
    "elmo_keras.models.persistence": ["save_model_dir"],
    "elmo_keras.models.presets": ["PRESETS", "BiLMConfig", "get_preset"],
    "elmo_keras.models.seq2seq": ["Seq2Seq", "Seq2SeqConfig", "encode_pairs", "encode_sources", "evaluate_seq2seq",
                                  "load_seq2seq", "save_seq2seq", "train_seq2seq"],
    "elmo_keras.models.training": ["train_bilm"],
})

if TYPE_CHECKING:  # what static tools and IDEs see
    from elmo_keras.models.bilm_directory import load_bilm
    from elmo_keras.models.bilm_lm import BiLanguageModel, Perplexity, build_bilm_lm
    from elmo_keras.models.callbacks import TrainingDivergedError
    from elmo_keras.models.evaluation import perplexities, unigram_perplexity
    from elmo_keras.models.optimizer import DenseGradientAdam
    from elmo_keras.models.persistence import save_model_dir
    from elmo_keras.models.presets import PRESETS, BiLMConfig, get_preset
    from elmo_keras.models.seq2seq import (
        Seq2Seq,
        Seq2SeqConfig,
        encode_pairs,
        encode_sources,
        evaluate_seq2seq,
        load_seq2seq,
        save_seq2seq,
        train_seq2seq,
    )
    from elmo_keras.models.training import train_bilm

__all__ = [
    "PRESETS", "BiLMConfig", "BiLanguageModel", "DenseGradientAdam", "Perplexity", "Seq2Seq", "Seq2SeqConfig",
    "TrainingDivergedError",
    "build_bilm_lm", "encode_pairs", "encode_sources", "evaluate_seq2seq", "get_preset",
    "load_bilm", "load_seq2seq", "perplexities", "save_model_dir", "save_seq2seq", "train_bilm", "train_seq2seq",
    "unigram_perplexity",
]
