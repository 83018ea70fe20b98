"""The one load verb's resolver: ``load_preset(name_or_path)`` → the biLM layer, whatever names the model.

Every ``from_preset`` (``ElmoEmbedder``, ``Elmo``, ``BiLM``/``TransformerBiLM``) calls ``load_preset``; it takes, as
KerasHub's ``from_preset`` does, a built-in name, a URL or a local folder, and the files of the original releases:

- a **preset name** (``registry``): ``elmo_small_en``, ``elmo_medium_en``, ``elmo_original_en``,
  ``elmo_original_5.5b_en``, ``elmo_transformer_en``; the round 1–3 aliases (``small``, ``original`` …) and
  AllenNLP's file stems too. Downloaded once into the cache, verified at every load (``downloads``);
- an **http(s) URL** of an AllenNLP ``model.tar.gz`` (two files are a pair, below);
- a **model directory** of ours (``model.keras``, ``vocabulary.json``: ``model.save(directory)``, the ``train``
  command); the result carries the ``BiLanguageModel`` (softmax, vocabulary) too;
- an **AllenNLP archive**: a ``.tar.gz`` (``.tgz``, ``.tar``) or its extracted folder (``config.json`` +
  ``weights.th``), the transformer ELMo;
- an **options + weights pair** ``(options.json, weights.hdf5)``, each a path or an http(s) URL, or a folder holding
  one ``*options.json`` and one ``*weights.hdf5``.

``preset_kind`` tells which without reading a model; anything else is refused first, in one line naming what was
received and what to pass instead.
"""

from __future__ import annotations

import os
import urllib.parse
from dataclasses import dataclass, field

from elmo_keras.layers.bilm_base import BiLMBase
from elmo_keras.models.bilm.directory import load_bilm
from elmo_keras.models.directory_files import MODEL_FILE
from elmo_keras.pretrained.allennlp_archive import CONFIG_NAME, WEIGHTS_NAME
from elmo_keras.pretrained.downloads import DownloadProgress, stderr_progress
from elmo_keras.pretrained.loader import load_pretrained_bilm
from elmo_keras.pretrained.model_files import cached_copies, local_model_files
from elmo_keras.pretrained.registry import RELEASED_ARCHIVES, RemoteFile, preset_name, published_file, unknown_preset
from elmo_keras.pretrained.transformer_loader import transformer_elmo_from_archive
from elmo_keras.pretrained.urls import is_url, normal_url, shown_url

NAME, URL, MODEL_DIRECTORY, ARCHIVE, PAIR = "preset name", "URL", "model directory", "AllenNLP archive", "pair"
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar")
KINDS_HINT = ("pass a preset name (e.g. elmo_small_en), an http(s) URL of a model.tar.gz, a model directory, an "
              "AllenNLP model.tar.gz or its folder, or (options.json, weights.hdf5)")


@dataclass
class LoadedPreset:
    """What ``load_preset`` gives: ``bilm``, the built biLM layer with its weights; ``model``, the
    ``BiLanguageModel`` of a model directory (softmax and ``vocabulary``), else None; ``kind`` (``preset_kind``);
    ``files`` and ``directories`` (``{description: path}``), what was read, which outputs must never overwrite."""

    kind: str
    bilm: BiLMBase
    model: object | None = None
    files: dict[str, str] = field(default_factory=dict)
    directories: dict[str, str] = field(default_factory=dict)


def _pair_folder(path: str) -> tuple[str, str] | None:
    """A folder's one ``*options.json`` and one ``*weights.hdf5``, or None."""
    names = os.listdir(path)
    options = [n for n in names if n.endswith("options.json")]
    weights = [n for n in names if n.endswith(("weights.hdf5", "weights.h5"))]
    if len(options) == 1 and len(weights) == 1:
        return os.path.join(path, options[0]), os.path.join(path, weights[0])
    return None


