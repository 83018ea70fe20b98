"""The two recurrent cells of the vanishing-gradient study: a vanilla tanh RNN and an LSTM with a forget gate.

Each cell is the single source of its step equations (``step``); ``call`` is the ``keras.layers.RNN`` cell
contract (``state_size``, ``call(inputs, states) -> (output, new_states)``), so either cell also runs inside a
stock ``keras.layers.RNN``. ``gradient_models.RecurrentClassifier`` runs them itself to expose every state.

Backward through one step (Pascanu et al. 2013):

- vanilla RNN: ``∂h_t/∂h_{t−1} = diag(1 − h_t²) · Uᵀ`` — a product of T such factors shrinks like
  ``(‖U‖ · mean tanh′)^T`` when that is below 1 (vanishing) and grows when above (exploding);
- LSTM: ``c_t = f_t ⊙ c_{t−1} + i_t ⊙ c̃_t`` gives ``∂c_t/∂c_{t−1} = diag(f_t)`` along the cell path, so with
  the forget gate near 1 the gradient barely decays.
"""

from __future__ import annotations

from elmo_keras._quiet import keras, ops
from elmo_keras.argument_checks import check_finite_positive, check_int

MAX_FORGET_BIAS = 20.0  # σ(20) = 1 − 2e-9: beyond that the gate cannot move


