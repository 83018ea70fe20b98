"""The original ELMo models (bilm-tf / AllenNLP ``options.json`` + ``weights.hdf5``) as our layers."""

from typing import TYPE_CHECKING

from elmo_keras._lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "elmo_keras.pretrained.embedder": ["ElmoEmbedder"],
    "elmo_keras.pretrained.export": ["export_pretrained"],
    "elmo_keras.pretrained.fine_tuning": ["fine_tune_pretrained"],
    "elmo_keras.pretrained.loader": ["bilm_from_options", "load_pretrained_bilm", "load_pretrained_elmo",
                                     "set_pretrained_weights"],
    "elmo_keras.pretrained.options": ["CharCNNOptions", "ElmoOptions", "LSTMOptions", "OptionsError",
                                      "PretrainedFileError"],
    "elmo_keras.pretrained.shards": ["merge_shards"],
    "elmo_keras.pretrained.weights": ["WeightFileError", "read_weight_file"],
})

if TYPE_CHECKING:  # what static tools and IDEs see
    from elmo_keras.pretrained.embedder import ElmoEmbedder
    from elmo_keras.pretrained.export import export_pretrained
    from elmo_keras.pretrained.fine_tuning import fine_tune_pretrained
    from elmo_keras.pretrained.loader import (
        bilm_from_options,
        load_pretrained_bilm,
        load_pretrained_elmo,
        set_pretrained_weights,
    )
    from elmo_keras.pretrained.options import (
        CharCNNOptions,
        ElmoOptions,
        LSTMOptions,
        OptionsError,
        PretrainedFileError,
    )
    from elmo_keras.pretrained.shards import merge_shards
    from elmo_keras.pretrained.weights import WeightFileError, read_weight_file

__all__ = [
    "CharCNNOptions", "ElmoEmbedder", "ElmoOptions", "LSTMOptions", "OptionsError", "PretrainedFileError",
    "WeightFileError", "bilm_from_options", "export_pretrained", "fine_tune_pretrained", "load_pretrained_bilm",
    "load_pretrained_elmo", "merge_shards", "read_weight_file", "set_pretrained_weights",
]