def preset_kind(name_or_path) -> tuple[str, object]:
    """``(kind, what)`` for ``name_or_path``, checked without reading a model: kind is ``NAME`` (what: the preset
    name), ``URL`` (the URL in normal form), ``MODEL_DIRECTORY`` or ``ARCHIVE`` (the path) or ``PAIR`` (two paths or
    URLs).

    Raises:
        TypeError: not a str, path or (options, weights) pair.
        ValueError: an unknown name, a URL of something other than an archive, a folder or file of no known kind,
            a lone options.json or .keras file (each one line saying what to pass).
        FileNotFoundError: a path that does not exist, or a pair's local file that does not.
    """
    if isinstance(name_or_path, (tuple, list)):
        if len(name_or_path) != 2:
            raise ValueError(f"a pair is (options.json, weights.hdf5), received {len(name_or_path)} items; "
                             + KINDS_HINT)
        for argument, value in zip(("options", "weights"), name_or_path):
            if not isinstance(value, (str, os.PathLike)):
                raise TypeError(f"the pair's {argument} file must be a path or an http(s) URL, received "
                                f"{type(value).__name__} ({value!r:.60})")
        for argument, value in zip(("options", "weights"), name_or_path):
            if not is_url(value) and not os.path.isfile(value):
                raise FileNotFoundError(f"the pair's {argument} file {os.fspath(value)} does not exist; pass "
                                        "(options.json, weights.hdf5) as two existing files or http(s) URLs")
        return PAIR, tuple(name_or_path)
    if not isinstance(name_or_path, (str, os.PathLike)):
        raise TypeError(f"from_preset takes a str or path, received {type(name_or_path).__name__} "
                        f"({name_or_path!r:.60}); " + KINDS_HINT)
    if is_url(name_or_path):
        url = normal_url(name_or_path)
        if not urllib.parse.urlsplit(url).path.endswith(ARCHIVE_SUFFIXES):
            raise ValueError(f"URL {shown_url(url)} is not a model.tar.gz: one URL names an AllenNLP archive; for "
                             "the original ELMo files pass (options_url, weights_url)")
        return URL, url
    path = os.fspath(name_or_path)
    if isinstance(name_or_path, str) and "://" in path:
        raise ValueError(f"{shown_url(path)} is not an http(s) URL: download it yourself and pass its path")
    if isinstance(name_or_path, str) and os.sep not in path and (preset := preset_name(path)) is not None:
        return NAME, preset
    if os.path.isdir(path):
        if os.path.isfile(os.path.join(path, MODEL_FILE)):
            return MODEL_DIRECTORY, path
        if os.path.isfile(os.path.join(path, CONFIG_NAME)) or os.path.isfile(os.path.join(path, WEIGHTS_NAME)):
            return ARCHIVE, path  # the archive reader names the member that is missing
        if (pair := _pair_folder(path)) is not None:
            return PAIR, pair
        raise ValueError(f"folder {path} holds no model: a model directory has {MODEL_FILE}, an AllenNLP folder "
                         f"{CONFIG_NAME} and {WEIGHTS_NAME}, an original ELMo folder one *options.json and one "
                         "*weights.hdf5")
    if os.path.isfile(path):
        if path.endswith(ARCHIVE_SUFFIXES):
            return ARCHIVE, path
        if path.endswith(".json"):
            raise ValueError(f"{path} is an options file alone: pass (options.json, weights.hdf5)")
        if path.endswith(".keras"):
            raise ValueError(f"{path} is a .keras file: from_preset takes its model directory (the folder holding "
                             f"it and vocabulary.json); a lone .keras file loads with elmo_keras.load_model")
        raise ValueError(f"{path} is no model file: " + KINDS_HINT)
    if isinstance(name_or_path, str) and os.sep not in path and "." not in path.replace("5.5", ""):
        raise unknown_preset(path)
    raise FileNotFoundError(f"no such file or folder: {path}; " + KINDS_HINT)


def archive_file(url: str, name: str | None, progress: DownloadProgress | None) -> str:
    """The local copy of an archive ``url`` (the registry's size and checksum where it lists it), downloaded once."""
    return cached_copies([published_file(url) or RemoteFile(url)], name, progress)[0]


def load_preset(name_or_path, *, stateful: bool = False, include_softmax: bool = False,
                progress: DownloadProgress | None = stderr_progress) -> LoadedPreset:
    """Load the biLM ``name_or_path`` names (see the module docstring for what it may be).

    Args:
        name_or_path: a preset name or alias, an http(s) URL of a model.tar.gz, a model directory, an AllenNLP
            archive or its folder, or ``(options.json, weights.hdf5)``.
        stateful: bool, carry LSTM state across calls (an LSTM biLM only; a transformer refuses it). Defaults to
            False.
        include_softmax: bool, an AllenNLP archive's softmax tensors are read too (``bilm.softmax``). Defaults to
            False.
        progress: download progress, ``progress(file name, bytes so far, total or None)``; None for silence.
            Defaults to ``stderr_progress``.

    Returns:
        A ``LoadedPreset``.

    Raises:
        TypeError, ValueError, FileNotFoundError: as ``preset_kind``, before any download or read.
        DownloadError, OfflineError, CachedFileChangedError, OptionsError, WeightFileError, ArchiveError,
            TorchFileError: the loader's errors, each naming the file.
    """
    kind, what = preset_kind(name_or_path)
    if kind == NAME and what in RELEASED_ARCHIVES:
        kind, what, name = URL, RELEASED_ARCHIVES[what].archive.url, what
    else:
        name = what if kind == NAME else None
    if kind in (NAME, PAIR):
        local = local_model_files(*((what,) if kind == NAME else what), progress=progress)  # URLs → cached files
        bilm = load_pretrained_bilm(*local, stateful=stateful)
        files = bilm.pretrained_files
        return LoadedPreset(kind, bilm, files={"the options file": files["options_file"],
                                               "the weights file": files["weight_file"]})
    if kind == MODEL_DIRECTORY:
        model = load_bilm(what)
        bilm = model.bilm.copy(stateful=True) if stateful else model.bilm
        return LoadedPreset(kind, bilm, model=model, directories={"the model directory": what})
    path = archive_file(what, name, progress) if kind == URL else what
    loaded = transformer_elmo_from_archive(path, include_softmax=include_softmax)
    bilm = loaded.bilm.copy(stateful=True) if stateful else loaded.bilm  # the transformer refuses, in one line
    if include_softmax:
        bilm.softmax = loaded.softmax
    where = {"the archive": path}
    return LoadedPreset(kind, bilm, files=where if os.path.isfile(path) else {}, directories={} if os.path.isfile(
        path) else {"the archive folder": path})
