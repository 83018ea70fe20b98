"""The released ELMo models by preset name: AllenNLP's published ``options.json`` + ``weights.hdf5`` pairs and its
transformer ELMo archive.

Preset names say what a model is, KerasHub style: ``elmo_small_en``, ``elmo_medium_en``, ``elmo_original_en``,
``elmo_original_5.5b_en`` (``RELEASED_MODELS``: the two files' URLs) and ``elmo_transformer_en``
(``RELEASED_ARCHIVES``: one ``model.tar.gz``). The short names of rounds 1–3 (``"small"``, ``"medium"``,
``"original"``, ``"original-5.5B"``) stay as aliases (``ALIASES``), because scripts, notebooks and the ``embed
--model`` command published them; so do AllenNLP's file stems. ``preset_name`` maps any of them to the preset name.

``RELEASED_MODELS`` gives the two files' URLs and, where known, their sizes in bytes. A size not published anywhere
we could find is None (the transformer archive's too): the download then trusts the server's ``Content-Length``, and
the file's SHA-256 recorded at the first download guards every later load (``pretrained.downloads``). AllenNLP
publishes no checksums, so ``RemoteFile.sha256`` is None for all; a registry entry with one has every download and
every load checked against it.

Pure data and look-ups: nothing here touches the network or the disk.
"""

from __future__ import annotations

from dataclasses import dataclass

ALLENNLP_ELMO_URL = "https://s3-us-west-2.amazonaws.com/allennlp/models/elmo"


@dataclass(frozen=True)
class RemoteFile:
    """One published file.

    Attributes:
        url: str, its ``http(s)://`` address.
        size: int, its length in bytes, or None where unknown (the download checks ``Content-Length`` instead).
        sha256: str, the publisher's SHA-256 (hex), or None where none is published.
    """

    url: str
    size: int | None = None
    sha256: str | None = None


@dataclass(frozen=True)
class ReleasedModel:
    """A released ELMo: its options and weights, and what it is.

    Attributes:
        name: str, the preset name (``"elmo_small_en"``).
        stem: str, the name of AllenNLP's files without ``_options.json`` / ``_weights.hdf5``
            (``"elmo_2x1024_128_2048cnn_1xhighway"``); accepted as a name too.
        description: str, parameters, LSTM sizes, highway layers and training data (AllenNLP's table).
        output_dim: int, the width of every layer's vectors, ``2 * lstm.projection_dim``.
        options, weights: the two ``RemoteFile`` s.
    """

    name: str
    stem: str
    description: str
    output_dim: int
    options: RemoteFile
    weights: RemoteFile

    @property
    def files(self) -> tuple[RemoteFile, RemoteFile]:
        """``(options, weights)``."""
        return self.options, self.weights


def allennlp_model(name: str, folder: str, description: str, output_dim: int, options_size: int | None = None,
                   weights_size: int | None = None) -> ReleasedModel:
    """The entry of a model in AllenNLP's ELMo folder, ``ALLENNLP_ELMO_URL/<folder>/elmo_<folder>_{options.json,
    weights.hdf5}``."""
    stem = f"elmo_{folder}"
    base = f"{ALLENNLP_ELMO_URL}/{folder}/{stem}"
    return ReleasedModel(name, stem, description, output_dim, RemoteFile(base + "_options.json", options_size),
                         RemoteFile(base + "_weights.hdf5", weights_size))


ALLENNLP_TRANSFORMER_ELMO_URL = "https://allennlp.s3.amazonaws.com/models/transformer-elmo-2019.01.10.tar.gz"


@dataclass(frozen=True)
class ReleasedArchive:
    """A released AllenNLP ``model.tar.gz`` (``config.json`` + ``weights.th``): the transformer ELMo.

    Attributes:
        name: str, the preset name (``"elmo_transformer_en"``).
        description: str, what the model is.
        output_dim: int, the width of every layer's vectors.
        archive: the ``RemoteFile`` (its size is None: AllenNLP publishes none; the first download records it).
    """

    name: str
    description: str
    output_dim: int
    archive: RemoteFile


