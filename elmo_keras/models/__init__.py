"""Trainable models, one package per family: ``bilm`` (the biLM language model: presets; training, streamed,
resumable, data-parallel, with a full or sampled softmax; evaluation; model directories), ``seq2seq`` (the
encoder-decoder), ``classifiers`` (the CNN and RNN text classifiers) and ``dialogue`` (HRED / VHRED). What they
share lives here: ``optimizer`` (``DenseGradientAdam``), ``sparse_optimizers`` (``LazyAdam``, ``SparseAdagrad``),
``callbacks`` (the divergence guards), ``fitting`` (the one trainer skeleton), ``persistence``, ``directory_files``
and ``legacy_files`` (model directories), ``provenance`` (what made a shipped experiment file).

The names below are imported on first use (``_lazy``): ``import elmo_keras.models.bilm.presets`` does not load Keras.
"""

from typing import TYPE_CHECKING

from elmo_keras._lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "elmo_keras.models.bilm.directory": ["load_bilm"],
    "elmo_keras.models.bilm.language_model": ["BiLanguageModel", "Perplexity", "build_bilm_lm"],
    "elmo_keras.models.callbacks": ["TrainingDivergedError"],
    "elmo_keras.models.bilm.checkpoint_files": ["CheckpointError"],
    "elmo_keras.models.classifiers": ["CNNTextClassifier", "ClassifierConfig", "RNNTextClassifier",
                                      "class_probabilities", "evaluate_classifier", "load_classifier",
                                      "save_classifier", "train_text_classifier"],
    "elmo_keras.models.dialogue": ["HRED", "VHRED", "DialogueConfig", "evaluate_dialogue_model",
                                   "load_dialogue_model", "save_dialogue_model", "train_dialogue_model", "train_hred",
                                   "train_vhred"],
    "elmo_keras.models.bilm.distribution": ["adapt_to_multi_worker", "configure_cpu_devices", "distribution_scope"],
    "elmo_keras.models.bilm.evaluation": ["perplexities", "unigram_perplexity"],
    "elmo_keras.models.optimizer": ["DenseGradientAdam"],
    "elmo_keras.models.sparse_optimizers": ["LazyAdam", "SparseAdagrad"],
    "elmo_keras.models.persistence": ["save_model_dir"],
    "elmo_keras.models.bilm.presets": ["PRESETS", "BiLMConfig", "get_preset"],
    "elmo_keras.models.bilm.sampled_softmax": ["log_uniform_log_probabilities", "sample_candidates",
                                          "sampled_softmax_losses"],
    "elmo_keras.models.seq2seq": ["Seq2Seq", "Seq2SeqConfig", "encode_pairs", "encode_sources", "evaluate_seq2seq",
                                  "load_seq2seq", "save_seq2seq", "train_seq2seq"],
    "elmo_keras.models.bilm.training": ["train_bilm"],
})

if TYPE_CHECKING:  # what static tools and IDEs see
    from elmo_keras.models.bilm.checkpoint_files import CheckpointError
    from elmo_keras.models.bilm.directory import load_bilm
    from elmo_keras.models.bilm.distribution import adapt_to_multi_worker, configure_cpu_devices, distribution_scope
    from elmo_keras.models.bilm.evaluation import perplexities, unigram_perplexity
    from elmo_keras.models.bilm.language_model import BiLanguageModel, Perplexity, build_bilm_lm
    from elmo_keras.models.bilm.presets import PRESETS, BiLMConfig, get_preset
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

__all__ = [
    "CheckpointError", "adapt_to_multi_worker", "configure_cpu_devices", "distribution_scope",
    "log_uniform_log_probabilities", "sample_candidates", "sampled_softmax_losses",
    "BiLMConfig", "BiLanguageModel", "CNNTextClassifier", "ClassifierConfig", "DenseGradientAdam", "DialogueConfig",
    "HRED", "LazyAdam", "PRESETS", "Perplexity", "RNNTextClassifier", "Seq2Seq", "Seq2SeqConfig", "SparseAdagrad",
    "TrainingDivergedError", "VHRED",
    "build_bilm_lm", "class_probabilities", "encode_pairs", "encode_sources", "evaluate_classifier",
    "evaluate_dialogue_model", "evaluate_seq2seq", "get_preset", "load_bilm", "load_classifier", "load_dialogue_model",
    "load_seq2seq", "perplexities", "save_classifier", "save_dialogue_model", "save_model_dir", "save_seq2seq",
    "train_bilm", "train_dialogue_model", "train_hred", "train_seq2seq", "train_text_classifier", "train_vhred",
    "unigram_perplexity",
]
