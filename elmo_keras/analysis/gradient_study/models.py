"""``RecurrentClassifier``: a vanilla RNN or an LSTM read at its last step, with every state open to the gradient.

``trajectory(inputs, probes)`` runs the cell over time and adds a zero *probe* to each state right after the step
that makes it (``h_t ← h_t + δ_t``, and ``c_t ← c_t + ε_t`` for the LSTM). The probes change no value, and
``∂L/∂δ_t = ∂L/∂h_t`` (all paths from ``h_t`` to the loss, through every later step), on every backend: the
gradient with respect to an input tensor is all ``_backend.input_gradients`` needs.
"""

from __future__ import annotations

from elmo_keras._quiet import keras, ops
from elmo_keras.analysis.gradient_study.cells import ForgetGateLSTMCell, TanhRNNCell, check_forget_bias
from elmo_keras.argument_checks import check_finite_positive, check_int

CELL_TYPES = ("rnn", "lstm")
CELL_LABELS = {"rnn": "vanilla RNN", "lstm": "LSTM"}


@keras.saving.register_keras_serializable(package="elmo_keras")
class RecurrentClassifier(keras.Model):
    """A recurrent cell over a sequence, then a linear layer on the last state: ``logits = V h_T + a``.

    Args:
        cell_type: ``"rnn"`` (``TanhRNNCell``) or ``"lstm"`` (``ForgetGateLSTMCell``).
        units: int, hidden size ``H``. Defaults to 32.
        num_classes: int, output classes ``K``. Defaults to 4.
        recurrent_scale: float > 0, the vanilla RNN's recurrent gain (ignored by the LSTM). Defaults to 1.0.
        forget_bias: float, the LSTM's initial forget-gate bias (ignored by the RNN). Defaults to 1.0.
        seed: int, seeds every initialiser. Defaults to 0.

    Call arguments:
        inputs: float `(batch_size, sequence_length, input_dim)` (one-hot tokens in the toy task).
        mask: optional bool `(batch_size, sequence_length)`; a masked step leaves the state as it was, so the
            logits read the state after the last unmasked step.

    Returns:
        logits `(batch_size, num_classes)`.

    Example:
    >>> model = RecurrentClassifier("lstm", units=8)
    >>> model(np.zeros((2, 5, 3), "float32")).shape
    (2, 4)
    """

    def __init__(self, cell_type: str, units: int = 32, num_classes: int = 4, recurrent_scale: float = 1.0,
                 forget_bias: float = 1.0, seed: int = 0, **kwargs):
        super().__init__(**kwargs)
        if cell_type not in CELL_TYPES:
            raise ValueError(f"cell_type must be one of {CELL_TYPES}, received {cell_type!r}")
        self.cell_type = cell_type
        self.units = check_int(units, "units")
        self.num_classes = check_int(num_classes, "num_classes")
        self.recurrent_scale = check_finite_positive(recurrent_scale, "recurrent_scale")
        self.forget_bias = check_forget_bias(forget_bias)
        self.seed = seed
        if cell_type == "rnn":
            self.cell = TanhRNNCell(units, recurrent_scale=recurrent_scale, seed=seed, name="cell",
                                    dtype=self.dtype_policy)
        else:
            self.cell = ForgetGateLSTMCell(units, forget_bias=forget_bias, seed=seed, name="cell",
                                           dtype=self.dtype_policy)
        self.head = keras.layers.Dense(num_classes, name="head", dtype=self.dtype_policy,
                                       kernel_initializer=keras.initializers.GlorotUniform(seed=seed + 2))

    @property
    def label(self) -> str:
        """``"vanilla RNN"`` or ``"LSTM"``."""
        return CELL_LABELS[self.cell_type]

    def build(self, input_shape):
        if len(input_shape) != 3:
            raise ValueError(f"inputs must be (batch, sequence_length, input_dim), received shape {input_shape}")
        self.cell.build((input_shape[0], input_shape[-1]))
        self.head.build((input_shape[0], self.units))

    def trajectory(self, inputs, probes=None, mask=None) -> dict:
        """Run the cell over time and return every state.

        Args:
            inputs: float `(B, T, input_dim)`.
            probes: optional dict with ``"hidden"`` and (LSTM) ``"cell"``, each `(B, T, H)`, added to the state
                of the same step (zeros to differentiate through them). Defaults to none.
            mask: optional bool `(B, T)`. Defaults to none (every step is real).

        Returns:
            ``{"logits": (B, K), "hidden": (B, T, H)}``, plus ``"cell"`` and ``"forget"`` `(B, T, H)` for the
            LSTM.
        """
        inputs = ops.convert_to_tensor(inputs, dtype=self.compute_dtype)
        if not self.built:  # called directly, before any __call__
            self.build(tuple(inputs.shape))
        batch, steps = ops.shape(inputs)[0], inputs.shape[1]
        if steps is None:
            raise ValueError("inputs need a known sequence_length (the loop over time is unrolled)")
        names = ["hidden"] + (["cell"] if self.cell_type == "lstm" else [])
        states = [ops.zeros((batch, self.units), self.compute_dtype) for _ in names]
        history = {name: [] for name in names + (["forget"] if self.cell_type == "lstm" else [])}
        for t in range(steps):
            new = self.cell.step(inputs[:, t], states,
                                 None if probes is None else {name: probes[name][:, t] for name in names})
            if mask is not None:
                keep = ops.expand_dims(ops.cast(mask[:, t], self.compute_dtype), -1)  # (B, 1)
                new = {**new, **{name: keep * new[name] + (1 - keep) * old for name, old in zip(names, states)}}
            states = [new[name] for name in names]
            for name in history:
                history[name].append(new[name])
        result = {name: ops.stack(values, axis=1) for name, values in history.items()}
        result["logits"] = self.head(states[0])
        return result

    def call(self, inputs, mask=None):
        return self.trajectory(inputs, mask=mask)["logits"]

    def compute_output_shape(self, input_shape):
        return (input_shape[0], self.num_classes)

    def get_config(self):
        return {"cell_type": self.cell_type, "units": self.units, "num_classes": self.num_classes,
                "recurrent_scale": self.recurrent_scale, "forget_bias": self.forget_bias, "seed": self.seed,
                "name": self.name}
