"""The transformer biLM: a token encoder + a ``BidirectionalTransformer``, behind ``BiLMBase``'s output contract."""

from __future__ import annotations

from elmo_keras._quiet import keras
from elmo_keras.layers.bidirectional_transformer import BidirectionalTransformer
from elmo_keras.layers.bilm_base import BiLMBase, token_encoder_width
from elmo_keras.layers.sinusoidal_position_encoding import MAX_POSITIONS


@keras.saving.register_keras_serializable(package="elmo_keras")
class TransformerBiLM(BiLMBase):
    """Token encoder → ``BidirectionalTransformer`` → ``[[x; x], [f_1; b_1], ..., [f_L; b_L]]``.

    The transformer ELMo (Peters et al. 2018b) as a biLM: the same output contract as the LSTM ``BiLM``
    (``BiLMBase``), so ``Elmo``, ``ScalarMix``, the language model and the analysis helpers take either. Layer 0 is
    the token vectors ``x`` (e.g. a ``CharCNN``'s output) duplicated, as AllenNLP's
    ``BidirectionalLanguageModelTokenEmbedder`` tiles its character layer to the contextual width; layer ``k`` is
    ``[f_k; b_k]`` as ``BidirectionalTransformer`` returns it (layers ``1 .. L − 1`` the raw residual stream, the
    last normalised). The forward half attends to positions ``≤ t``, the backward half to ``≥ t``, neither to
    padding: ``directional_outputs`` hands the language model the forward top (predicting the next word) and the
    backward top (the previous word). Padded positions are zero in every layer.

    Stateless: attention reads the whole sentence at every call, so there is no state to carry between calls.
    ``stateful`` is always False, ``reset_states()`` does nothing, and ``copy(stateful=True)`` is refused.
    Every matmul runs in the compute dtype (``matmul_dtypes`` is empty: ``matmul_dtype`` must be None).

    Args:
        token_encoder: ``keras.layers.Layer`` mapping the input ids to `(batch, time, dim)` with a `(batch, time)`
            mask (``CharCNN`` or ``WordEmbedding``), or its serialized config (dict); it must declare ``dim``
            (``output_dim`` or ``projection_dim``), a multiple of ``num_heads``.
        hidden_dim: int, each block's feed-forward width.
        num_layers: int, transformer blocks per direction.
        num_heads: int, attention heads. Defaults to 8 (AllenNLP's).
        dropout: float in ``[0, 1)``, inside every block, in training only. Defaults to 0.1.
        input_dropout: float in ``[0, 1)`` or None, after the positions are added, in training only. Defaults to
            None (none).
        max_length: int, the longest input (boundaries included). Defaults to ``MAX_POSITIONS`` = 5000.

    Call arguments:
        inputs: character ids `(batch_size, time, 50)` or int word ids `(batch_size, time)`, boundaries included
            (``add_sentence_boundaries``), padding after the real tokens.
        training: bool; dropout only when True.
        matmul_dtype: None (the only value: see above).

    Returns:
        ``{"activations": num_layers + 1 tensors (batch_size, time, 2 * dim), "mask": (batch_size, time) bool}``.

    Example:
        >>> from elmo_keras.layers import CharCNN, Elmo
        >>> from elmo_keras.text.char_ids import batch_to_ids
        >>> cnn = CharCNN(filters=[[1, 4], [2, 8]], n_highway=1, projection_dim=16)
        >>> bilm = TransformerBiLM(cnn, hidden_dim=32, num_layers=3, num_heads=2)
        >>> elmo = Elmo(bilm, num_output_representations=1, dropout=0.0)  # adds and strips <S> and </S>
        >>> outputs = elmo(batch_to_ids([["I", "sat", "by", "the", "bank"], ["Hello"]]))
        >>> [tuple(layer.shape) for layer in outputs["activations"]]  # [x; x] and 3 transformer layers
        [(2, 5, 32), (2, 5, 32), (2, 5, 32), (2, 5, 32)]
        >>> keras.ops.convert_to_numpy(outputs["mask"]).tolist()
        [[True, True, True, True, True], [True, False, False, False, False]]

    Reference:
        Peters et al., "Dissecting contextual word embeddings: architecture and representation", EMNLP 2018.
    """

    matmul_dtypes = ()
    CONTEXTUALIZER = "transformer"  # BiLMConfig.contextualizer
    # the attributes that fix the weights beside the token encoder's, named as BiLMConfig names them (a saved model
    # directory's training.json is checked against them: models.persistence)
    ARCHITECTURE_FIELDS = ("units", "hidden_dim", "num_layers", "num_heads")

    def __init__(self, token_encoder, hidden_dim, num_layers, num_heads=8, dropout=0.1, input_dropout=None,
                 max_length=MAX_POSITIONS, **kwargs):
        super().__init__(token_encoder, **kwargs)
        input_dim = token_encoder_width(self.token_encoder)
        if input_dim is None:
            raise ValueError(f"token_encoder must declare its output width (output_dim or projection_dim), the "
                             f"transformer's input_dim; received {type(self.token_encoder).__name__} without either")
        self.contextualizer = BidirectionalTransformer(
            input_dim=input_dim, hidden_dim=hidden_dim, num_layers=num_layers, num_heads=num_heads, dropout=dropout,
            input_dropout=input_dropout, max_length=max_length, dtype=self.dtype_policy, name="contextualizer")
        self.hidden_dim = self.contextualizer.hidden_dim
        self.num_layers = self.contextualizer.num_layers
        self.num_heads = self.contextualizer.num_heads
        self.dropout = self.contextualizer.dropout
        self.input_dropout = self.contextualizer.input_dropout
        self.max_length = self.contextualizer.max_length
        self.output_dim = self.contextualizer.output_dim

    @property
    def units(self) -> int:
        """The width of each direction (the token vectors' and every block's): ``output_dim // 2``."""
        return self.output_dim // 2

    def copy(self, **overrides) -> "TransformerBiLM":
        """As ``BiLMBase.copy``; ``stateful=False`` is accepted (there is no state) and ``stateful=True`` refused.

        Raises:
            ValueError: ``stateful=True``.
        """
        if overrides.pop("stateful", False):
            raise ValueError("TransformerBiLM has no state to carry across calls (attention reads the whole "
                             "sentence): stateful=True is for the LSTM BiLM")
        return super().copy(**overrides)

    def build_contextualizer(self, token_shape):
        self.contextualizer.build(token_shape)

    def contextualize(self, tokens, mask, training=None, matmul_dtype=None):
        """The transformer's forward and backward layers over ``tokens`` (``BiLMBase``'s hook)."""
        return self.contextualizer.directional_layers(tokens, mask=mask, training=training)

    def get_config(self):
        config = super().get_config()
        config.update({"hidden_dim": self.hidden_dim, "num_layers": self.num_layers, "num_heads": self.num_heads,
                       "dropout": self.dropout, "input_dropout": self.input_dropout, "max_length": self.max_length})
        return config
