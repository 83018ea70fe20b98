"""biLM configurations and the named training sizes (``SIZES``: ``"toy"``, ``"char-toy"``, ``"tiny"``, …);
``models.bilm.language_model.build_bilm_lm`` builds a ``BiLanguageModel`` from one.

"Size" is the word for these training configurations; "preset" means a released or saved model to load
(``from_preset``, ``pretrained.presets``). ``PRESETS``, ``LARGE_PRESETS`` and ``get_preset`` are aliases of
``SIZES``, ``LARGE_SIZES`` and ``get_size``, kept because rounds 1–3 published them.

No Keras here: the explorer lists and describes saved models from their configurations before loading any."""

from __future__ import annotations

from dataclasses import dataclass

from elmo_keras import limits
from elmo_keras.argument_checks import check_finite_positive, check_int, check_rate
from elmo_keras.config_dicts import DictConfig
from elmo_keras.limits import (
    MAX_POSITIONS,
    char_cnn_parameters,
    check_batch_size,
    lstm_stack_parameters,
    transformer_stack_parameters,
)
from elmo_keras.text.batching import TOKEN_INPUTS
from elmo_keras.text.char_ids import NUM_CHAR_IDS
from elmo_keras.text.sentences import DEFAULT_MAX_SENTENCE_TOKENS

TRAINING_COPIES = 4  # arrays of the model's size while training with Adam: weights, gradients, two moments
PRECISIONS = ("float32", "mixed_bfloat16", "auto")
OPTIMIZERS = ("adam", "lazy_adam", "adagrad")  # models.optimizer.make_optimizer
CONTEXTUALIZERS = ("lstm", "transformer")  # layers.bilm.BiLM, layers.transformer_bilm.TransformerBiLM
TRANSFORMER_FIELDS = ("contextualizer", "hidden_dim", "num_heads")  # left out of an LSTM config's dict
LSTM_ONLY_FIELDS = ("projection_dim", "cell_clip", "proj_clip", "use_skip_connections")


