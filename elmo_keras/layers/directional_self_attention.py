"""Multi-head self-attention that sees only one side of each position: the past (forward) or the future (backward)."""

from __future__ import annotations

import math

from elmo_keras._quiet import keras, ops
from elmo_keras.argument_checks import check_int, check_rate

DIRECTIONS = ("forward", "backward")
MASKED_SCORE = -1e9  # AllenNLP's scores.masked_fill(mask == 0, -1e9): exp underflows to exactly 0 in float32
FLOAT16_MASKED_SCORE = -6.5e4  # float16's -1e9 would be -inf, and a row hiding every key would give NaN


def allowed_keys(time, mask, direction: str):
    """Which key ``j`` query ``i`` may attend to: ``j ≤ i`` (``"forward"``) or ``j ≥ i`` (``"backward"``), and
    ``mask[j]``.

    Args:
        time: the sequence length (an int or a scalar tensor).
        mask: `(batch, time)` bool, or None (no padding).
        direction: ``"forward"`` or ``"backward"``.

    Returns:
        bool `(batch or 1, 1, time, time)`, indexed ``[b, head, i, j]``.
    """
    queries = ops.arange(time)[:, None]  # (T, 1)
    keys = ops.arange(time)[None, :]  # (1, T)
    allowed = keys <= queries if direction == "forward" else keys >= queries  # (T, T)
    allowed = allowed[None, None]  # (1, 1, T, T)
    if mask is not None:
        allowed = ops.logical_and(allowed, ops.cast(mask, "bool")[:, None, None, :])  # (B, 1, T, T)
    return allowed


@keras.saving.register_keras_serializable(package="elmo_keras")
class DirectionalSelfAttention(keras.layers.Layer):
    """``concat_h(softmax(Q_h K_hᵀ / sqrt(d_k) + M) V_h) · W_o + b_o``, ``Q = x W_q + b_q`` (K, V alike), ``d_k =
    dim / num_heads``, ``M[i, j] = −1e9`` where key ``j`` is hidden from query ``i``.

    The forward direction hides the future (``j > i``), the backward one the past (``j < i``); both hide padding
    keys. So a real position never attends to padding, and a sentence's outputs do not depend on its padding or its
    batch-mates. AllenNLP's ``MultiHeadedAttention`` with the masks of ``BidirectionalLanguageModelTransformer``
    (which tests the *query* position's mask in the forward direction and the key's in the backward one: the same
    for every real position of a right-padded batch).

    Args:
        num_heads: int, heads; the width must be a multiple of it. Defaults to 8 (AllenNLP's, fixed).
        direction: ``"forward"`` or ``"backward"``. Defaults to ``"forward"``.
        dropout: float in ``[0, 1)``, on the attention probabilities, in training only. Defaults to 0.

    Call arguments:
        inputs: `(batch_size, time, dim)`.
        mask: `(batch_size, time)` bool, or None (no padding).
        training: bool, dropout only when True.

    Returns:
        `(batch_size, time, dim)`.

    Example:
        >>> attention = DirectionalSelfAttention(num_heads=2, direction="forward")
        >>> tuple(attention(np.ones((2, 5, 8), "float32")).shape)
        (2, 5, 8)

    Reference:
        Vaswani et al., "Attention is all you need", NeurIPS 2017, section 3.2.
    """

    def __init__(self, num_heads=8, direction="forward", dropout=0.0, **kwargs):
        super().__init__(**kwargs)
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {DIRECTIONS}, received {direction!r}")
        self.num_heads = check_int(num_heads, "num_heads")
        self.direction = direction
        self.dropout = check_rate(dropout)
        self.supports_masking = True
        self.attention_dropout = keras.layers.Dropout(self.dropout, dtype=self.dtype_policy, name="attention_dropout")

    def build(self, input_shape):
        dim = input_shape[-1]
        if dim % self.num_heads:
            raise ValueError(f"DirectionalSelfAttention {self.name!r}: the width {dim} must be a multiple of "
                             f"num_heads={self.num_heads}")
        # the four projections, created here where the width is known (as keras_hub's TransformerEncoder does)
        self.query_dense, self.key_dense, self.value_dense, self.output_dense = (
            keras.layers.Dense(dim, dtype=self.dtype_policy, name=name) for name in ("query", "key", "value", "output"))
        for dense in (self.query_dense, self.key_dense, self.value_dense, self.output_dense):
            dense.build((None, None, dim))
        self.attention_dropout.build(None)

    def _split_heads(self, x, batch, time, order=(0, 2, 1, 3)):
        """`(B · T, dim)` → `(B, heads, T, d_k)` (``order`` (0, 2, 3, 1): `(B, heads, d_k, T)`, a key ready for
        ``Q Kᵀ`` in one transpose)."""
        x = ops.reshape(x, (batch, time, self.num_heads, -1))
        return ops.transpose(x, order)

    def call(self, inputs, mask=None, training=None):
        batch, time, dim = ops.shape(inputs)[0], ops.shape(inputs)[1], inputs.shape[-1]
        # the projections as 2-D products over the B · T rows: a Dense on a 3-D input is a tensordot, ~20 shape ops
        # apiece in the graph for the same MatMul, traced and optimised on every first call (docs/speed.md)
        flat = ops.reshape(inputs, (-1, dim))  # (B · T, dim)
        query = self._split_heads(self.query_dense(flat), batch, time)  # (B, H, T, d_k)
        key = self._split_heads(self.key_dense(flat), batch, time, order=(0, 2, 3, 1))  # (B, H, d_k, T)
        value = self._split_heads(self.value_dense(flat), batch, time)  # (B, H, T, d_k)
        scores = ops.matmul(query, key) / math.sqrt(dim // self.num_heads)  # (B, H, T, T)
        masked = FLOAT16_MASKED_SCORE if keras.backend.standardize_dtype(scores.dtype) == "float16" else MASKED_SCORE
        scores = ops.where(allowed_keys(time, mask, self.direction), scores, ops.cast(masked, scores.dtype))
        probabilities = self.attention_dropout(ops.softmax(scores, axis=-1), training=training)
        heads = ops.matmul(probabilities, value)  # (B, H, T, d_k)
        joined = ops.reshape(ops.transpose(heads, (0, 2, 1, 3)), (-1, dim))  # (B · T, dim)
        return ops.reshape(self.output_dense(joined), (batch, time, dim))

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"num_heads": self.num_heads, "direction": self.direction, "dropout": self.dropout})
        return config
