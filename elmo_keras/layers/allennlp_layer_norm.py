"""AllenNLP's layer normalisation: ``gamma * (x - mean) / (std + eps) + beta``, eps outside the square root."""

from __future__ import annotations

from elmo_keras._quiet import keras, ops
from elmo_keras.argument_checks import check_finite_positive

ALLENNLP_LAYER_NORM_EPSILON = 1e-6  # allennlp/modules/layer_norm.py, LayerNorm(eps=1e-6)


@keras.saving.register_keras_serializable(package="elmo_keras")
class AllenNLPLayerNorm(keras.layers.Layer):
    """``y = gamma * (x - mean) / (std + epsilon) + beta`` over the last axis, ``std`` the biased (population) one.

    AllenNLP's ``LayerNorm`` (``allennlp/modules/layer_norm.py``: ``tensor.std(-1, unbiased=False)``), used by its
    transformer ELMo in every block, after each stack and after the character CNN. It is not
    ``keras.layers.LayerNormalization``, which divides by ``sqrt(var + epsilon)``: the two differ where the variance
    is small, by more than the 1e-5 the reproduction of AllenNLP's numbers allows.

    Args:
        epsilon: float > 0, added to the standard deviation. Defaults to ``ALLENNLP_LAYER_NORM_EPSILON`` = 1e-6.

    Call arguments:
        inputs: `(..., dim)`.

    Returns:
        `(..., dim)`, normalised over ``dim`` and scaled by ``gamma`` `(dim,)` (ones) plus ``beta`` `(dim,)` (zeros).

    Example:
        >>> norm = AllenNLPLayerNorm()
        >>> keras.ops.convert_to_numpy(norm(np.array([[1.0, 3.0]], "float32"))).round(4).tolist()
        [[-1.0, 1.0]]

    Reference:
        Ba, Kiros and Hinton, "Layer Normalization", 2016; AllenNLP commit 2368760, ``modules/layer_norm.py``.
    """

    def __init__(self, epsilon=ALLENNLP_LAYER_NORM_EPSILON, **kwargs):
        super().__init__(**kwargs)
        self.epsilon = check_finite_positive(epsilon, "epsilon")
        self.supports_masking = True

    def build(self, input_shape):
        dim = input_shape[-1]
        self.gamma = self.add_weight(shape=(dim,), initializer="ones", name="gamma")
        self.beta = self.add_weight(shape=(dim,), initializer="zeros", name="beta")

    def call(self, inputs):
        mean = ops.mean(inputs, axis=-1, keepdims=True)  # (..., 1)
        centered = inputs - mean
        std = ops.sqrt(ops.mean(ops.square(centered), axis=-1, keepdims=True))  # (..., 1), biased
        return self.gamma * centered / (std + self.epsilon) + self.beta

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"epsilon": self.epsilon})
        return config
