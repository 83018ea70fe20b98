"""The names ``elmo_keras`` exports (read by ``_lazy.attach_stub``)."""

from elmo_keras import analysis, data, tagging
from elmo_keras._registration import load_model
from elmo_keras.analysis import cosine_similarity_matrices, layer_embeddings
from elmo_keras.decoding import beam_search, exhaustive_search, greedy, sample
from elmo_keras.embedding import ElmoEmbedder
from elmo_keras.layers import (
    CRF,
    BiLM,
    CharCNN,
    Elmo,
    ElmoCharacterIds,
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
    get_size,
    load_bilm,
    load_seq2seq,
    train_bilm,
    train_seq2seq,
)
from elmo_keras.pretrained import (
    ElmoOptions,
    OptionsError,
    PretrainedFileError,
    WeightFileError,
    export_pretrained,
    fine_tune_pretrained,
    load_preset,
    load_pretrained_bilm,
    load_pretrained_elmo,
)
from elmo_keras.text import MAX_CHARS_PER_TOKEN, Vocabulary, batch_to_ids, tokenize
