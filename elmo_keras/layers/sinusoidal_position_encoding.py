"""Sinusoidal positions added to token vectors, as AllenNLP's transformer ELMo computes them."""

from __future__ import annotations

import functools
import math

import numpy as np

from elmo_keras._quiet import keras, ops
from elmo_keras.argument_checks import check_int
from elmo_keras.limits import MAX_POSITIONS

WAVELENGTH_BASE = 10000.0


@functools.lru_cache(maxsize=4)  # built once for the layer and once more for the loader's check (5,000 × 512 sines)
def sinusoidal_table(max_length: int, dim: int) -> np.ndarray:
    """``PE[p, 2k] = sin(p · e^(2k · −ln(10000) / dim))``, ``PE[p, 2k + 1] = cos(...)``: float32 `(max_length, dim)`.

    Computed as AllenNLP's ``PositionalEncoding`` does, in float32 step by step (``div_term`` from the float32
    ``arange(0, dim, 2)``, then the float32 product ``position * div_term``), with ``exp``, ``sin`` and ``cos``
    rounded once from float64: at a large position a one-ulp difference in ``div_term`` moves the sine by ~1e-4,
    and correctly rounded values agree with the table AllenNLP stores far more often than NumPy's float32 ones.
    Cached, read-only (copy it to change it).

    Raises:
        ValueError: ``dim`` is odd (AllenNLP's formula needs a cosine for every sine), or a size is not positive.
    """
    max_length, dim = check_int(max_length, "max_length"), check_int(dim, "dim")
    if dim % 2:
        raise ValueError(f"the position encoding needs an even width (a sine and a cosine per frequency), received "
                         f"dim={dim}")
    position = np.arange(max_length, dtype=np.float32)[:, None]  # (max_length, 1)
    exponent = np.arange(0, dim, 2, dtype=np.float32) * np.float32(-(math.log(WAVELENGTH_BASE) / dim))  # (dim / 2,)
    div_term = np.exp(exponent.astype(np.float64)).astype(np.float32)  # exp rounded once, as torch's float32 exp
    angle = (position * div_term).astype(np.float64)  # the float32 product AllenNLP takes the sine of
    table = np.zeros((max_length, dim), dtype=np.float32)
    table[:, 0::2] = np.sin(angle)
    table[:, 1::2] = np.cos(angle)
    table.flags.writeable = False
    return table


@keras.saving.register_keras_serializable(package="elmo_keras")
class SinusoidalPositionEncoding(keras.layers.Layer):
    """``y = x + PE[:time]`` with the sinusoidal table ``PE`` of ``sinusoidal_table`` (Vaswani et al. 2017).

    The table is a non-trainable weight `(max_length, dim)`, as in AllenNLP (a buffer of its state dict): built from
    the formula, and overwritten with the stored table when an AllenNLP model is loaded, so the loaded model adds
    exactly AllenNLP's numbers on every backend.

    Args:
        max_length: int, the longest input (positions ``0 .. max_length - 1``). Defaults to ``MAX_POSITIONS`` = 5000.

    Call arguments:
        inputs: `(batch_size, time, dim)`, ``time ≤ max_length``, ``dim`` even.

    Returns:
        `(batch_size, time, dim)`; the mask is passed through.

    Example:
        >>> encode = SinusoidalPositionEncoding(max_length=16)
        >>> out = keras.ops.convert_to_numpy(encode(np.zeros((1, 3, 4), "float32")))
        >>> out[0, 1].round(4).tolist()  # position 1: sin(1), cos(1), sin(0.01), cos(0.01)
        [0.8415, 0.5403, 0.01, 1.0]

    Reference:
        Vaswani et al., "Attention is all you need", NeurIPS 2017, section 3.5.
    """

    def __init__(self, max_length=MAX_POSITIONS, **kwargs):
        super().__init__(**kwargs)
        self.max_length = check_int(max_length, "max_length")
        self.supports_masking = True

    def build(self, input_shape):
        dim = input_shape[-1]
        table = sinusoidal_table(self.max_length, dim)
        self.positional_encoding = self.add_weight(shape=(self.max_length, dim), initializer="zeros",
                                                   trainable=False, name="positional_encoding")
        self.positional_encoding.assign(table)

    def call(self, inputs):
        time = inputs.shape[1]
        if time is not None and time > self.max_length:
            raise ValueError(f"SinusoidalPositionEncoding {self.name!r} has positions for {self.max_length:,} tokens, "
                             f"received {time:,}: split the sentence, or build with a larger max_length")
        time, dim = ops.shape(inputs)[1], ops.shape(self.positional_encoding)[1]
        table = ops.slice(ops.convert_to_tensor(self.positional_encoding), (0, 0), (time, dim))  # (time, dim)
        return inputs + ops.cast(table, inputs.dtype)[None]

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"max_length": self.max_length})
        return config
