"""The released ELMo models by name: AllenNLP's published ``options.json`` + ``weights.hdf5`` pairs.

``RELEASED_MODELS`` maps a short name (``"small"``, ``"medium"``, ``"original"``, ``"original-5.5B"``) to the two
files' URLs and, where known, their sizes in bytes. A size not published anywhere we could find is None: the
download then trusts the server's ``Content-Length``, and the file's SHA-256 recorded at the first download guards
every later load (``pretrained.downloads``). AllenNLP publishes no checksums, so ``RemoteFile.sha256`` is None for
all four; a registry entry with one has every download and every load checked against it.

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
        name: str, the short name (``"small"``).
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


# Sizes: the original's two files as AllenNLP's own download logs report them (336 and 374,434,792 bytes); the
# others' sizes are not published, so the first download records them (with the SHA-256).
RELEASED_MODELS: dict[str, ReleasedModel] = {model.name: model for model in (
    allennlp_model("small", "2x1024_128_2048cnn_1xhighway",
                   "13.6M parameters, LSTM 1024 cells → 128, 1 highway layer; 1 Billion Word Benchmark", 256),
    allennlp_model("medium", "2x2048_256_2048cnn_1xhighway",
                   "28.0M parameters, LSTM 2048 cells → 256, 1 highway layer; 1 Billion Word Benchmark", 512),
    allennlp_model("original", "2x4096_512_2048cnn_2xhighway",
                   "93.6M parameters, LSTM 4096 cells → 512, 2 highway layers; 1 Billion Word Benchmark",
                   1024, options_size=336, weights_size=374_434_792),
    allennlp_model("original-5.5B", "2x4096_512_2048cnn_2xhighway_5.5B",
                   "93.6M parameters, as the original; trained on 5.5B tokens (Wikipedia and WMT 2008-2012 news)",
                   1024),
)}


def released_model(name: str) -> ReleasedModel:
    """The released model called ``name``: a key of ``RELEASED_MODELS`` or a model's ``stem`` (case-insensitive).

    Raises:
        TypeError: ``name`` is not a str.
        ValueError: no such model (the message lists the names, and says how to load other files).
    """
    if not isinstance(name, str):
        raise TypeError(f"a released model's name must be a str, received {type(name).__name__} ({name!r:.60})")
    wanted = name.strip().lower()
    for model in RELEASED_MODELS.values():
        if wanted in (model.name.lower(), model.stem.lower()):
            return model
    raise ValueError(f"{name!r} is not a released ELMo model; the names are {', '.join(RELEASED_MODELS)} (or "
                     "AllenNLP's file stems, e.g. elmo_2x1024_128_2048cnn_1xhighway); for other files pass the "
                     "options and weights as two paths or http(s) URLs")


def published_file(url: str) -> RemoteFile | None:
    """The registry's ``RemoteFile`` for ``url`` (its known size and checksum), or None for any other URL."""
    for model in RELEASED_MODELS.values():
        for remote in model.files:
            if remote.url == url:
                return remote
    return None
