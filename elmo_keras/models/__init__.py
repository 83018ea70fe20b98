"""Trainable models: the biLM language model, its presets and training helpers."""

from elmo_keras.models.bilm_lm import BiLanguageModel, Perplexity
from elmo_keras.models.persistence import load_bilm, save_model_dir
from elmo_keras.models.presets import PRESETS, BiLMConfig, build_bilm_lm, get_preset
from elmo_keras.models.training import encode_for_lm, encode_word_ids, perplexities, train_bilm, unigram_perplexity

__all__ = [
    "PRESETS", "BiLMConfig", "BiLanguageModel", "Perplexity", "build_bilm_lm", "encode_for_lm", "encode_word_ids",
    "get_preset", "load_bilm", "perplexities", "save_model_dir", "train_bilm", "unigram_perplexity",
]
