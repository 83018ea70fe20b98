"""A pre-LayerNorm transformer block, AllenNLP's ``EncoderLayer`` (``x + dropout(sublayer(norm(x)))``, twice)."""

from __future__ import annotations

from elmo_keras._quiet import keras, ops
from elmo_keras.argument_checks import check_int, check_rate
from elmo_keras.layers.allennlp_layer_norm import AllenNLPLayerNorm
from elmo_keras.layers.directional_self_attention import DIRECTIONS, DirectionalSelfAttention


@keras.saving.register_keras_serializable(package="elmo_keras")
class PreNormTransformerBlock(keras.layers.Layer):
    """``h = x + dropout(attention(norm_1(x)))``, then ``y = h + dropout(W_2 · dropout(relu(W_1 · norm_2(h) + b_1))
    + b_2)``.

    The norm comes first, inside the residual branch (the "pre-LN" block; keras_hub's ``TransformerEncoder(
    normalize_first=True)``), with AllenNLP's ``LayerNorm`` formula (``AllenNLPLayerNorm``) and a
    ``DirectionalSelfAttention``. AllenNLP's ``EncoderLayer`` with its two ``SublayerConnection``s and
    ``PositionwiseFeedForward``; the three dropouts (and the attention's) run in training only.

    Args:
        hidden_dim: int, the feed-forward width (``W_1``: dim → hidden_dim, ``W_2``: hidden_dim → dim).
        num_heads: int, attention heads. Defaults to 8.
        direction: ``"forward"`` (attend to the past) or ``"backward"`` (the future). Defaults to ``"forward"``.
        dropout: float in ``[0, 1)``, every dropout of the block. Defaults to 0.1 (AllenNLP's).

    Call arguments:
        inputs: `(batch_size, time, dim)`.
        mask: `(batch_size, time)` bool, or None (no padding).
        training: bool, dropout only when True.

    Returns:
        `(batch_size, time, dim)`.

    Example:
        >>> block = PreNormTransformerBlock(hidden_dim=32, num_heads=2)
        >>> tuple(block(np.ones((2, 5, 8), "float32")).shape)
        (2, 5, 8)

    Reference:
        Xiong et al., "On layer normalization in the transformer architecture", ICML 2020 (the pre-LN block);
        AllenNLP commit 2368760, ``modules/seq2seq_encoders/bidirectional_language_model_transformer.py``.
    """

    def __init__(self, hidden_dim, num_heads=8, direction="forward", dropout=0.1, **kwargs):
        super().__init__(**kwargs)
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {DIRECTIONS}, received {direction!r}")
        self.hidden_dim = check_int(hidden_dim, "hidden_dim")
        self.num_heads = check_int(num_heads, "num_heads")
        self.direction = direction
        self.dropout = check_rate(dropout)
        self.supports_masking = True
        policy = self.dtype_policy
        self.attention_norm = AllenNLPLayerNorm(dtype=policy, name="attention_norm")
        self.attention = DirectionalSelfAttention(num_heads, direction, dropout, dtype=policy, name="attention")
        self.attention_dropout = keras.layers.Dropout(dropout, dtype=policy, name="attention_output_dropout")
        self.feed_forward_norm = AllenNLPLayerNorm(dtype=policy, name="feed_forward_norm")
        self.feed_forward_inner = keras.layers.Dense(self.hidden_dim, dtype=policy, name="feed_forward_inner")
        self.feed_forward_inner_dropout = keras.layers.Dropout(dropout, dtype=policy, name="feed_forward_inner_dropout")
        self.feed_forward_dropout = keras.layers.Dropout(dropout, dtype=policy, name="feed_forward_output_dropout")

    def build(self, input_shape):
        dim = input_shape[-1]
        shape = (None, None, dim)
        self.attention_norm.build(shape)
        self.attention.build(shape)
        self.feed_forward_norm.build(shape)
        self.feed_forward_inner.build(shape)
        # W_2 back to the model width, known here
        self.feed_forward_outer = keras.layers.Dense(dim, dtype=self.dtype_policy, name="feed_forward_outer")
        self.feed_forward_outer.build((None, None, self.hidden_dim))
        for dropout in (self.attention_dropout, self.feed_forward_inner_dropout, self.feed_forward_dropout):
            dropout.build(None)

    def call(self, inputs, mask=None, training=None):
        attended = self.attention(self.attention_norm(inputs), mask=mask, training=training)
        x = inputs + self.attention_dropout(attended, training=training)  # (B, T, dim)
        # the feed-forward as 2-D products over the B · T rows (a Dense on a 3-D input is a tensordot: ~20 shape ops
        # more in the graph for the same MatMul, traced and optimised on every first call)
        flat = ops.reshape(self.feed_forward_norm(x), (-1, x.shape[-1]))  # (B · T, dim)
        hidden = ops.relu(self.feed_forward_inner(flat))  # (B · T, hidden_dim)
        hidden = self.feed_forward_inner_dropout(hidden, training=training)
        outer = ops.reshape(self.feed_forward_outer(hidden), ops.shape(x))  # (B, T, dim)
        return x + self.feed_forward_dropout(outer, training=training)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"hidden_dim": self.hidden_dim, "num_heads": self.num_heads, "direction": self.direction,
                       "dropout": self.dropout})
        return config
