"""``ModelDirectory``: every model family saves and loads one way, ``model.save(directory)`` and
``Family.from_preset(directory)`` (the model directory of ``models.persistence``: ``model.keras``,
``vocabulary.json``, ``training.json``, written atomically)."""

from __future__ import annotations

import os
import pathlib

from elmo_keras.models.persistence import read_model_dir, save_model_dir
from elmo_keras.text.vocabulary import Vocabulary


class ModelDirectory:
    """Mixin for a ``keras.Model`` family: ``save`` writes a model directory (a path ending in ``.keras``: Keras'
    own file), ``from_preset`` reads one back, the one load verb of the package (``pretrained.presets`` for the biLM
    layers and the embedder).

    A family sets ``directory_config`` (its ``DictConfig`` class, for ``training.json``), and may set
    ``directory_vocabulary`` (the class ``vocabulary.json`` holds: ``Vocabulary``, the default, or the taggers'
    ``TaggingVocabulary``) and ``directory_compile`` (restore the optimizer state: True for a model trained further
    after loading; False, the default, for inference only).
    """

    directory_config: type
    directory_vocabulary: type = Vocabulary
    directory_compile = False

    def save(self, filepath, overwrite=True, **kwargs) -> pathlib.Path | None:
        """``path.keras`` → a Keras file; any other path → a model directory (weights + vocabulary + config).

        Raises:
            ValueError, FileExistsError: for a model directory, as ``models.persistence.save_model_dir`` (no
                vocabulary, non-finite weights, a file or a foreign directory at ``filepath``).
        """
        if str(filepath).endswith(".keras"):
            return super().save(filepath, overwrite=overwrite, **kwargs)
        return save_model_dir(self, filepath)

    @classmethod
    def from_preset(cls, directory: str | os.PathLike):
        """The model ``model.save(directory)`` wrote, with ``vocabulary``, ``config`` and ``training_summary`` set.

        Raises:
            TypeError: ``directory`` is not a str or path.
            FileNotFoundError: the directory or one of its files is missing (named).
            ValueError: a file is corrupted, or holds another model than ``cls`` (named, with how to fix it).
        """
        if not isinstance(directory, (str, os.PathLike)):
            raise TypeError(f"{cls.__name__}.from_preset takes a model directory (a str or path), received "
                            f"{type(directory).__name__} ({directory!r:.60})")
        return read_model_dir(directory, cls, cls.directory_config, vocabulary_class=cls.directory_vocabulary,
                              compile=cls.directory_compile)
