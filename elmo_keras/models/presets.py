"""biLM configurations (presets) and the function that builds a ``BiLanguageModel`` from one."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from elmo_keras.layers.bilm import BiLM
from elmo_keras.layers.char_cnn import CharCNN
from elmo_keras.layers.word_embedding import WordEmbedding
from elmo_keras.models.bilm_lm import BiLanguageModel

ENCODERS = ("word", "char")
PRECISIONS = ("float32", "mixed_bfloat16", "auto")


@dataclass(frozen=True)
class BiLMConfig:
    """Everything needed to build and train a biLM.

    Attributes:
        encoder: ``"word"`` (``WordEmbedding``) or ``"char"`` (``CharCNN`` over ELMo character ids).
        embedding_dim: word embedding size (word encoder) or character embedding size (char encoder).
        units: LSTM memory cells per layer and direction.
        projection_dim: LSTM output projection (None = no projection; the output is ``units`` wide).
        num_layers: LSTM layers per direction.
        cell_clip, proj_clip: LSTM clipping (None = off).
        use_skip_connections: residual connections between LSTM layers.
        dropout: dropout between LSTM layers and before the softmax, training only.
        char_filters, n_highway: the char encoder's ``[width, count]`` filters and highway layers.
        epochs, batch_size, learning_rate: training defaults.
        lowercase: lowercase words for the word vocabulary.
        training_precision: what ``train_bilm`` computes in: ``"float32"``, ``"mixed_bfloat16"`` (bfloat16
            matmuls and activations, float32 weights and loss) or ``"auto"`` (mixed_bfloat16 where the CPU has
            native bfloat16 arithmetic, see ``_backend.has_native_bfloat16``, else float32). The trained model
            is float32 either way.
    """

    encoder: str = "word"
    embedding_dim: int = 128
    units: int = 256
    projection_dim: int | None = None
    num_layers: int = 2
    cell_clip: float | None = None
    proj_clip: float | None = None
    use_skip_connections: bool = False
    dropout: float = 0.1
    char_filters: tuple = ((1, 32), (2, 32), (3, 64), (4, 128))
    n_highway: int = 1
    epochs: int = 20
    batch_size: int = 32
    learning_rate: float = 4e-3
    lowercase: bool = True
    training_precision: str = "float32"

    def __post_init__(self):
        if self.encoder not in ENCODERS:
            raise ValueError(f"encoder must be one of {ENCODERS}, received {self.encoder!r}")
        if self.training_precision not in PRECISIONS:
            raise ValueError(f"training_precision must be one of {PRECISIONS}, received {self.training_precision!r}")
        for name in ("embedding_dim", "units", "num_layers", "epochs", "batch_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, received {value!r}")
        if not self.learning_rate > 0:
            raise ValueError(f"learning_rate must be > 0, received {self.learning_rate!r}")

    @property
    def token_dim(self) -> int:
        """Width of the token representation ``x`` (= the LSTM output width, so ``[x; x]`` matches)."""
        return self.projection_dim or self.units

    def replace(self, **changes) -> "BiLMConfig":
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        data = dataclasses.asdict(self)
        data["char_filters"] = [list(pair) for pair in self.char_filters]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "BiLMConfig":
        known = {field.name for field in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown BiLMConfig fields: {sorted(unknown)}")
        data = dict(data)
        if "char_filters" in data:
            data["char_filters"] = tuple(tuple(pair) for pair in data["char_filters"])
        return cls(**data)


PRESETS = {
    # The seed notebook's sizes: word embedding 128, 2 layers, 256 hidden units per direction.
    # The embedding is projected to 256 so that layer 0 = [x; x] is as wide as the LSTM layers.
    # Trained in bfloat16 where the CPU has it natively: ~20% faster steps, the same sense separation.
    "toy": BiLMConfig(training_precision="auto"),
    # A character-level variant of the toy model (handles unseen words like the original ELMo).
    "char-toy": BiLMConfig(encoder="char", embedding_dim=16, units=256, projection_dim=128, cell_clip=3.0, proj_clip=3.0),
    # Minutes-free model for tests.
    "tiny": BiLMConfig(embedding_dim=16, units=16, epochs=3, batch_size=16, dropout=0.0, learning_rate=1e-2),
}


def get_preset(preset: str | BiLMConfig | dict) -> BiLMConfig:
    """A ``BiLMConfig`` from a preset name, a config, or a config dict."""
    if isinstance(preset, BiLMConfig):
        return preset
    if isinstance(preset, dict):
        return BiLMConfig.from_dict(preset)
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; choose one of {sorted(PRESETS)} or pass a BiLMConfig")
    return PRESETS[preset]


def build_bilm_lm(config: BiLMConfig, vocab_size: int, dtype=None) -> BiLanguageModel:
    """An untrained ``BiLanguageModel`` for ``config`` over a word vocabulary of ``vocab_size``.

    ``dtype``: the Keras dtype policy of every layer (None: the global policy, normally float32).
    """
    if config.encoder == "word":
        projection = config.token_dim if config.token_dim != config.embedding_dim else None
        encoder = WordEmbedding(
            vocab_size, config.embedding_dim, projection_dim=projection, dtype=dtype, name="token_encoder"
        )
    else:
        encoder = CharCNN(
            embedding_dim=config.embedding_dim, filters=config.char_filters, n_highway=config.n_highway,
            projection_dim=config.token_dim, dtype=dtype, name="token_encoder",
        )
    bilm = BiLM(
        encoder, units=config.units, num_layers=config.num_layers, projection_dim=config.projection_dim,
        cell_clip=config.cell_clip, proj_clip=config.proj_clip, use_skip_connections=config.use_skip_connections,
        dropout=config.dropout, dtype=dtype, name="bilm",
    )
    return BiLanguageModel(bilm, vocab_size, dropout=config.dropout, dtype=dtype, name="bi_language_model")
