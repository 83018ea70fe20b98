"""The names ``elmo_keras.pretrained`` exports (read by ``_lazy.attach_stub``)."""

from elmo_keras.pretrained.downloads import (
    CachedFileChangedError,
    DownloadError,
    OfflineError,
    cached_file,
    pretrained_directory,
)
from elmo_keras.pretrained.export import export_pretrained
from elmo_keras.pretrained.fine_tuning import fine_tune_pretrained
from elmo_keras.pretrained.loader import (
    bilm_from_options,
    load_pretrained_bilm,
    load_pretrained_elmo,
    set_pretrained_weights,
)
from elmo_keras.pretrained.model_files import local_model_files
from elmo_keras.pretrained.options import CharCNNOptions, ElmoOptions, LSTMOptions, OptionsError, PretrainedFileError
from elmo_keras.pretrained.presets import LoadedPreset, load_preset, preset_kind
from elmo_keras.pretrained.registry import (
    ALIASES,
    RELEASED_ARCHIVES,
    RELEASED_MODELS,
    ReleasedArchive,
    ReleasedModel,
    RemoteFile,
    preset_name,
    preset_names,
    released_model,
)
from elmo_keras.pretrained.weights import WeightFileError, read_weight_file
