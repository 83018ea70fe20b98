"""The names ``elmo_keras.models.bilm`` exports (read by ``_lazy.attach_stub``)."""

from elmo_keras.models.bilm.checkpoint_files import CheckpointError
from elmo_keras.models.bilm.directory import load_bilm
from elmo_keras.models.bilm.evaluation import perplexities, unigram_perplexity
from elmo_keras.models.bilm.language_model import BiLanguageModel, Perplexity, build_bilm_lm
from elmo_keras.models.bilm.presets import LARGE_SIZES, PRESETS, SIZES, BiLMConfig, get_preset, get_size
from elmo_keras.models.bilm.training import train_bilm
