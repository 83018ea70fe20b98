"""LSTM cell with an optional projection of the output and optional clipping (the ELMo cell), as a Keras layer.

The equations (with shapes) are in ``elmo_keras.layers.recurrence.cell_math``, their single source; this layer
owns the weights and runs one step, so that it works under ``keras.layers.RNN``. ``LSTMStack`` runs whole
sequences with the same weights through ``recurrence.stack_runner``.
"""

from __future__ import annotations

from elmo_keras._quiet import keras, ops
from elmo_keras.argument_checks import check_finite_positive, check_int
from elmo_keras.layers.recurrence.cell_math import lstm_step


@keras.saving.register_keras_serializable(package="elmo_keras")
class ProjectedLSTMCell(keras.layers.Layer):
    """An LSTM cell usable with ``keras.layers.RNN``, with optional projection and clipping.

    Args:
        units: int, number of memory cells.
        projection_dim: int or None; if set, the output (and recurrent state ``h``) is ``m_t · P`` of this size.
            Defaults to None (no projection).
        cell_clip: float > 0 or None; if set, the memory cell is clipped to ``[-cell_clip, cell_clip]``.
            Defaults to None.
        proj_clip: float > 0 or None; if set (needs ``projection_dim``), the projected output is clipped likewise.
            Defaults to None.
        kernel_initializer, recurrent_initializer, projection_initializer: Keras initializers (names or objects)
            of ``W``, ``U`` and ``P``. Default to ``"glorot_uniform"``, ``"orthogonal"``, ``"glorot_uniform"``.
        unit_forget_bias: bool, initialise the forget-gate bias to 1 (TensorFlow's cell adds that 1 at run time).
            Defaults to True.

    Call arguments:
        inputs: `(batch_size, input_dim)`.
        states: `[h, c]` with shapes `(batch_size, output_size)` and `(batch_size, units)`;
            ``output_size = projection_dim or units``.

    Returns:
        `(h_t, [h_t, c_t])`, shapes as ``states``.

    Example:
        >>> cell = ProjectedLSTMCell(64, projection_dim=16, cell_clip=3.0, proj_clip=3.0)
        >>> outputs = keras.layers.RNN(cell, return_sequences=True)(keras.ops.ones((2, 5, 8)))
        >>> tuple(outputs.shape), cell.state_size
        ((2, 5, 16), [16, 64])
    """

    def __init__(
        self,
        units,
        projection_dim=None,
        cell_clip=None,
        proj_clip=None,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        projection_initializer="glorot_uniform",
        unit_forget_bias=True,
        **kwargs,
    ):
        super().__init__(**kwargs)
        check_int(units, "units")
        self.units = units
        self.projection_dim = check_int(projection_dim, "projection_dim", allow_none=True)
        self.cell_clip = None if cell_clip is None else check_finite_positive(cell_clip, "cell_clip")
        self.proj_clip = None if proj_clip is None else check_finite_positive(proj_clip, "proj_clip")
        if self.proj_clip is not None and self.projection_dim is None:
            raise ValueError(f"proj_clip={proj_clip!r} needs projection_dim (the clip applies to the projection)")
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.recurrent_initializer = keras.initializers.get(recurrent_initializer)
        self.projection_initializer = keras.initializers.get(projection_initializer)
        self.unit_forget_bias = bool(unit_forget_bias)
        self.output_size = self.projection_dim or self.units
        self.state_size = [self.output_size, self.units]

    def build(self, input_shape):
        input_dim = input_shape[-1]
        self.kernel = self.add_weight(
            shape=(input_dim, 4 * self.units), initializer=self.kernel_initializer, name="kernel"
        )
        self.recurrent_kernel = self.add_weight(
            shape=(self.output_size, 4 * self.units), initializer=self.recurrent_initializer, name="recurrent_kernel"
        )
        units = self.units

        def bias_initializer(shape, dtype=None):
            bias = ops.zeros(shape, dtype=dtype)
            if not self.unit_forget_bias:
                return bias
            return ops.concatenate([bias[:units], ops.ones((units,), dtype=dtype), bias[2 * units :]])

        self.bias = self.add_weight(shape=(4 * self.units,), initializer=bias_initializer, name="bias")
        if self.projection_dim is not None:
            self.projection_kernel = self.add_weight(
                shape=(self.units, self.projection_dim), initializer=self.projection_initializer,
                name="projection_kernel"
            )
        else:
            self.projection_kernel = None

    def input_gates(self, inputs):
        """``x · W + b`` for all steps at once.

        Args:
            inputs: `(..., input_dim)`, any leading shape (e.g. `(batch, time, input_dim)`).

        Returns:
            `(..., 4 * units)`, the four gates' input terms.
        """
        return ops.matmul(inputs, self.kernel) + self.bias

    def recurrent_step(self, input_gates, h, c):
        """One step from precomputed ``x_t · W + b``.

        Args:
            input_gates: `(batch, 4 * units)`, a slice of ``input_gates(inputs)``.
            h: `(batch, output_size)`, the previous output.
            c: `(batch, units)`, the previous memory cell.

        Returns:
            ``(h_t, c_t)``, shapes as ``h`` and ``c``.
        """
        return lstm_step(input_gates, h, c, self.recurrent_kernel, self.projection_kernel, self.cell_clip,
                         self.proj_clip)

    def call(self, inputs, states, training=None):
        h, c = self.recurrent_step(self.input_gates(inputs), states[0], states[1])
        return h, [h, c]

    def get_initial_state(self, batch_size=None):
        return [
            ops.zeros((batch_size, self.output_size), dtype=self.compute_dtype),
            ops.zeros((batch_size, self.units), dtype=self.compute_dtype),
        ]

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "units": self.units,
                "projection_dim": self.projection_dim,
                "cell_clip": self.cell_clip,
                "proj_clip": self.proj_clip,
                "kernel_initializer": keras.initializers.serialize(self.kernel_initializer),
                "recurrent_initializer": keras.initializers.serialize(self.recurrent_initializer),
                "projection_initializer": keras.initializers.serialize(self.projection_initializer),
                "unit_forget_bias": self.unit_forget_bias,
            }
        )
        return config
