"""Trainable models: the biLM language model (presets; training, streamed, resumable, data-parallel, with a full
or sampled softmax; evaluation; model directories), the seq2seq encoder-decoder, the CNN and RNN text classifiers,
and HRED / VHRED for dialogue.

The names below are imported on first use (``_lazy``): ``import elmo_keras.models.presets`` does not load Keras.
"""

from typing import TYPE_CHECKING

from elmo_keras._lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "elmo_keras.models.bilm_directory": ["load_bilm"],
    "elmo_keras.models.bilm_lm": ["BiLanguageModel", "Perplexity", "build_bilm_lm"],
    "elmo_keras.models.callbacks": ["TrainingDivergedError"],
    "elmo_keras.models.checkpoint_files": ["CheckpointError"],
    "elmo_keras.models.classifiers": ["CNNTextClassifier", "ClassifierConfig", "RNNTextClassifier",
                                      "class_probabilities", "evaluate_classifier", "load_classifier",
                                      "save_classifier", "train_text_classifier"],
    "elmo_keras.models.dialogue": ["HRED", "VHRED", "DialogueConfig", "evaluate_dialogue_model",
                                   "load_dialogue_model", "save_dialogue_model", "train_dialogue_model", "train_hred",
                                   "train_vhred"],
    "elmo_keras.models.distribution": ["adapt_to_multi_worker", "configure_cpu_devices", "distribution_scope"],
    "elmo_keras.models.evaluation": ["perplexities", "unigram_perplexity"],
    "elmo_keras.models.optimizer": ["DenseGradientAdam"],
    "elmo_keras.models.persistence": ["save_model_dir"],
    "elmo_keras.models.presets": ["PRESETS", "BiLMConfig", "get_preset"],
    "elmo_keras.models.sampled_softmax": ["log_uniform_log_probabilities", "sample_candidates",
                                          "sampled_softmax_losses"],
    "elmo_keras.models.seq2seq": ["Seq2Seq", "Seq2SeqConfig", "encode_pairs", "encode_sources", "evaluate_seq2seq",
                                  "load_seq2seq", "save_seq2seq", "train_seq2seq"],
    "elmo_keras.models.training": ["train_bilm"],
})

if TYPE_CHECKING:  # what static tools and IDEs see
    from elmo_keras.models.bilm_directory import load_bilm
    from elmo_keras.models.bilm_lm import BiLanguageModel, Perplexity, build_bilm_lm
    from elmo_keras.models.callbacks import TrainingDivergedError
    from elmo_keras.models.checkpoint_files import CheckpointError
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
    from elmo_keras.models.distribution import adapt_to_multi_worker, configure_cpu_devices, distribution_scope
    from elmo_keras.models.evaluation import perplexities, unigram_perplexity
    from elmo_keras.models.optimizer import DenseGradientAdam
    from elmo_keras.models.persistence import save_model_dir
    from elmo_keras.models.presets import PRESETS, BiLMConfig, get_preset
    from elmo_keras.models.sampled_softmax import (
        log_uniform_log_probabilities,
        sample_candidates,
        sampled_softmax_losses,
    )
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
    "CheckpointError", "adapt_to_multi_worker", "configure_cpu_devices", "distribution_scope",
    "log_uniform_log_probabilities", "sample_candidates", "sampled_softmax_losses",
    "BiLMConfig", "BiLanguageModel", "CNNTextClassifier", "ClassifierConfig", "DenseGradientAdam", "DialogueConfig",
    "HRED", "PRESETS", "Perplexity", "RNNTextClassifier", "Seq2Seq", "Seq2SeqConfig", "TrainingDivergedError", "VHRED",
    "build_bilm_lm", "class_probabilities", "encode_pairs", "encode_sources", "evaluate_classifier",
    "evaluate_dialogue_model", "evaluate_seq2seq", "get_preset", "load_bilm", "load_classifier", "load_dialogue_model",
    "load_seq2seq", "perplexities", "save_classifier", "save_dialogue_model", "save_model_dir", "save_seq2seq",
    "train_bilm", "train_dialogue_model", "train_hred", "train_seq2seq", "train_text_classifier", "train_vhred",
    "unigram_perplexity",
]