@dataclass(frozen=True)
class BiLMConfig(DictConfig):
    """Everything needed to build and train a biLM.

    Attributes:
        token_input: what a token enters the model as: ``"word"`` (a vocabulary id; the token encoder is a
            ``WordEmbedding``) or ``"char"`` (ELMo character ids; a ``CharCNN``).
        embedding_dim: word embedding size (``"word"``) or character embedding size (``"char"``).
        contextualizer: ``"lstm"`` (a ``BiLM``, the default) or ``"transformer"`` (a ``TransformerBiLM``: pre-LN
            blocks with masked self-attention, Peters et al. 2018b). An LSTM config's dict (``to_dict``, the saved
            ``training.json``) leaves out ``contextualizer``, ``hidden_dim`` and ``num_heads``.
        units: LSTM memory cells per layer and direction; for the transformer, its width per direction (the token
            vectors' and every block's, a multiple of ``num_heads``).
        projection_dim: LSTM output projection (None = no projection; the output is ``units`` wide). LSTM only.
        num_layers: LSTM layers or transformer blocks per direction.
        cell_clip, proj_clip: LSTM clipping (None = off). LSTM only.
        use_skip_connections: residual connections between LSTM layers. LSTM only.
        hidden_dim: the transformer's feed-forward width (AllenNLP's released model: 2048 for width 512); required
            with ``contextualizer="transformer"``, None for the LSTM.
        num_heads: the transformer's attention heads (AllenNLP's: 8); required with ``contextualizer="transformer"``,
            None for the LSTM.
        dropout: dropout between LSTM layers (inside every transformer block) and before the softmax, training
            only.
        char_filters, n_highway: the ``CharCNN``'s ``[width, count]`` filters and highway layers.
        epochs, batch_size, learning_rate: training defaults.
        lowercase: lowercase words for the word vocabulary.
        training_precision: what ``train_bilm`` computes in: ``"float32"``, ``"mixed_bfloat16"`` (bfloat16
            matmuls and activations, float32 weights and loss) or ``"auto"`` (mixed_bfloat16 only where a
            measurement on this machine shows it at least 1.1x faster, see ``models.bilm.precision``; else float32).
            The trained model is float32 either way.
        n_negative_samples: train with a sampled softmax over this many log-uniform negatives per direction and
            step (``models.bilm.sampled_softmax``; bilm-tf used 8192), or None for the full softmax. Evaluation
            perplexities always use the full softmax.
        max_sentence_tokens: tokens per training sentence: a longer one (in the corpus or the held-out sentences)
            is split into consecutive pieces of at most this many tokens, each trained as a sentence
            (``text.sentences.sentence_windows``; a warning says how many), so a batch never exceeds
            ``batch_size × (max_sentence_tokens + 2)`` steps, whatever one line of the corpus holds.
        optimizer: what ``train_bilm`` updates the weights with (``models.optimizer.make_optimizer``): ``"adam"``
            (``DenseGradientAdam``: every weight and both Adam moments move every step), ``"lazy_adam"`` (Adam on
            the touched rows only: the word embedding's rows of the batch's words and, with ``n_negative_samples``,
            the softmax columns of the targets and candidates; ``models.sparse_optimizers``) or ``"adagrad"``
            (bilm-tf's Adagrad, touched rows only; bilm-tf's learning rate was 0.2). Clipping is the same for all.

    Raises:
        ValueError: a field of the wrong type or out of range (named, with the value received).
    """

    token_input: str = "word"
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
    n_negative_samples: int | None = None
    max_sentence_tokens: int = DEFAULT_MAX_SENTENCE_TOKENS
    optimizer: str = "adam"
    contextualizer: str = "lstm"
    hidden_dim: int | None = None
    num_heads: int | None = None

    def __post_init__(self):
        if self.token_input not in TOKEN_INPUTS:
            raise ValueError(f"token_input must be one of {TOKEN_INPUTS}, received {self.token_input!r}")
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {OPTIMIZERS}, received {self.optimizer!r}")
        if self.training_precision not in PRECISIONS:
            raise ValueError(f"training_precision must be one of {PRECISIONS}, received {self.training_precision!r}")
        for name in ("embedding_dim", "units", "num_layers", "epochs"):
            check_int(getattr(self, name), name)
        check_int(self.projection_dim, "projection_dim", allow_none=True)
        check_batch_size(self.batch_size)
        check_finite_positive(self.learning_rate, "learning_rate")
        for name in ("cell_clip", "proj_clip"):
            if getattr(self, name) is not None:
                check_finite_positive(getattr(self, name), f"{name} (None for no clipping)")
        check_rate(self.dropout)
        check_int(self.n_negative_samples, "n_negative_samples", allow_none=True)
        check_int(self.max_sentence_tokens, "max_sentence_tokens")
        self._check_contextualizer()

    def _check_contextualizer(self) -> None:
        """The contextualizer's fields: the transformer's set (``units`` a multiple of ``num_heads``) and the LSTM's
        left at their defaults for it, and the other way round."""
        if self.contextualizer not in CONTEXTUALIZERS:
            raise ValueError(f"contextualizer must be one of {CONTEXTUALIZERS}, received {self.contextualizer!r}")
        if self.contextualizer == "lstm":
            for name in ("hidden_dim", "num_heads"):
                if getattr(self, name) is not None:
                    raise ValueError(f"{name} is for contextualizer='transformer', received {name}="
                                     f"{getattr(self, name)!r} with the LSTM; leave it None or set the contextualizer")
            return
        defaults = BiLMConfig.__dataclass_fields__
        for name in LSTM_ONLY_FIELDS:
            if getattr(self, name) != defaults[name].default:
                raise ValueError(f"{name} is for the LSTM contextualizer, received {name}={getattr(self, name)!r} "
                                 f"with contextualizer='transformer'; leave it at {defaults[name].default!r}")
        for name in ("hidden_dim", "num_heads"):
            if getattr(self, name) is None:
                raise ValueError(f"{name} is required with contextualizer='transformer' (the feed-forward width and "
                                 "the attention heads, e.g. hidden_dim=4 * units, num_heads=8)")
            check_int(getattr(self, name), name)
        if self.units % self.num_heads:
            raise ValueError(f"units must be a multiple of num_heads for the transformer (each head reads units / "
                             f"num_heads dimensions), received units={self.units!r}, num_heads={self.num_heads!r}")
        if self.max_sentence_tokens + 2 > MAX_POSITIONS:
            raise ValueError(f"max_sentence_tokens must be at most {MAX_POSITIONS - 2} for the transformer (its "
                             f"{MAX_POSITIONS} positions hold <S> and </S> too), received {self.max_sentence_tokens!r}")

    @property
    def token_dim(self) -> int:
        """Width of the token representation ``x`` (= the LSTM output width, so ``[x; x]`` matches)."""
        return self.projection_dim or self.units

    def size_fields(self, vocab_size: int) -> dict[str, int]:
        """The fields that set the number of parameters (with the vocabulary size, as ``"vocabulary"``)."""
        fields = {"vocabulary": vocab_size, "embedding_dim": self.embedding_dim, "units": self.units,
                  "num_layers": self.num_layers}
        if self.projection_dim is not None:
            fields["projection_dim"] = self.projection_dim
        if self.contextualizer == "transformer":
            fields["hidden_dim"] = self.hidden_dim
        return fields

    def parameter_count(self, vocab_size: int, **sizes: int) -> int:
        """Parameters of ``build_bilm_lm(self, vocab_size)``, or of that model with some ``size_fields`` replaced."""
        fields = {**self.size_fields(vocab_size), **sizes}
        vocabulary, embedding_dim, units = fields["vocabulary"], fields["embedding_dim"], fields["units"]
        projection = fields.get("projection_dim")
        token_dim = projection or units
        if self.token_input == "word":
            projection_layer = embedding_dim * token_dim + token_dim if embedding_dim != token_dim else 0
            token_encoder = vocabulary * embedding_dim + projection_layer
        else:
            token_encoder = char_cnn_parameters(NUM_CHAR_IDS, embedding_dim, self.char_filters, self.n_highway,
                                                token_dim)
        if self.contextualizer == "transformer":
            contextualizer = transformer_stack_parameters(token_dim, fields["hidden_dim"], fields["num_layers"])
        else:
            contextualizer = lstm_stack_parameters(token_dim, units, projection, fields["num_layers"])
        return token_encoder + contextualizer + vocabulary * token_dim + vocabulary  # + the softmax of both directions

    def to_dict(self) -> dict:
        """As ``DictConfig.to_dict``, with ``char_filters`` as lists (JSON has no tuples); an LSTM config without
        the transformer's fields (``TRANSFORMER_FIELDS``), as it was saved before there was a choice."""
        data = super().to_dict()
        data["char_filters"] = [list(pair) for pair in self.char_filters]
        if self.contextualizer == "lstm":
            for name in TRANSFORMER_FIELDS:
                del data[name]
        return data

    @classmethod
    def _from_saved(cls, data: dict) -> dict:
        if "encoder" in data and "token_input" not in data:  # a training.json naming the field "encoder" still loads
            data["token_input"] = data.pop("encoder")
        if "char_filters" in data:
            data["char_filters"] = tuple(tuple(pair) for pair in data["char_filters"])
        return data


