"""The original ELMo ``options.json`` (bilm-tf / AllenNLP layout) as a typed, validated configuration.

Only the two blocks that define the network are read; training-only keys (``n_epochs``, ``batch_size``,
``unroll_steps``, ...) are ignored::

    {"char_cnn": {"embedding": {"dim": 4}, "filters": [[1, 4], [2, 8]], "n_highway": 2,
                  "activation": "relu", "n_characters": 262, "max_characters_per_token": 50},
     "lstm": {"dim": 64, "projection_dim": 16, "n_layers": 2, "cell_clip": 3, "proj_clip": 3,
              "use_skip_connections": false}}

Every error is an ``OptionsError`` naming the file and the dotted field (``lstm.projection_dim``).
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass

from elmo_keras.limits import char_cnn_parameters, lstm_stack_parameters
from elmo_keras.pretrained.cache_layout import pretrained_directory
from elmo_keras.safe_files import is_inside
from elmo_keras.text.char_ids import MAX_CHARS_PER_TOKEN, NUM_CHAR_IDS

# bilm-tf trains with 261 character ids and asks for n_characters=262 at inference (one extra id for padding);
# both spellings describe the same 261-row ``char_embed`` tensor.
ACCEPTED_N_CHARACTERS = (NUM_CHAR_IDS - 1, NUM_CHAR_IDS)
ACTIVATIONS = ("relu", "tanh")


class PretrainedFileError(ValueError):
    """A pretrained options or weight file is not what the model needs.

    Attributes:
        path: the file.
        key: the field (``lstm.dim``) or tensor (``CNN/W_cnn_0``) at fault, or None for the whole file.

    A file in the download cache (``cache_layout``) is named as the cached copy it is, with how to get a good one
    (a body cut short, an HTML error page saved as ``options.json``): delete it and its record, then download again.
    """

    def __init__(self, path, key, problem):
        self.path = str(path)
        self.key = key
        where = f"{self.path}: " if key is None else f"{self.path}: {key!r} "
        super().__init__(where + problem + _cached_copy_hint(self.path, problem))


def _cached_copy_hint(path: str, problem: str) -> str:
    """``"; it is a downloaded copy in the cache: delete ..."`` for a file inside the download cache, else ``""``."""
    # the cache's own errors already say what to delete; "download or copy it again" does not say the record too
    if re.search(r"\b(delete|remove)\b", problem) or not is_inside(path, pretrained_directory()):
        return ""
    name = os.path.basename(path)
    return (f"; it is a downloaded copy in the cache (a body cut short or an error page?): delete it and "
            f"{name}.sha256 to download it again")


class OptionsError(PretrainedFileError):
    """``options.json`` is missing a field or has an invalid value."""


@dataclass(frozen=True)
class CharCNNOptions:
    """The ``char_cnn`` block: character embedding → convolutions → highway (→ projection to the LSTM width).

    Attributes:
        embedding_dim: character embedding width (``char_cnn.embedding.dim``).
        filters: ``((width, count), ...)`` convolutions.
        n_highway: highway layers (≥ 0).
        activation: ``"relu"`` or ``"tanh"``, after each convolution's max-pooling.
        n_characters: 261 or 262 (``ACCEPTED_N_CHARACTERS``).
        max_characters_per_token: 50 (``MAX_CHARS_PER_TOKEN``).
    """

    embedding_dim: int
    filters: tuple[tuple[int, int], ...]
    n_highway: int
    activation: str
    n_characters: int
    max_characters_per_token: int

    @property
    def n_filters(self) -> int:
        """Width of the pooled convolution features (the highway width)."""
        return sum(count for _, count in self.filters)


@dataclass(frozen=True)
class LSTMOptions:
    """The ``lstm`` block. ``projection_dim == dim`` means "no projection" (bilm-tf's rule).

    Attributes:
        dim: memory cells per layer and direction.
        projection_dim: each direction's output width (≤ ``dim``).
        n_layers: layers per direction.
        cell_clip, proj_clip: clipping values, or None for none (``proj_clip`` is None without a projection).
        use_skip_connections: residual connections between layers.
    """

    dim: int
    projection_dim: int
    n_layers: int
    cell_clip: float | None
    proj_clip: float | None
    use_skip_connections: bool

    @property
    def has_projection(self) -> bool:
        """Whether the cells project their output (``projection_dim < dim``)."""
        return self.projection_dim < self.dim

    @property
    def output_dim(self) -> int:
        """Width of each direction's output (and of the token representation ``x``)."""
        return self.projection_dim


@dataclass(frozen=True)
class ElmoOptions:
    """A validated ``options.json``; ``source`` names the file in later error messages."""

    char_cnn: CharCNNOptions
    lstm: LSTMOptions
    source: str = "<options>"

    @classmethod
    def load(cls, path: str | os.PathLike) -> "ElmoOptions":
        """Read and validate ``path``.

        Raises:
            FileNotFoundError: no such file.
            OptionsError: not JSON (or JSON nested too deeply to parse), a missing field or an invalid value
                (named).
        """
        path = os.fspath(path)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"ELMo options file not found: {path}")
        try:
            with open(path, encoding="utf-8") as handle:
                data = json.load(handle)
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise OptionsError(path, None, f"is not a JSON options file: {error}") from None
        except RecursionError:  # e.g. '[' * 100000: Python's parser recurses once per level
            raise OptionsError(path, None, "is not an ELMo options file: its JSON is nested too deeply to read "
                                           "(an options file is two levels deep)") from None
        return cls.from_dict(data, source=path)

    @classmethod
    def from_dict(cls, data: dict, source: str = "<options>") -> "ElmoOptions":
        """Validate a parsed options dict (see the module docstring for the layout).

        Raises:
            OptionsError: ``data`` is not a dict, a field is missing or has an invalid value (named).
        """
        reader = _FieldReader(data, source)
        filters = reader.get("char_cnn.filters", list)
        if not filters or not all(
            isinstance(pair, (list, tuple)) and len(pair) == 2 and all(_is_positive_int(v) for v in pair)
            for pair in filters
        ):
            raise OptionsError(
                source, "char_cnn.filters",
                f"must be a non-empty list of [width, count] positive ints, received {filters!r}"
            )
        char_cnn = CharCNNOptions(
            embedding_dim=reader.positive_int("char_cnn.embedding.dim"),
            filters=tuple((int(width), int(count)) for width, count in filters),
            n_highway=reader.get("char_cnn.n_highway", int, check=lambda v: v >= 0, expected="an int >= 0"),
            activation=reader.get(
                "char_cnn.activation", str, check=lambda v: v in ACTIVATIONS, expected=f"one of {ACTIVATIONS}"
            ),
            n_characters=reader.get(
                "char_cnn.n_characters", int, check=lambda v: v in ACCEPTED_N_CHARACTERS,
                expected=f"one of {ACCEPTED_N_CHARACTERS}",
            ),
            max_characters_per_token=reader.get(
                "char_cnn.max_characters_per_token", int, check=lambda v: v == MAX_CHARS_PER_TOKEN,
                expected=f"{MAX_CHARS_PER_TOKEN} (the width of elmo_keras character ids)",
            ),
        )
        dim = reader.positive_int("lstm.dim")
        projection_dim = reader.get(
            "lstm.projection_dim", int, check=lambda v: 0 < v <= dim, expected=f"a positive int <= lstm.dim ({dim})"
        )
        lstm = LSTMOptions(
            dim=dim,
            projection_dim=projection_dim,
            n_layers=reader.positive_int("lstm.n_layers"),
            cell_clip=reader.optional_clip("lstm.cell_clip"),
            proj_clip=reader.optional_clip("lstm.proj_clip") if projection_dim < dim else None,  # TF ignores it then
            use_skip_connections=reader.get("lstm.use_skip_connections", bool, default=False),
        )
        return cls(char_cnn=char_cnn, lstm=lstm, source=source)

    def size_fields(self) -> dict[str, int]:
        """The fields that set the number of parameters, by their dotted names (the filters by their total count)."""
        return {
            "char_cnn.embedding.dim": self.char_cnn.embedding_dim,
            "char_cnn.filters": self.char_cnn.n_filters,
            "char_cnn.n_highway": self.char_cnn.n_highway,
            "lstm.dim": self.lstm.dim,
            "lstm.projection_dim": self.lstm.projection_dim,
            "lstm.n_layers": self.lstm.n_layers,
        }

    def parameter_count(self, **sizes: int) -> int:
        """The biLM's number of parameters (``bilm_from_options``), or that with some ``size_fields`` replaced
        (a replaced ``char_cnn.filters`` count stands for that many filters of width 1)."""
        fields = {**self.size_fields(), **sizes}
        filters = ((1, sizes["char_cnn.filters"]),) if "char_cnn.filters" in sizes else self.char_cnn.filters
        projection_dim, units = fields["lstm.projection_dim"], fields["lstm.dim"]
        char_cnn = char_cnn_parameters(NUM_CHAR_IDS, fields["char_cnn.embedding.dim"], filters,
                                       fields["char_cnn.n_highway"], projection_dim)
        projection = projection_dim if projection_dim < units else None
        return char_cnn + lstm_stack_parameters(projection_dim, units, projection, fields["lstm.n_layers"])

    def to_dict(self) -> dict:
        """The options in the original JSON layout (``options.json`` round trip)."""
        return {
            "char_cnn": {
                "embedding": {"dim": self.char_cnn.embedding_dim},
                "filters": [list(pair) for pair in self.char_cnn.filters],
                "n_highway": self.char_cnn.n_highway,
                "activation": self.char_cnn.activation,
                "n_characters": self.char_cnn.n_characters,
                "max_characters_per_token": self.char_cnn.max_characters_per_token,
            },
            "lstm": {
                "dim": self.lstm.dim,
                "projection_dim": self.lstm.projection_dim,
                "n_layers": self.lstm.n_layers,
                "cell_clip": self.lstm.cell_clip,
                "proj_clip": self.lstm.proj_clip,
                "use_skip_connections": self.lstm.use_skip_connections,
            },
        }


