"""elmo_keras: contextual embeddings (ELMo) for Keras 3.

Everything a notebook needs is importable from here. Each name is imported on first use (``_lazy``), so
``import elmo_keras`` itself takes milliseconds and the first layer or model brings in Keras, quietly: TensorFlow's
start-up log lines are not printed. Streamlit is never imported.

    >>> import elmo_keras
    >>> model = elmo_keras.train_bilm(preset="toy")               # the built-in polysemy corpus
    >>> vectors = elmo_keras.layer_embeddings(model, [["the", "river", "bank"]], positions=[2])
"""

from typing import TYPE_CHECKING

from elmo_keras import _quiet  # noqa: F401  (first: TensorFlow's first import, whoever makes it, stays quiet)
from elmo_keras._lazy import lazy_exports
from elmo_keras._registration import install as _register_keras_classes_when_keras_loads

_register_keras_classes_when_keras_loads()

__getattr__, __dir__ = lazy_exports(__name__, {
    "elmo_keras.analysis": ["analysis", "cosine_similarity_matrices", "layer_embeddings"],
    "elmo_keras.data": ["data"],
    "elmo_keras.tagging": ["tagging"],
    "elmo_keras.decoding": ["beam_search", "exhaustive_search", "greedy", "sample"],
    "elmo_keras.layers": ["CRF", "BiLM", "CharCNN", "Elmo", "Highway", "LSTMStack", "ProjectedLSTMCell", "ScalarMix",
                          "WordEmbedding"],
    "elmo_keras.models": ["BiLanguageModel", "BiLMConfig", "Seq2Seq", "Seq2SeqConfig", "get_preset", "load_bilm",
                          "load_seq2seq", "train_bilm", "train_seq2seq"],
    "elmo_keras.pretrained": ["ElmoEmbedder", "ElmoOptions", "OptionsError", "PretrainedFileError", "WeightFileError",
                              "export_pretrained", "fine_tune_pretrained", "load_pretrained_bilm",
                              "load_pretrained_elmo"],
    "elmo_keras.text": ["MAX_CHARS_PER_TOKEN", "Vocabulary", "batch_to_ids", "tokenize"],
})

if TYPE_CHECKING:  # what static tools and IDEs see
    from elmo_keras import analysis, data, tagging
    from elmo_keras.analysis import cosine_similarity_matrices, layer_embeddings
    from elmo_keras.decoding import beam_search, exhaustive_search, greedy, sample
    from elmo_keras.layers import (
        CRF,
        BiLM,
        CharCNN,
        Elmo,
        Highway,
        LSTMStack,
        ProjectedLSTMCell,
        ScalarMix,
        WordEmbedding,
    )
    from elmo_keras.models import (
        BiLanguageModel,
        BiLMConfig,
        Seq2Seq,
        Seq2SeqConfig,
        get_preset,
        load_bilm,
        load_seq2seq,
        train_bilm,
        train_seq2seq,
    )
    from elmo_keras.pretrained import (
        ElmoEmbedder,
        ElmoOptions,
        OptionsError,
        PretrainedFileError,
        WeightFileError,
        export_pretrained,
        fine_tune_pretrained,
        load_pretrained_bilm,
        load_pretrained_elmo,
    )
    from elmo_keras.text import MAX_CHARS_PER_TOKEN, Vocabulary, batch_to_ids, tokenize

__version__ = "0.1.0"

__all__ = [
    "CRF", "MAX_CHARS_PER_TOKEN", "BiLM", "BiLMConfig", "BiLanguageModel", "CharCNN", "Elmo", "ElmoEmbedder",
    "ElmoOptions", "Highway", "LSTMStack", "OptionsError", "PretrainedFileError", "ProjectedLSTMCell", "ScalarMix",
    "Seq2Seq", "Seq2SeqConfig", "Vocabulary", "WeightFileError", "WordEmbedding", "__version__", "analysis",
    "batch_to_ids", "beam_search", "cosine_similarity_matrices", "data", "exhaustive_search", "export_pretrained",
    "fine_tune_pretrained", "get_preset", "greedy",
    "layer_embeddings", "load_bilm", "load_pretrained_bilm", "load_pretrained_elmo", "load_seq2seq", "sample",
    "tagging", "tokenize", "train_bilm", "train_seq2seq",
]
