"""Highway layers (Srivastava et al., 2015), with the gate convention of bilm-tf."""

from __future__ import annotations

from elmo_keras._quiet import keras, ops
from elmo_keras.argument_checks import check_int
from elmo_keras.layers.matmul_dtype import check_matmul_dtype, kernel_for, product


@keras.saving.register_keras_serializable(package="elmo_keras")
class Highway(keras.layers.Layer):
    """``y = t ⊙ g(x · W_h + b_h) + (1 − t) ⊙ x`` with transform gate ``t = σ(x · W_t + b_t)``, n times.

    Gate convention: ``t`` is the *transform* gate — ``t → 1`` passes the non-linear transform, ``t → 0``
    carries the input through unchanged. This is bilm-tf's formula; bilm-tf stores ``W_t, b_t`` under the
    names ``W_carry, b_carry`` (AllenNLP's ``Highway`` uses the opposite gate, ``g ⊙ x + (1 − g) ⊙ f(x)``,
    and therefore negates these weights when loading). The gate bias starts at ``gate_bias_initializer``
    (−1 by default, so a fresh layer leans towards carrying its input).

    Args:
        num_layers: int ≥ 0, how many highway layers are applied in sequence. Defaults to 1.
        activation: the non-linearity ``g``, a Keras activation name or callable. Defaults to ``"relu"`` (ELMo's).
        gate_bias_initializer: float, initial value of every ``b_t``. Defaults to −1.

    Call arguments:
        inputs: `(..., dim)`.
        matmul_dtype: None, or ``"bfloat16"`` for inference: both products in bfloat16, the rest in the compute
            dtype (``layers.matmul_dtype``). Defaults to None (the compute dtype).

    Returns:
        `(..., dim)`, the shape of ``inputs``.

    Example:
        >>> highway = Highway(num_layers=2)
        >>> tuple(highway(keras.ops.ones((4, 8))).shape)
        (4, 8)
        >>> carry = Highway(gate_bias_initializer=-30.0)  # t ≈ 0: the input passes through
        >>> np.allclose(keras.ops.convert_to_numpy(carry(np.ones((2, 3), "float32"))), 1.0)
        True
    """

    def __init__(self, num_layers=1, activation="relu", gate_bias_initializer=-1.0, **kwargs):
        super().__init__(**kwargs)
        self.num_layers = check_int(num_layers, "num_layers", minimum=0)
        self.activation = keras.activations.get(activation)
        self.gate_bias_initializer = float(gate_bias_initializer)
        self.supports_masking = True

    def build(self, input_shape):
        dim = input_shape[-1]
        self.transform_kernels, self.transform_biases, self.gate_kernels, self.gate_biases = [], [], [], []
        for i in range(self.num_layers):
            self.transform_kernels.append(self.add_weight(shape=(dim, dim), initializer="glorot_uniform",
                                                          name=f"transform_kernel_{i}"))
            self.transform_biases.append(self.add_weight(shape=(dim,), initializer="zeros", name=f"transform_bias_{i}"))
            self.gate_kernels.append(self.add_weight(shape=(dim, dim), initializer="glorot_uniform",
                                                     name=f"gate_kernel_{i}"))
            self.gate_biases.append(
                self.add_weight(shape=(dim,), initializer=keras.initializers.Constant(self.gate_bias_initializer),
                                name=f"gate_bias_{i}")
            )

    def call(self, inputs, matmul_dtype=None):
        check_matmul_dtype(matmul_dtype)
        x = inputs
        for w_h, b_h, w_t, b_t in zip(self.transform_kernels, self.transform_biases, self.gate_kernels,
                                      self.gate_biases):
            w_h, w_t = (kernel_for(w, matmul_dtype, self.compute_dtype) for w in (w_h, w_t))
            gate = ops.sigmoid(product(x, w_t) + b_t)
            x = gate * self.activation(product(x, w_h) + b_h) + (1.0 - gate) * x
        return x

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "num_layers": self.num_layers,
                "activation": keras.activations.serialize(self.activation),
                "gate_bias_initializer": self.gate_bias_initializer,
            }
        )
        return config
