"""elmo_keras: contextual embeddings (ELMo) for Keras 3.

Everything a notebook needs is importable from here. Each name is imported on first use (``_lazy``), so
``import elmo_keras`` itself takes milliseconds and the first layer or model brings in Keras, quietly: TensorFlow's
start-up log lines are not printed. Streamlit is never imported.

    >>> import elmo_keras
    >>> model = elmo_keras.train_bilm(preset="toy")               # the built-in polysemy corpus
    >>> vectors = elmo_keras.layer_embeddings(model, [["the", "river", "bank"]], positions=[2])
"""

import importlib
import importlib.abc
import os
import sys
import threading
from typing import TYPE_CHECKING

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

_EXPORTS = {name: (module, name) for module, names in {
    "elmo_keras.analysis": ["analysis", "cosine_similarity_matrices", "layer_embeddings"],
    "elmo_keras.data": ["data"],
    "elmo_keras.tagging": ["tagging"],
    "elmo_keras.decoding": ["beam_search", "exhaustive_search", "greedy", "sample"],
    "elmo_keras.layers": ["CRF", "BiLM", "CharCNN", "Elmo", "ElmoCharacterIds", "Highway", "LSTMStack",
                          "ProjectedLSTMCell", "ScalarMix", "WordEmbedding"],
    "elmo_keras.models": ["BiLanguageModel", "BiLMConfig", "Seq2Seq", "Seq2SeqConfig", "get_preset", "load_bilm",
                          "load_seq2seq", "train_bilm", "train_seq2seq"],
    "elmo_keras.pretrained": ["ElmoEmbedder", "ElmoOptions", "OptionsError", "PretrainedFileError", "WeightFileError",
                              "export_pretrained", "fine_tune_pretrained", "load_pretrained_bilm",
                              "load_pretrained_elmo"],
    "elmo_keras.text": ["MAX_CHARS_PER_TOKEN", "Vocabulary", "batch_to_ids", "tokenize"],
}.items() for name in names}


def __getattr__(name: str):
    return importlib.import_module("elmo_keras._lazy").resolve(__name__, _EXPORTS, name)


def __dir__() -> list:
    return sorted(set(globals()) | set(_EXPORTS))


# -- first-import hooks ----------------------------------------------------------------------------------------
# They are here, not in a module of this package: this package imports none of its own modules when it is imported.
# Python imports a package before any of its modules, holding that module's import lock meanwhile, so a thread whose
# first import is ``elmo_keras._quiet`` would wait for this package while this package waited for ``_quiet`` (a
# _DeadlockError when another thread imports ``elmo_keras`` at that moment). The modules are imported on first use.

class _FirstImportHook(importlib.abc.MetaPathFinder):
    """Runs ``run(exec_module, module)`` around the first import of the top-level module ``name``, whoever makes it.

    It stays in ``sys.meta_path``, answering nothing once that import has run: removing it would change the list
    while other threads walk it (they would skip the next finder: "No module named ..." for a module that exists).
    A spec asked for without importing (``importlib.util.find_spec``, as TensorFlow asks for Keras) uses nothing up.
    """

    def __init__(self, name: str, run):
        self.name, self.run, self.done = name, run, False

    def find_spec(self, name, path=None, target=None):
        if name != self.name or self.done:
            return None
        for finder in list(sys.meta_path):  # what the other finders answer; its loader is wrapped
            find_spec = None if isinstance(finder, _FirstImportHook) else getattr(finder, "find_spec", None)
            spec = find_spec(name, path, target) if find_spec is not None else None
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _WrappedLoader(spec.loader, self)
                return spec
        return None


class _WrappedLoader(importlib.abc.Loader):
    """Runs another loader's ``exec_module`` through its hook's ``run(exec_module, module)``."""

    def __init__(self, loader, hook: _FirstImportHook):
        self.loader, self.hook = loader, hook

    def __getattr__(self, name):  # everything else (resources, source, file name) is the real loader's
        return getattr(self.loader, name)

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.hook.run(self.loader.exec_module, module)
        self.hook.done = True