def check_forget_bias(value) -> float:
    """``value`` as a float if it is a number in ``[-MAX_FORGET_BIAS, MAX_FORGET_BIAS]``; else a ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not abs(value) <= MAX_FORGET_BIAS:
        raise ValueError(f"forget_bias must be a number in [-{MAX_FORGET_BIAS:g}, {MAX_FORGET_BIAS:g}], "
                         f"received {value!r}")
    return float(value)


@keras.saving.register_keras_serializable(package="elmo_keras")
class TanhRNNCell(keras.layers.Layer):
    """Vanilla RNN cell: ``h_t = tanh(W x_t + U h_{t−1} + b)``.

    Args:
        units: int, hidden size ``H``.
        recurrent_scale: float > 0, gain of the orthogonal ``U`` (its every singular value). Below 1 the gradient
            vanishes with distance; well above 1 it can explode. Defaults to 1.0.
        seed: int, seeds the initialisers. Defaults to 0.

    Call arguments:
        inputs: `(batch_size, input_dim)` the step's input ``x_t``.
        states: ``[h_{t−1}]``, `(batch_size, units)`.

    Example:
    >>> cell = TanhRNNCell(8)
    >>> keras.layers.RNN(cell)(np.zeros((2, 5, 3), "float32")).shape
    (2, 8)
    """

    def __init__(self, units: int, recurrent_scale: float = 1.0, seed: int = 0, **kwargs):
        super().__init__(**kwargs)
        self.units = check_int(units, "units")
        self.recurrent_scale = check_finite_positive(recurrent_scale, "recurrent_scale")
        self.seed = check_int(seed, "seed", minimum=0)
        self.state_size = [self.units]
        self.output_size = self.units

    def build(self, input_shape):
        input_dim = input_shape[-1]
        self.kernel = self.add_weight(shape=(input_dim, self.units), name="kernel",
                                      initializer=keras.initializers.GlorotUniform(seed=self.seed))
        self.recurrent_kernel = self.add_weight(
            shape=(self.units, self.units), name="recurrent_kernel",
            initializer=keras.initializers.Orthogonal(gain=self.recurrent_scale, seed=self.seed + 1))
        self.bias = self.add_weight(shape=(self.units,), name="bias", initializer="zeros")

    def step(self, x, states, probes=None):
        """One step: ``(x_t (batch, input_dim), [h_{t−1}]) -> {"hidden": h_t}`` (batch, units).

        ``probes``: optional ``{"hidden": δ_t}`` `(batch, units)` added to ``h_t`` (zeros, to read ``∂L/∂h_t``).
        """
        (h,) = states
        hidden = ops.tanh(ops.matmul(x, self.kernel) + ops.matmul(h, self.recurrent_kernel) + self.bias)
        return {"hidden": hidden if probes is None else hidden + probes["hidden"]}

    def call(self, inputs, states):
        h = self.step(inputs, states)["hidden"]
        return h, [h]

    def get_config(self):
        return {**super().get_config(), "units": self.units, "recurrent_scale": self.recurrent_scale,
                "seed": self.seed}


@keras.saving.register_keras_serializable(package="elmo_keras")
class ForgetGateLSTMCell(keras.layers.Layer):
    """LSTM cell with the standard gates and a chosen forget-gate bias.

    ``i, f, o = σ(W_{i,f,o} x_t + U_{i,f,o} h_{t−1} + b_{i,f,o})``, ``c̃ = tanh(W_c x_t + U_c h_{t−1} + b_c)``,
    ``c_t = f ⊙ c_{t−1} + i ⊙ c̃``, ``h_t = o ⊙ tanh(c_t)``; the gates are stored in the order ``i, f, c̃, o``
    (Keras' ``LSTMCell`` layout).

    Args:
        units: int, hidden and cell size ``H``.
        forget_bias: float, initial ``b_f`` (the other biases start at 0). 1.0 is Keras' ``unit_forget_bias``;
            larger values start the forget gate nearer 1 (σ(3) ≈ 0.95). Defaults to 1.0.
        seed: int, seeds the initialisers. Defaults to 0.

    Call arguments:
        inputs: `(batch_size, input_dim)` the step's input ``x_t``.
        states: ``[h_{t−1}, c_{t−1}]``, each `(batch_size, units)`.

    Example:
    >>> cell = ForgetGateLSTMCell(8, forget_bias=3.0)
    >>> keras.layers.RNN(cell)(np.zeros((2, 5, 3), "float32")).shape
    (2, 8)
    """

    def __init__(self, units: int, forget_bias: float = 1.0, seed: int = 0, **kwargs):
        super().__init__(**kwargs)
        self.units = check_int(units, "units")
        self.forget_bias = check_forget_bias(forget_bias)
        self.seed = check_int(seed, "seed", minimum=0)
        self.state_size = [self.units, self.units]
        self.output_size = self.units

    def build(self, input_shape):
        input_dim, units = input_shape[-1], self.units
        self.kernel = self.add_weight(shape=(input_dim, 4 * units), name="kernel",
                                      initializer=keras.initializers.GlorotUniform(seed=self.seed))
        self.recurrent_kernel = self.add_weight(shape=(units, 4 * units), name="recurrent_kernel",
                                                initializer=keras.initializers.Orthogonal(seed=self.seed + 1))
        forget_bias = self.forget_bias

        def bias_initializer(shape, dtype=None):
            return ops.concatenate([ops.zeros((units,), dtype), ops.full((units,), forget_bias, dtype),
                                    ops.zeros((2 * units,), dtype)])

        self.bias = self.add_weight(shape=(4 * units,), name="bias", initializer=bias_initializer)

    def step(self, x, states, probes=None):
        """One step: ``(x_t, [h_{t−1}, c_{t−1}]) -> {"hidden": h_t, "cell": c_t, "forget": f_t}``, each
        `(batch, units)`.

        ``probes``: optional ``{"hidden": δ_t, "cell": ε_t}`` `(batch, units)`, added to ``c_t`` before ``h_t`` is
        computed from it and to ``h_t`` (zeros, to read ``∂L/∂c_t`` and ``∂L/∂h_t``).
        """
        h, c = states
        z = ops.matmul(x, self.kernel) + ops.matmul(h, self.recurrent_kernel) + self.bias  # (B, 4H)
        z_i, z_f, z_c, z_o = ops.split(z, 4, axis=-1)
        forget = ops.sigmoid(z_f)
        cell = forget * c + ops.sigmoid(z_i) * ops.tanh(z_c)
        if probes is not None:
            cell = cell + probes["cell"]
        hidden = ops.sigmoid(z_o) * ops.tanh(cell)
        return {"hidden": hidden if probes is None else hidden + probes["hidden"], "cell": cell, "forget": forget}

    def call(self, inputs, states):
        new = self.step(inputs, states)
        return new["hidden"], [new["hidden"], new["cell"]]

    def get_config(self):
        return {**super().get_config(), "units": self.units, "forget_bias": self.forget_bias, "seed": self.seed}