SIZES = {
    # A word-level PyTorch biLM's classic sizes: word embedding 128, 2 layers, 256 hidden units per direction.
    # The embedding is projected to 256 so that layer 0 = [x; x] is as wide as the LSTM layers.
    # "auto": mixed bfloat16 only where it measures faster on this machine. The senses split either way (seed 0,
    # held-out top-layer separation of bank/play/right: 0.92/0.92/0.96 in float32, 0.92/0.92/0.88 in bfloat16).
    "toy": BiLMConfig(training_precision="auto"),
    # A character-level variant of the toy model (handles unseen words like the original ELMo).
    "char-toy": BiLMConfig(token_input="char", embedding_dim=16, units=256, projection_dim=128, cell_clip=3.0,
                           proj_clip=3.0),
    # The smallest useful model, for tests.
    "tiny": BiLMConfig(embedding_dim=16, units=16, epochs=3, batch_size=16, dropout=0.0, learning_rate=1e-2),
    # The transformer ELMo's toy size (word level): 2 pre-LN blocks of width 32 per direction, 4 heads, feed-forward
    # 128; trains on the polysemy corpus in seconds.
    "transformer-toy": BiLMConfig(contextualizer="transformer", embedding_dim=32, units=32, hidden_dim=128,
                                  num_heads=4, num_layers=2, dropout=0.1, epochs=10, batch_size=16,
                                  learning_rate=4e-3),
    # Character-level biLMs sized for real English: the shipped ``treebank-lstm`` and ``treebank-transformer`` are
    # these, trained on the 12,544 training sentences of UD English EWT (``data.treebank``; min_count 2 for the
    # predicted words) by ``tools/build_shipped_models.py --treebank-only`` in about 12 minutes each on 2 CPU cores.
    # Characters keep their case (the capital of a proper noun reaches the probes); the predicted words are lowercased.
    "treebank-lstm": BiLMConfig(token_input="char", embedding_dim=16, units=256, projection_dim=128, num_layers=2,
                                cell_clip=3.0, proj_clip=3.0, use_skip_connections=True, dropout=0.1, epochs=5,
                                batch_size=32, learning_rate=2e-3),
    "treebank-transformer": BiLMConfig(token_input="char", contextualizer="transformer", embedding_dim=16, units=128,
                                       hidden_dim=512, num_heads=4, num_layers=4, dropout=0.1, epochs=4,
                                       batch_size=32, learning_rate=1e-3),
}