def _quietly(exec_module, module):  # TensorFlow's first import: its start-up log lines silenced (``_quiet``)
    importlib.import_module("elmo_keras._quiet").run_quietly(exec_module, module)


class _RegisteringOnLookup(dict):
    """Keras' registry of custom objects, importing this package's registering modules on a miss for one of its
    names (``_registration``): ``import elmo_keras; keras.saving.load_model("tagger.keras")`` finds the classes."""

    def _register(self, name):
        if isinstance(name, str) and name.startswith("elmo_keras>") and not dict.__contains__(self, name):
            importlib.import_module("elmo_keras._registration").register_serializable_classes()

    def __contains__(self, name):
        self._register(name)
        return dict.__contains__(self, name)

    def __missing__(self, name):
        self._register(name)
        if dict.__contains__(self, name):
            return dict.__getitem__(self, name)
        raise KeyError(name)


def _install_registry(exec_module=None, module=None):
    """Keras' first import (if given), then its registry swapped for a ``_RegisteringOnLookup``."""
    if exec_module is not None:
        exec_module(module)
    from keras.src.saving import object_registration  # here: Keras is loaded by now; its registry is not public

    if not isinstance(object_registration.GLOBAL_CUSTOM_OBJECTS, _RegisteringOnLookup):
        object_registration.GLOBAL_CUSTOM_OBJECTS = _RegisteringOnLookup(object_registration.GLOBAL_CUSTOM_OBJECTS)


def _hook_first_import(name: str, run) -> None:
    """Install a ``_FirstImportHook`` unless ``name`` is imported already (or hooked)."""
    if name not in sys.modules and not any(isinstance(f, _FirstImportHook) and f.name == name for f in sys.meta_path):
        sys.meta_path.insert(0, _FirstImportHook(name, run))


def _install_registry_once_keras_is_loaded():
    """The registry swapped after Keras' first import (the hook), or now if Keras is loaded already.

    A thread may have begun importing Keras before the hook was in place (a module of this package, imported while
    this package was still being imported); waiting for it here, holding this package's import lock, could deadlock,
    and entering Keras' imports alongside it does (Keras' modules import each other in cycles): a thread waits."""
    _hook_first_import("keras", _install_registry)
    keras = sys.modules.get("keras")
    spec = getattr(keras, "__spec__", None)
    if keras is None or isinstance(getattr(spec, "loader", None), _WrappedLoader):
        return  # not imported yet, or imported through the hook, which installs the registry
    if getattr(spec, "_initializing", False):
        threading.Thread(target=_install_registry_after_keras, name="elmo-keras-registry", daemon=True).start()
    else:
        _install_registry()


def _install_registry_after_keras():
    try:
        importlib.import_module("keras")  # waits until the thread importing it is done
    except ImportError:
        return
    _install_registry()


_hook_first_import("tensorflow", _quietly)  # TensorFlow's first import, whoever makes it, stays quiet
_install_registry_once_keras_is_loaded()


if TYPE_CHECKING:  # what static tools and IDEs see
    from elmo_keras import analysis, data, tagging
    from elmo_keras.analysis import cosine_similarity_matrices, layer_embeddings
    from elmo_keras.decoding import beam_search, exhaustive_search, greedy, sample
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
    "CRF", "MAX_CHARS_PER_TOKEN", "BiLM", "BiLMConfig", "BiLanguageModel", "CharCNN", "Elmo", "ElmoCharacterIds",
    "ElmoEmbedder", "ElmoOptions", "Highway", "LSTMStack", "OptionsError", "PretrainedFileError", "ProjectedLSTMCell",
    "ScalarMix", "Seq2Seq", "Seq2SeqConfig", "Vocabulary", "WeightFileError", "WordEmbedding", "__version__",
    "analysis",
    "batch_to_ids", "beam_search", "cosine_similarity_matrices", "data", "exhaustive_search", "export_pretrained",
    "fine_tune_pretrained", "get_preset", "greedy",
    "layer_embeddings", "load_bilm", "load_pretrained_bilm", "load_pretrained_elmo", "load_seq2seq", "sample",
    "tagging", "tokenize", "train_bilm", "train_seq2seq",
]
