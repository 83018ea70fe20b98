"""Learned weighted average of layers: ``mixture = gamma * sum(s_k * tensor_k)``, ``s = softmax(w)``."""

from __future__ import annotations

import numpy as np

from elmo_keras._quiet import keras, ops
from elmo_keras.argument_checks import check_int

LAYER_NORM_EPSILON = 1e-12  # as AllenNLP's ScalarMix
LAYER_NORM_STATISTICS = ("sentence", "batch")


@keras.saving.register_keras_serializable(package="elmo_keras")
class ScalarMix(keras.layers.Layer):
    """``mixture = gamma * sum(s_k * tensor_k)`` with ``s = softmax(w)``: ELMo's task-specific layer weighting.

    ``w`` (``mixture_size`` scalars) and ``gamma`` (one scalar) are learned. With ``do_layer_norm=True``
    each ``tensor_k`` is first normalised, ``(tensor_k − mean) / sqrt(var + 1e-12)``, with the mean and
    variance taken over the *unmasked* values only:

    - ``layer_norm_statistics="sentence"`` (default): one mean/variance per sentence, over its real tokens
      and all features. A sentence's output then does not depend on the other sentences in the batch.
    - ``layer_norm_statistics="batch"``: one mean/variance over all real tokens of the batch, as AllenNLP's
      ``ScalarMix`` does. A sentence's vectors then change with its batch-mates.

    When a mask is given, masked positions of the output are zero.

    Args:
        mixture_size: int, number of tensors to mix (the biLM's ``num_layers + 1``).
        do_layer_norm: bool, normalise each tensor before mixing (see above). Defaults to False.
        initial_scalar_parameters: ``mixture_size`` floats, the initial ``w``. Defaults to None (zeros: equal
            weights).
        trainable: bool, whether ``w`` and ``gamma`` are learned (AllenNLP fixes them when
            ``scalar_mix_parameters`` are given). Defaults to True.
        layer_norm_statistics: ``"sentence"`` or ``"batch"`` (only used with ``do_layer_norm``). Defaults to
            ``"sentence"``.

    Call arguments:
        inputs: a list of ``mixture_size`` tensors `(batch_size, time, dim)`.
        mask: `(batch_size, time)` bool, or None (every position counts). Defaults to None.

    Returns:
        `(batch_size, time, dim)`.

    Example:
        >>> mix = ScalarMix(3, initial_scalar_parameters=[0.0, 1.0, 2.0])
        >>> layers = [keras.ops.ones((2, 5, 8)) * k for k in range(3)]
        >>> tuple(mix(layers).shape), mix.normalized_weights().round(3)
        ((2, 5, 8), array([0.09 , 0.245, 0.665], dtype=float32))

    Reference:
        Peters et al., "Deep contextualized word representations", NAACL 2018, eq. (1).
    """

    def __init__(
        self,
        mixture_size,
        do_layer_norm=False,
        initial_scalar_parameters=None,
        trainable=True,
        layer_norm_statistics="sentence",
        **kwargs,
    ):
        super().__init__(trainable=trainable, **kwargs)
        check_int(mixture_size, "mixture_size")
        if initial_scalar_parameters is None:
            initial_scalar_parameters = [0.0] * mixture_size
        initial_scalar_parameters = [float(v) for v in initial_scalar_parameters]
        if len(initial_scalar_parameters) != mixture_size:
            raise ValueError(
                f"initial_scalar_parameters must have mixture_size={mixture_size} values, "
                f"received {len(initial_scalar_parameters)}: {initial_scalar_parameters}"
            )
        if layer_norm_statistics not in LAYER_NORM_STATISTICS:
            raise ValueError(
                f"layer_norm_statistics must be one of {LAYER_NORM_STATISTICS}, received {layer_norm_statistics!r}"
            )
        self.mixture_size = mixture_size
        self.do_layer_norm = bool(do_layer_norm)
        self.initial_scalar_parameters = initial_scalar_parameters
        self.layer_norm_statistics = layer_norm_statistics

    def build(self, input_shape):
        self.scalar_parameters = self.add_weight(
            shape=(self.mixture_size,),
            initializer=keras.initializers.Constant(self.initial_scalar_parameters),
            name="scalar_parameters",
        )
        self.gamma = self.add_weight(shape=(), initializer="ones", name="gamma")

    def call(self, inputs, mask=None):
        if not isinstance(inputs, (list, tuple)) or len(inputs) != self.mixture_size:
            received = len(inputs) if isinstance(inputs, (list, tuple)) else type(inputs).__name__
            raise ValueError(
                f"ScalarMix(mixture_size={self.mixture_size}) expects a list of that many tensors, received {received}"
            )
        if isinstance(mask, (list, tuple)):  # Keras passes one mask per input tensor; they are all the same
            mask = mask[0]
        weights = ops.softmax(self.scalar_parameters)  # (K,)
        keep = None
        if mask is not None:
            keep = ops.expand_dims(ops.cast(mask, inputs[0].dtype), -1)  # (B, T, 1)
        mixed = 0.0
        for k, tensor in enumerate(inputs):
            if self.do_layer_norm:
                tensor = self._layer_norm(tensor, keep)
            mixed = mixed + weights[k] * tensor
        mixed = self.gamma * mixed
        if keep is not None:
            mixed = mixed * keep
        return mixed

    def _layer_norm(self, tensor, keep):
        """``(tensor − mean) / sqrt(var + eps)`` over unmasked values, per sentence or per batch."""
        if keep is None:
            keep = ops.ones(ops.shape(tensor)[:2] + (1,), dtype=tensor.dtype)
        axes = (1, 2) if self.layer_norm_statistics == "sentence" else (0, 1, 2)
        dim = ops.cast(ops.shape(tensor)[-1], tensor.dtype)
        count = ops.maximum(ops.sum(keep, axis=axes, keepdims=True) * dim, 1.0)  # (B|1, 1, 1) unmasked values
        mean = ops.sum(tensor * keep, axis=axes, keepdims=True) / count
        variance = ops.sum(ops.square((tensor - mean) * keep), axis=axes, keepdims=True) / count
        return (tensor - mean) / ops.sqrt(variance + LAYER_NORM_EPSILON)

    def normalized_weights(self) -> np.ndarray:
        """``softmax(w)`` as a NumPy array of ``mixture_size`` floats (for display)."""
        return ops.convert_to_numpy(ops.softmax(self.scalar_parameters))

    def gamma_value(self) -> float:
        """The scale ``gamma`` as a float (for display)."""
        return float(ops.convert_to_numpy(self.gamma))

    def compute_mask(self, inputs, mask=None):
        return mask[0] if isinstance(mask, (list, tuple)) else mask

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[0])

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "mixture_size": self.mixture_size,
                "do_layer_norm": self.do_layer_norm,
                "initial_scalar_parameters": list(self.initial_scalar_parameters),
                "layer_norm_statistics": self.layer_norm_statistics,
            }
        )
        return config