# Sizes: the original's two files as AllenNLP's own download logs report them (336 and 374,434,792 bytes); the
# others' sizes are not published, so the first download records them (with the SHA-256).
RELEASED_MODELS: dict[str, ReleasedModel] = {model.name: model for model in (
    allennlp_model("elmo_small_en", "2x1024_128_2048cnn_1xhighway",
                   "13.6M parameters, LSTM 1024 cells → 128, 1 highway layer; 1 Billion Word Benchmark", 256),
    allennlp_model("elmo_medium_en", "2x2048_256_2048cnn_1xhighway",
                   "28.0M parameters, LSTM 2048 cells → 256, 1 highway layer; 1 Billion Word Benchmark", 512),
    allennlp_model("elmo_original_en", "2x4096_512_2048cnn_2xhighway",
                   "93.6M parameters, LSTM 4096 cells → 512, 2 highway layers; 1 Billion Word Benchmark",
                   1024, options_size=336, weights_size=374_434_792),
    allennlp_model("elmo_original_5.5b_en", "2x4096_512_2048cnn_2xhighway_5.5B",
                   "93.6M parameters, as the original; trained on 5.5B tokens (Wikipedia and WMT 2008-2012 news)",
                   1024),
)}


RELEASED_ARCHIVES: dict[str, ReleasedArchive] = {archive.name: archive for archive in (
    ReleasedArchive("elmo_transformer_en",
                    "AllenNLP's transformer ELMo (Peters et al. 2018b): char CNN, 6 pre-LN transformer layers per "
                    "direction, width 512, ~56M parameters without the softmax; 1 Billion Word Benchmark", 1024,
                    RemoteFile(ALLENNLP_TRANSFORMER_ELMO_URL)),
)}

# The names of rounds 1–3, kept as aliases of the preset names (published in scripts, notebooks and the CLI).
ALIASES: dict[str, str] = {"small": "elmo_small_en", "medium": "elmo_medium_en", "original": "elmo_original_en",
                           "original-5.5B": "elmo_original_5.5b_en"}


def preset_names() -> list[str]:
    """Every built-in preset name: the option pairs', then the archives'."""
    return [*RELEASED_MODELS, *RELEASED_ARCHIVES]


def preset_name(name: str) -> str | None:
    """The preset name ``name`` means (itself, an alias of ``ALIASES`` or an AllenNLP file stem; case-insensitive),
    or None when it names no released model."""
    wanted = name.strip().lower()
    for alias, preset in ALIASES.items():
        if wanted == alias.lower():
            return preset
    for model in RELEASED_MODELS.values():
        if wanted in (model.name.lower(), model.stem.lower()):
            return model.name
    return next((archive for archive in RELEASED_ARCHIVES if archive.lower() == wanted), None)


def unknown_preset(name: str) -> ValueError:
    """The one-line error for a name that is no preset: it lists the names and says how to load other files."""
    return ValueError(f"{name!r} is not a released ELMo preset; the names are {', '.join(preset_names())} (aliases: "
                      f"{', '.join(ALIASES)}, or AllenNLP's file stems, e.g. elmo_2x1024_128_2048cnn_1xhighway); for "
                      "other files pass a model directory, an AllenNLP model.tar.gz (or its folder), an http(s) URL, "
                      "or (options.json, weights.hdf5)")


def released_preset(name: str) -> ReleasedModel | ReleasedArchive:
    """The released model or archive called ``name`` (a preset name, an alias or a file stem; case-insensitive).

    Raises:
        TypeError: ``name`` is not a str.
        ValueError: no such preset (``unknown_preset``).
    """
    if not isinstance(name, str):
        raise TypeError(f"a released model's name must be a str, received {type(name).__name__} ({name!r:.60})")
    preset = preset_name(name)
    if preset is None:
        raise unknown_preset(name)
    return RELEASED_MODELS.get(preset) or RELEASED_ARCHIVES[preset]


def released_model(name: str) -> ReleasedModel:
    """The released options + weights pair called ``name``: a key of ``RELEASED_MODELS``, an alias (``"small"``) or a
    model's ``stem`` (case-insensitive).

    Raises:
        TypeError: ``name`` is not a str.
        ValueError: no such model (the message lists the names, and says how to load other files), or ``name`` is a
            released archive (``elmo_transformer_en``: load it with ``from_preset``).
    """
    model = released_preset(name)
    if isinstance(model, ReleasedArchive):
        raise ValueError(f"{model.name!r} is an AllenNLP archive, not an options.json + weights.hdf5 pair; load it "
                         f"with ElmoEmbedder.from_preset({model.name!r}) or load_preset({model.name!r})")
    return model


def published_file(url: str) -> RemoteFile | None:
    """The registry's ``RemoteFile`` for ``url`` (its known size and checksum), or None for any other URL."""
    remotes = [*(remote for model in RELEASED_MODELS.values() for remote in model.files),
               *(archive.archive for archive in RELEASED_ARCHIVES.values())]
    return next((remote for remote in remotes if remote.url == url), None)
