"""The original ELMo models (bilm-tf / AllenNLP ``options.json`` + ``weights.hdf5``) as our layers; the released ones
by name or URL, downloaded once into a cache (``registry``, ``downloads``, ``model_files``)."""

from typing import TYPE_CHECKING

from elmo_keras._lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "elmo_keras.pretrained.downloads": ["CachedFileChangedError", "DownloadError", "OfflineError", "cached_file",
                                        "pretrained_directory"],
    "elmo_keras.pretrained.embedder": ["ElmoEmbedder"],
    "elmo_keras.pretrained.export": ["export_pretrained"],
    "elmo_keras.pretrained.fine_tuning": ["fine_tune_pretrained"],
    "elmo_keras.pretrained.loader": ["bilm_from_options", "load_pretrained_bilm", "load_pretrained_elmo",
                                     "set_pretrained_weights"],
    "elmo_keras.pretrained.model_files": ["local_model_files"],
    "elmo_keras.pretrained.onnx_embedder": ["OnnxEmbedder"],
    "elmo_keras.pretrained.onnx_export": ["export_onnx"],
    "elmo_keras.pretrained.options": ["CharCNNOptions", "ElmoOptions", "LSTMOptions", "OptionsError",
                                      "PretrainedFileError"],
    "elmo_keras.pretrained.registry": ["RELEASED_MODELS", "ReleasedModel", "RemoteFile", "released_model"],
    "elmo_keras.pretrained.shards": ["merge_shards"],
    "elmo_keras.pretrained.weights": ["WeightFileError", "read_weight_file"],
})

if TYPE_CHECKING:  # what static tools and IDEs see
    from elmo_keras.pretrained.downloads import (
        CachedFileChangedError,
        DownloadError,
        OfflineError,
        cached_file,
        pretrained_directory,
    )
    from elmo_keras.pretrained.embedder import ElmoEmbedder
    from elmo_keras.pretrained.export import export_pretrained
    from elmo_keras.pretrained.fine_tuning import fine_tune_pretrained
    from elmo_keras.pretrained.loader import (
        bilm_from_options,
        load_pretrained_bilm,
        load_pretrained_elmo,
        set_pretrained_weights,
    )
    from elmo_keras.pretrained.model_files import local_model_files
    from elmo_keras.pretrained.onnx_embedder import OnnxEmbedder
    from elmo_keras.pretrained.onnx_export import export_onnx
    from elmo_keras.pretrained.options import (
        CharCNNOptions,
        ElmoOptions,
        LSTMOptions,
        OptionsError,
        PretrainedFileError,
    )
    from elmo_keras.pretrained.registry import RELEASED_MODELS, ReleasedModel, RemoteFile, released_model
    from elmo_keras.pretrained.shards import merge_shards
    from elmo_keras.pretrained.weights import WeightFileError, read_weight_file

__all__ = [
    "RELEASED_MODELS", "CachedFileChangedError", "CharCNNOptions", "DownloadError", "ElmoEmbedder", "ElmoOptions",
    "LSTMOptions", "OfflineError", "OnnxEmbedder", "OptionsError", "PretrainedFileError", "ReleasedModel", "RemoteFile",
    "WeightFileError", "bilm_from_options", "cached_file", "export_onnx", "export_pretrained", "fine_tune_pretrained",
    "load_pretrained_bilm", "load_pretrained_elmo", "local_model_files", "merge_shards", "pretrained_directory",
    "read_weight_file", "released_model", "set_pretrained_weights",
]
