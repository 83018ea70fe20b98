"""The transformer ELMo's contextualizer: a forward and a backward pre-LN transformer stack, every layer returned."""

from __future__ import annotations

from elmo_keras._quiet import keras, ops
from elmo_keras.argument_checks import check_int, check_rate
from elmo_keras.layers.allennlp_layer_norm import AllenNLPLayerNorm
from elmo_keras.layers.pre_norm_transformer_block import PreNormTransformerBlock
from elmo_keras.layers.sinusoidal_position_encoding import MAX_POSITIONS, SinusoidalPositionEncoding


@keras.saving.register_keras_serializable(package="elmo_keras")
class BidirectionalTransformer(keras.layers.Layer):
    """``x = dropout(tokens + PE)``; ``f_k = F_k(f_{k−1})``, ``b_k = B_k(b_{k−1})`` from ``f_0 = b_0 = x``;
    layer ``k = [f_k; b_k]``, with a final LayerNorm on the last layer only.

    ``F_k`` are ``PreNormTransformerBlock``s attending to the past (``j ≤ i``), ``B_k`` to the future (``j ≥ i``),
    neither to padding, so each direction predicts its next word without seeing it. Both stacks read the same
    position-encoded tokens (``SinusoidalPositionEncoding``) and have weights of their own. Layers ``1 .. L − 1``
    are the raw residual stream; layer ``L`` is ``[norm_F(f_L); norm_B(b_L)]`` (``AllenNLPLayerNorm``), as
    AllenNLP's ``TransformerEncoder(return_all_layers=True)`` returns them. Dropout (the input's and every block's)
    runs in training only: inference is deterministic.

    AllenNLP's ``BidirectionalLanguageModelTransformer`` (commit 2368760), the contextualizer of its transformer
    ELMo (Peters et al. 2018b).

    Args:
        input_dim: int, the token width ``dim`` (a multiple of ``num_heads``).
        hidden_dim: int, each block's feed-forward width.
        num_layers: int, blocks per direction.
        num_heads: int, attention heads. Defaults to 8 (AllenNLP's, fixed).
        dropout: float in ``[0, 1)``, inside every block. Defaults to 0.1.
        input_dropout: float in ``[0, 1)`` or None, after the positions are added. Defaults to None (none).
        max_length: int, the longest input. Defaults to ``MAX_POSITIONS`` = 5000.

    Call arguments:
        token_vectors: `(batch_size, time, input_dim)` (e.g. a ``CharCNN``'s output, boundaries included).
        mask: `(batch_size, time)` bool, or None (no padding).
        training: bool, dropout only when True.

    Returns:
        A list of ``num_layers`` tensors `(batch_size, time, 2 * input_dim)`, forward half first; padded positions
        are zero. ``output_dim`` = ``2 * input_dim``.

    Example:
        >>> contextualizer = BidirectionalTransformer(input_dim=16, hidden_dim=32, num_layers=2)
        >>> layers = contextualizer(np.ones((2, 5, 16), "float32"), mask=np.array([[1] * 5, [1] * 3 + [0] * 2], bool))
        >>> [tuple(layer.shape) for layer in layers]
        [(2, 5, 32), (2, 5, 32)]

    Reference:
        Peters et al., "Dissecting contextual word embeddings: architecture and representation", EMNLP 2018.
    """

    def __init__(self, input_dim, hidden_dim, num_layers, num_heads=8, dropout=0.1, input_dropout=None,
                 max_length=MAX_POSITIONS, **kwargs):
        super().__init__(**kwargs)
        self.input_dim = check_int(input_dim, "input_dim")
        self.hidden_dim = check_int(hidden_dim, "hidden_dim")
        self.num_layers = check_int(num_layers, "num_layers")
        self.num_heads = check_int(num_heads, "num_heads")
        if self.input_dim % self.num_heads:
            raise ValueError(f"input_dim must be a multiple of num_heads={self.num_heads}, received {input_dim}")
        self.dropout = check_rate(dropout)
        self.input_dropout = None if input_dropout is None else check_rate(input_dropout, "input_dropout")
        self.max_length = check_int(max_length, "max_length")
        self.output_dim = 2 * self.input_dim
        policy = self.dtype_policy
        self.position_encoding = SinusoidalPositionEncoding(self.max_length, dtype=policy, name="position_encoding")
        self.input_dropout_layer = keras.layers.Dropout(self.input_dropout or 0.0, dtype=policy, name="input_dropout")
        self.forward_blocks, self.backward_blocks = (
            [PreNormTransformerBlock(self.hidden_dim, self.num_heads, direction, self.dropout, dtype=policy,
                                     name=f"{direction}_block_{k}") for k in range(self.num_layers)]
            for direction in ("forward", "backward"))
        self.forward_norm = AllenNLPLayerNorm(dtype=policy, name="forward_norm")
        self.backward_norm = AllenNLPLayerNorm(dtype=policy, name="backward_norm")

    def build(self, input_shape):
        shape = (None, None, self.input_dim)
        if input_shape[-1] is not None and input_shape[-1] != self.input_dim:
            raise ValueError(f"BidirectionalTransformer {self.name!r} has input_dim={self.input_dim}, received token "
                             f"vectors of width {input_shape[-1]}")
        self.position_encoding.build(shape)
        self.input_dropout_layer.build(None)
        for layer in (*self.forward_blocks, *self.backward_blocks, self.forward_norm, self.backward_norm):
            layer.build(shape)

    def call(self, token_vectors, mask=None, training=None):
        forward, backward = self.directional_layers(token_vectors, mask=mask, training=training)
        return [ops.concatenate(pair, axis=-1) for pair in zip(forward, backward)]  # each (B, T, 2 * dim)

    def directional_layers(self, token_vectors, mask=None, training=None):
        """The halves ``call`` joins: ``(forward, backward)``, two lists of ``num_layers`` tensors
        `(batch_size, time, input_dim)`, the last of each normalised, padded positions zero (the arguments as
        ``call``'s). The forward top predicts the next word, the backward top the previous one. Built layer only."""
        x = self.input_dropout_layer(self.position_encoding(token_vectors), training=training)  # (B, T, dim)
        forward, backward = [x], [x]
        for forward_block, backward_block in zip(self.forward_blocks, self.backward_blocks):
            forward.append(forward_block(forward[-1], mask=mask, training=training))  # (B, T, dim)
            backward.append(backward_block(backward[-1], mask=mask, training=training))
        forward, backward = forward[1:], backward[1:]
        forward[-1], backward[-1] = self.forward_norm(forward[-1]), self.backward_norm(backward[-1])
        if mask is not None:
            keep = ops.cast(mask, "bool")[:, :, None]  # (B, T, 1)
            forward, backward = ([ops.where(keep, layer, ops.zeros_like(layer)) for layer in direction]
                                 for direction in (forward, backward))
        return forward, backward

    def compute_mask(self, inputs, mask=None):
        return None if mask is None else [mask] * self.num_layers

    def compute_output_shape(self, input_shape):
        return [tuple(input_shape[:-1]) + (self.output_dim,)] * self.num_layers

    def get_config(self):
        config = super().get_config()
        config.update({"input_dim": self.input_dim, "hidden_dim": self.hidden_dim, "num_layers": self.num_layers,
                       "num_heads": self.num_heads, "dropout": self.dropout, "input_dropout": self.input_dropout,
                       "max_length": self.max_length})
        return config