# Sizes too large to train on a laptop, for the command line and notebooks only (the explorer offers ``SIZES``).
LARGE_SIZES = {
    # bilm-tf's published settings for the original ELMo (its README and bin/train_elmo.py): character CNN with
    # 2,048 filters, 2 highway layers, 2 LSTM layers of 4,096 cells projected to 512, clipping at 3, residual
    # connections, dropout 0.1, 8,192 sampled negatives, 10 epochs, 128 sentences per device (the batch here is
    # global: pass --batch-size 128 × devices). Differences: Adam at 1e-3 instead of Adagrad at 0.2, and whole
    # sentences instead of 20-token windows of a continuous stream; the vocabulary comes from the corpus (bilm-tf:
    # 793,471 words).
    "bilm-tf": BiLMConfig(
        token_input="char", embedding_dim=16, char_filters=((1, 32), (2, 32), (3, 64), (4, 128), (5, 256), (6, 512),
                                                            (7, 1024)),
        n_highway=2, units=4096, projection_dim=512, num_layers=2, cell_clip=3.0, proj_clip=3.0,
        use_skip_connections=True, dropout=0.1, n_negative_samples=8192, epochs=10, batch_size=128,
        learning_rate=1e-3, lowercase=False,
    ),
}


PRESETS, LARGE_PRESETS = SIZES, LARGE_SIZES  # the names of rounds 1–3, kept as aliases


def get_size(size: str | BiLMConfig | dict) -> BiLMConfig:
    """A ``BiLMConfig`` from a training size's name (a key of ``SIZES`` or ``LARGE_SIZES``), a config (returned as
    is), or a config dict.

    Raises:
        ValueError: an unknown size, or a dict with unknown fields or bad values.
    """
    if isinstance(size, BiLMConfig):
        return size
    if isinstance(size, dict):
        return BiLMConfig.from_dict(size)
    if size in LARGE_SIZES:
        return LARGE_SIZES[size]
    if size not in SIZES:
        raise ValueError(f"unknown size {size!r}; choose one of {sorted(SIZES) + sorted(LARGE_SIZES)} or pass "
                         "a BiLMConfig")
    return SIZES[size]


def get_preset(preset: str | BiLMConfig | dict) -> BiLMConfig:
    """Alias of ``get_size``, kept because rounds 1–3 published it."""
    return get_size(preset)


def check_fits_in_memory(config: BiLMConfig, vocab_size: int) -> None:
    """Refuse a config whose model cannot be trained in this machine's available memory (``limits.check_fits_in_memory``
    with the training's copies, naming a config field or the vocabulary).

    Args:
        config: the configuration to train.
        vocab_size: int, the word vocabulary's size (special tokens included).

    Raises:
        ValueError: naming the field that makes the model large (``units = 1,000,000,000``).
    """
    sizes = config.size_fields(vocab_size)

    def refuse(field: str, shortfall: str) -> ValueError:
        if field == "vocabulary":
            return ValueError(f"a vocabulary of {vocab_size:,} words is too large for this machine: {shortfall}; "
                              "pass a smaller vocabulary (e.g. the most frequent words) or use token_input='char'")
        return ValueError(f"{field} = {sizes[field]:,} is too large for this machine: {shortfall}; check the value")

    limits.check_fits_in_memory(config.parameter_count(vocab_size),
                                lambda **fields: config.parameter_count(vocab_size, **fields), sizes, TRAINING_COPIES,
                                refuse)
