"""``NgramFilters``: the filters of one height sliding down a sentence, and their masked max over time.

A filter of height ``h`` is an ``h × embedding_dim`` matrix: it spans the whole embedding width, so it can only
slide along the sentence. At window start ``t`` it gives ``c_t = f(Σ_k Σ_d W[k, d] · x[t + k, d] + b)`` (the
element-wise product of window and filter, summed, as in Kim 2014), computed for all filters at once as ``h``
einsums over shifted copies of the sentence matrix (a convolution over time, not a 2-D image convolution).
"""

from __future__ import annotations

from elmo_keras._quiet import keras, ops
from elmo_keras.argument_checks import check_int


@keras.saving.register_keras_serializable(package="elmo_keras")
class NgramFilters(keras.layers.Layer):
    """``filters`` filters of height ``height`` over a masked sentence matrix, max-pooled over valid windows.

    Which windows count (``window_mask``): a window whose ``height`` rows are all real tokens. A sentence shorter
    than ``height`` has no such window; it gets exactly one, at position 0, whose rows past the sentence end are
    zero vectors (the zero padding of Kim 2014), so every sentence of at least one token has a feature. Padding
    rows are zeroed before the filters read them, so padding never changes a sentence's values.

    Args:
        height: int, rows (tokens) per window: 2 for bigrams, 3 for trigrams.
        filters: int, number of filters of this height.
        activation: a Keras activation name or None, applied to each window's sum. Defaults to ``"relu"``.

    Call arguments:
        inputs: float `(batch, time, embedding_dim)`, the sentence matrices.
        mask: bool `(batch, time)`, True on real tokens (right padding). Defaults to None (all real).

    Returns:
        A dict: ``"feature_maps"`` float `(batch, time, filters)`: the value of each window starting at ``t``
        (``time`` windows: the input is zero-padded by ``height - 1`` rows at the end); ``"window_mask"`` bool
        `(batch, time)`; ``"pooled"`` float `(batch, filters)`: the max over valid windows (0 for a row of only
        padding, which has none); ``"positions"`` int32 `(batch, filters)`: the window that won.

    Example:
        >>> layer = NgramFilters(height=2, filters=4)
        >>> out = layer(np.ones((1, 7, 5), "float32"))
        >>> tuple(out["feature_maps"].shape), tuple(out["pooled"].shape)
        ((1, 7, 4), (1, 4))
    """

    def __init__(self, height, filters, activation="relu", **kwargs):
        super().__init__(**kwargs)
        self.height = check_int(height, "height")
        self.filters = check_int(filters, "filters")
        self.activation = keras.activations.get(activation)
        self.supports_masking = True  # reads the token mask; its outputs are per window, so it passes none on

    def build(self, input_shape):
        embedding_dim = input_shape[-1]
        self.kernel = self.add_weight(shape=(self.height, embedding_dim, self.filters), name="kernel",
                                      initializer="glorot_uniform")
        self.bias = self.add_weight(shape=(self.filters,), name="bias", initializer="zeros")

    def call(self, inputs, mask=None):
        steps = ops.shape(inputs)[1]
        if mask is None:
            mask = ops.ones(ops.shape(inputs)[:2], dtype="bool")
        real = ops.cast(mask, inputs.dtype)  # (B, T)
        x = inputs * real[..., None]  # padding rows become zero vectors
        x = ops.pad(x, [[0, 0], [0, self.height - 1], [0, 0]])  # (B, T + h - 1, E)
        real_padded = ops.pad(real, [[0, 0], [0, self.height - 1]])  # (B, T + h - 1)
        sums = ops.zeros((ops.shape(inputs)[0], steps, self.filters), dtype=inputs.dtype)
        real_in_window = ops.zeros_like(real)
        for k in range(self.height):  # row k of every window: one einsum over all window starts
            sums = sums + ops.einsum("bte,ef->btf", x[:, k : k + steps], self.kernel[k])  # (B, T, F)
            real_in_window = real_in_window + real_padded[:, k : k + steps]
        feature_maps = self.activation(sums + self.bias)  # (B, T, F)
        lengths = ops.sum(real, axis=1, keepdims=True)  # (B, 1)
        first = ops.arange(steps)[None, :] == 0
        window_mask = ops.logical_or(real_in_window >= self.height,
                                     ops.logical_and(first, ops.logical_and(lengths > 0, lengths < self.height)))
        masked = ops.where(window_mask[..., None], feature_maps, float("-inf"))
        positions = ops.cast(ops.argmax(masked, axis=1), "int32")  # (B, F); ties: the first window
        pooled = ops.max(masked, axis=1)
        has_window = ops.any(window_mask, axis=1)[:, None]
        pooled = ops.where(has_window, pooled, ops.zeros_like(pooled))
        return {"feature_maps": feature_maps, "window_mask": window_mask, "pooled": pooled, "positions": positions}

    def compute_mask(self, inputs, mask=None):
        return None

    def compute_output_spec(self, inputs, mask=None):
        batch, steps = inputs.shape[0], inputs.shape[1]
        return {
            "feature_maps": keras.KerasTensor((batch, steps, self.filters), dtype=inputs.dtype),
            "window_mask": keras.KerasTensor((batch, steps), dtype="bool"),
            "pooled": keras.KerasTensor((batch, self.filters), dtype=inputs.dtype),
            "positions": keras.KerasTensor((batch, self.filters), dtype="int32"),
        }

    def get_config(self):
        config = super().get_config()
        config.update({"height": self.height, "filters": self.filters,
                       "activation": keras.activations.serialize(self.activation)})
        return config
