"""The original ELMo models (bilm-tf / AllenNLP ``options.json`` + ``weights.hdf5``) as our layers."""

from elmo_keras.pretrained.embedder import ElmoEmbedder
from elmo_keras.pretrained.export import export_pretrained
from elmo_keras.pretrained.fine_tuning import fine_tune_pretrained
from elmo_keras.pretrained.loader import (
    bilm_from_options,
    load_pretrained_bilm,
    load_pretrained_elmo,
    set_pretrained_weights,
)
from elmo_keras.pretrained.options import CharCNNOptions, ElmoOptions, LSTMOptions, OptionsError, PretrainedFileError
from elmo_keras.pretrained.weights import WeightFileError, read_weight_file

__all__ = [
    "CharCNNOptions", "ElmoEmbedder", "ElmoOptions", "LSTMOptions", "OptionsError", "PretrainedFileError",
    "WeightFileError", "bilm_from_options", "export_pretrained", "fine_tune_pretrained", "load_pretrained_bilm",
    "load_pretrained_elmo",
    "read_weight_file", "set_pretrained_weights",
]