def _is_positive_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


MISSING = object()  # no default: the field is required


class ConfigFields:
    """Reads dotted fields (``lstm.dim``) of a JSON configuration; every error is an ``error`` naming the file and the
    field. ``options.json`` reads through ``_FieldReader``, AllenNLP's ``config.json`` through its own subclass
    (``allennlp_config``).

    A whole float where an int is asked for is that int; an int where a float is asked for is that float; a bool is
    never a number.
    """

    error = PretrainedFileError

    def __init__(self, data, source):
        if not isinstance(data, dict):
            raise self.error(source, None, f"must hold a JSON object, received {type(data).__name__}")
        self.data = data
        self.source = source

    def shown(self, value) -> str:
        """How a refused value appears in the message."""
        return repr(value)

    def get(self, field, kind, default=MISSING, check=None, expected=None):
        value = self.data
        for part in field.split("."):
            if not isinstance(value, dict) or part not in value:
                if default is not MISSING:
                    return default
                raise self.error(self.source, field, f"is missing (expected {expected or kind.__name__})")
            value = value[part]
        if kind is int and isinstance(value, float) and value.is_integer():
            value = int(value)
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        valid_type = isinstance(value, kind) and not (kind in (int, float) and isinstance(value, bool))
        if not valid_type or (check is not None and not check(value)):
            raise self.error(self.source, field, f"must be {expected or kind.__name__}, received {self.shown(value)}")
        return value

    def positive_int(self, field):
        return self.get(field, int, check=lambda v: v > 0, expected="a positive int")


class _FieldReader(ConfigFields):
    """``options.json``'s fields; errors are ``OptionsError`` s."""

    error = OptionsError

    def optional_clip(self, field):
        value = self.get(field, object, default=None)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise OptionsError(self.source, field, f"must be a finite positive number or null (no clipping), "
                                                   f"received {value!r}")
        return float(value)
