"""The names ``elmo_keras.models`` exports (read by ``_lazy.attach_stub``)."""

from elmo_keras.models.bilm.checkpoint_files import CheckpointError
from elmo_keras.models.bilm.directory import load_bilm
from elmo_keras.models.bilm.distribution import adapt_to_multi_worker, configure_cpu_devices, distribution_scope
from elmo_keras.models.bilm.evaluation import perplexities, unigram_perplexity
from elmo_keras.models.bilm.language_model import BiLanguageModel, Perplexity, build_bilm_lm
from elmo_keras.models.bilm.presets import LARGE_SIZES, PRESETS, SIZES, BiLMConfig, get_preset, get_size
from elmo_keras.models.bilm.sampled_softmax import (
    log_uniform_log_probabilities,
    sample_candidates,
    sampled_softmax_losses,
)
from elmo_keras.models.bilm.training import train_bilm
from elmo_keras.models.callbacks import TrainingDivergedError
from elmo_keras.models.classifiers import (
    ClassifierConfig,
    CNNTextClassifier,
    RNNTextClassifier,
    class_probabilities,
    evaluate_classifier,
    load_classifier,
    save_classifier,
    train_text_classifier,
)
from elmo_keras.models.dialogue import (
    HRED,
    VHRED,
    DialogueConfig,
    evaluate_dialogue_model,
    load_dialogue_model,
    save_dialogue_model,
    train_dialogue_model,
    train_hred,
    train_vhred,
)
from elmo_keras.models.optimizer import DenseGradientAdam
from elmo_keras.models.persistence import save_model_dir
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
from elmo_keras.models.sparse_optimizers import LazyAdam, SparseAdagrad
