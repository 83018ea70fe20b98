"""The ``config.json`` of an AllenNLP transformer-ELMo archive (``LanguageModel`` with a
``bidirectional_language_model_transformer`` contextualizer, AllenNLP at commit 2368760) as a validated configuration.

Only the fields that define the network are read (dotted paths from the top of ``config.json``)::

    model.type = "language_model", model.bidirectional = true
    model.text_field_embedder.token_embedders.<name>        one embedder, "character_encoding":
        .embedding.embedding_dim, .embedding.num_embeddings (default 262), .dropout (default 0)
        .encoder ("cnn-highway"): embedding_dim, filters, num_highway, projection_dim, activation ("relu"),
                                  projection_location ("after_highway" | "after_cnn"), do_layer_norm (false)
    model.contextualizer ("bidirectional_language_model_transformer"):
        input_dim, hidden_dim, num_layers, dropout (0.1), input_dropout (null)
    dataset_reader[.base_reader].token_indexers.<name>.type = "elmo_characters"   (checked where present)

The head count is not in the config: it is 8, fixed in AllenNLP's ``make_model`` at that commit. Every error is an
``ArchiveError`` naming the file and the field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from elmo_keras.limits import check_fits_in_memory
from elmo_keras.pretrained.options import MISSING, ConfigFields, PretrainedFileError
from elmo_keras.text.char_ids import MAX_CHARS_PER_TOKEN, NUM_CHAR_IDS

NUM_HEADS = 8  # make_model(heads=8) in bidirectional_language_model_transformer.py; not configurable there
CONTEXTUALIZER_TYPE = "bidirectional_language_model_transformer"
PROJECTION_LOCATIONS = ("after_highway", "after_cnn")
ACTIVATIONS = ("relu", "tanh")
TEXT_FIELD_EMBEDDER_OPTIONS = ("allow_unmatched_keys", "embedder_to_indexer_map", "type")  # not embedders
LOADING_COPIES = 2  # while loading: the file's arrays and the layers' variables


class ArchiveError(PretrainedFileError):
    """An AllenNLP archive that cannot be read or does not hold the transformer ELMo: an unsafe or damaged tar
    member, a missing or invalid ``config.json`` field, a missing, extra or mis-shaped tensor (each named)."""


@dataclass(frozen=True)
class CnnHighwayConfig:
    """AllenNLP's ``character_encoding`` embedder over a ``cnn-highway`` encoder (``CnnHighwayEncoder``).

    Attributes:
        embedding_dim, num_embeddings: the character embedding `(num_embeddings, embedding_dim)`.
        filters: ``((width, count), ...)``; num_highway: highway layers (≥ 0); activation: after max-pooling.
        projection_dim: the token width; projection_location: ``"after_cnn"`` (project, then the highways at
            ``projection_dim``) or ``"after_highway"`` (the highways at the filter width, then project).
        do_layer_norm: AllenNLP's LayerNorm after everything; dropout: the embedder's, after the encoder (training).
    """

    embedding_dim: int
    num_embeddings: int
    filters: tuple[tuple[int, int], ...]
    num_highway: int
    projection_dim: int
    activation: str
    projection_location: str
    do_layer_norm: bool
    dropout: float

    @property
    def num_filters(self) -> int:
        """Width of the pooled convolution features (the projection's input)."""
        return sum(count for _, count in self.filters)

    @property
    def highway_dim(self) -> int:
        """Width of the highway layers: ``projection_dim`` after a ``after_cnn`` projection, else ``num_filters``."""
        return self.projection_dim if self.projection_location == "after_cnn" else self.num_filters


@dataclass(frozen=True)
class TransformerConfig:
    """AllenNLP's ``BidirectionalLanguageModelTransformer``: ``num_layers`` pre-LN blocks per direction.

    Attributes:
        input_dim: the model width (token vectors, attention); hidden_dim: the feed-forward width.
        num_layers: blocks per direction; num_heads: ``NUM_HEADS``.
        dropout: in every block (training only); input_dropout: after the positions are added, or None.
    """

    input_dim: int
    hidden_dim: int
    num_layers: int
    dropout: float
    input_dropout: float | None
    num_heads: int = NUM_HEADS


@dataclass(frozen=True)
class TransformerElmoConfig:
    """A validated transformer-ELMo ``config.json``; ``token_name`` is the embedder's key (``token_characters``),
    part of the state-dict keys; ``source`` names the file in errors."""

    char_cnn: CnnHighwayConfig
    contextualizer: TransformerConfig
    token_name: str
    source: str = "<config>"

    @classmethod
    def from_dict(cls, data, source: str = "<config>") -> "TransformerElmoConfig":
        """Validate a parsed ``config.json`` (see the module docstring for the fields read).

        Raises:
            ArchiveError: naming ``source`` and the field that is missing or invalid, or the size field that makes
                the model too large for this machine's memory.
        """
        read = _Fields(data, source)
        read.choice("model.type", ("language_model",))
        if read.get("model.bidirectional", bool, default=False) is not True:
            raise ArchiveError(source, "model.bidirectional", "must be true: only a bidirectional LM is an ELMo")
        contextualizer_type = read.get("model.contextualizer.type", str)
        if contextualizer_type != CONTEXTUALIZER_TYPE:
            raise ArchiveError(source, "model.contextualizer.type",
                               f"must be {CONTEXTUALIZER_TYPE!r}, received {contextualizer_type!r} (an LSTM ELMo loads "
                               "from its options.json and weights.hdf5 with load_pretrained_bilm)")
        token_name, embedder = _single_embedder(read)
        encoder = f"{embedder}.encoder"
        read.choice(f"{embedder}.type", ("character_encoding",))
        read.choice(f"{encoder}.type", ("cnn-highway",))
        embedding_dim = read.positive_int(f"{embedder}.embedding.embedding_dim")
        if read.positive_int(f"{encoder}.embedding_dim") != embedding_dim:
            raise ArchiveError(source, f"{encoder}.embedding_dim",
                               f"must equal {embedder}.embedding.embedding_dim ({embedding_dim})")
        input_dim = read.positive_int("model.contextualizer.input_dim")
        if input_dim % NUM_HEADS:
            raise ArchiveError(source, "model.contextualizer.input_dim",
                               f"must be a multiple of the {NUM_HEADS} attention heads, received {input_dim}")
        projection_dim = read.positive_int(f"{encoder}.projection_dim")
        if projection_dim != input_dim:
            raise ArchiveError(source, f"{encoder}.projection_dim", f"must equal model.contextualizer.input_dim "
                                                                    f"({input_dim}), received {projection_dim}")
        char_cnn = CnnHighwayConfig(
            embedding_dim=embedding_dim,
            num_embeddings=read.get(f"{embedder}.embedding.num_embeddings", int, default=NUM_CHAR_IDS,
                                    check=lambda v: v >= NUM_CHAR_IDS, expected=f"an int >= {NUM_CHAR_IDS} (the ELMo "
                                                                                "character ids)"),
            filters=_filters(read, f"{encoder}.filters"),
            num_highway=read.get(f"{encoder}.num_highway", int, check=lambda v: v >= 0, expected="an int >= 0"),
            projection_dim=projection_dim,
            activation=read.choice(f"{encoder}.activation", ACTIVATIONS, default="relu"),
            projection_location=read.choice(f"{encoder}.projection_location", PROJECTION_LOCATIONS,
                                            default="after_highway"),
            do_layer_norm=read.get(f"{encoder}.do_layer_norm", bool, default=False),
            dropout=read.rate(f"{embedder}.dropout", default=0.0),
        )
        contextualizer = TransformerConfig(
            input_dim=input_dim,
            hidden_dim=read.positive_int("model.contextualizer.hidden_dim"),
            num_layers=read.positive_int("model.contextualizer.num_layers"),
            dropout=read.rate("model.contextualizer.dropout", default=0.1),
            input_dropout=read.rate("model.contextualizer.input_dropout", default=None) or None,
        )
        _check_indexer(read, token_name)
        config = cls(char_cnn, contextualizer, token_name, source)
        config.check_fits_in_memory()
        return config

    def size_fields(self) -> dict[str, int]:
        """The fields that set the parameter count, by their dotted names (the filters by their total count)."""
        cnn, transformer = self.char_cnn, self.contextualizer
        return {"char_cnn.embedding_dim": cnn.embedding_dim, "char_cnn.filters": cnn.num_filters,
                "char_cnn.num_highway": cnn.num_highway, "contextualizer.input_dim": transformer.input_dim,
                "contextualizer.hidden_dim": transformer.hidden_dim,
                "contextualizer.num_layers": transformer.num_layers}

    def parameter_count(self, **sizes: int) -> int:
        """Parameters of the char CNN and both stacks (no softmax), or that with some ``size_fields`` replaced (a
        replaced filter count stands for that many width-1 filters)."""
        f = {**self.size_fields(), **sizes}
        filters = ((1, f["char_cnn.filters"]),) if "char_cnn.filters" in sizes else self.char_cnn.filters
        n_filters = sum(count for _, count in filters)
        dim, hidden = f["contextualizer.input_dim"], f["contextualizer.hidden_dim"]
        highway = dim if self.char_cnn.projection_location == "after_cnn" else n_filters
        char_cnn = (self.char_cnn.num_embeddings * f["char_cnn.embedding_dim"]
                    + sum(w * f["char_cnn.embedding_dim"] * c + c for w, c in filters)
                    + f["char_cnn.num_highway"] * 2 * (highway * highway + highway) + (n_filters + 1) * dim + 2 * dim)
        block = 4 * (dim * dim + dim) + (dim * hidden + hidden) + (hidden * dim + dim) + 4 * dim
        return char_cnn + 2 * (f["contextualizer.num_layers"] * block + 2 * dim)

    def check_fits_in_memory(self) -> None:
        """Raise an ``ArchiveError`` naming the size field that makes the model too large to load here."""
        sizes = self.size_fields()
        check_fits_in_memory(self.parameter_count(), self.parameter_count, sizes, LOADING_COPIES,
                             lambda field, shortfall: ArchiveError(self.source, field, f"= {sizes[field]:,} is too "
                                                                   f"large for this machine: {shortfall}; check the "
                                                                   "value (a typo?)"))


def _single_embedder(read: "_Fields") -> tuple[str, str]:
    """``(token name, dotted path)`` of the one token embedder (AllenNLP's embedder allows one)."""
    field = "model.text_field_embedder"
    embedders = read.get(field, dict)
    if "token_embedders" in embedders:
        field, embedders = f"{field}.token_embedders", read.get(f"{field}.token_embedders", dict)
    names = [name for name in embedders if name not in TEXT_FIELD_EMBEDDER_OPTIONS]
    if len(names) != 1:
        raise ArchiveError(read.source, field, f"must hold exactly one token embedder (the character CNN), received "
                                               f"{names!r}")
    return names[0], f"{field}.{names[0]}"


def _filters(read: "_Fields", field: str) -> tuple[tuple[int, int], ...]:
    filters = read.get(field, list)
    if not filters or not all(isinstance(pair, list) and len(pair) == 2 and all(_is_positive_int(v) for v in pair)
                              for pair in filters):
        raise ArchiveError(read.source, field, f"must be a non-empty list of [width, count] positive ints, received "
                                               f"{str(filters)[:120]}")
    if max(width for width, _ in filters) > MAX_CHARS_PER_TOKEN:
        raise ArchiveError(read.source, field, f"has a width above the {MAX_CHARS_PER_TOKEN} characters of a token")
    return tuple((int(width), int(count)) for width, count in filters)


def _check_indexer(read: "_Fields", token_name: str) -> None:
    """Where the config names the token indexer, it must be ELMo's characters (the ids ``batch_to_ids`` makes)."""
    reader = "dataset_reader.base_reader" if read.get("dataset_reader.type", object, default=None) == "multiprocess" \
        else "dataset_reader"
    field = f"{reader}.token_indexers.{token_name}.type"
    if read.get(field, object, default=None) is not None:
        read.choice(field, ("elmo_characters",))


def _is_positive_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


_ABSENT = object()  # what get returns for an absent optional field


class _Fields(ConfigFields):
    """``config.json``'s fields; errors are ``ArchiveError`` s showing at most 80 characters of a value."""

    error = ArchiveError

    def shown(self, value) -> str:
        return str(value)[:80]

    def rate(self, field, default):
        """A dropout rate in ``[0, 1)``: ``default`` where the field is absent, None where it is null."""
        value = self.get(field, object, default=_ABSENT)
        if value is _ABSENT or value is None:
            return default if value is _ABSENT else None
        return self.get(field, float, check=lambda v: math.isfinite(v) and 0.0 <= v < 1.0,
                        expected="a number in [0, 1)")

    def choice(self, field, allowed, default=MISSING):
        return self.get(field, str, default=default, check=lambda v: v in allowed, expected=f"one of {allowed}")
