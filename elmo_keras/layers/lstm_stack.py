"""A fast stack of projected LSTM layers reading in one direction (the biLM's forward or backward half)."""

from __future__ import annotations

import numpy as np
from keras import ops

from elmo_keras._backend import is_eager, scan_time
from elmo_keras._quiet import keras
from elmo_keras.argument_checks import check_positive_int, check_rate
from elmo_keras.layers.input_checks import check_left_aligned
from elmo_keras.layers.projected_lstm_cell import ProjectedLSTMCell
from elmo_keras.layers.sequence_ops import reverse_within_length, sequence_lengths


@keras.saving.register_keras_serializable(package="elmo_keras")
class LSTMStack(keras.layers.Layer):
    """``num_layers`` ``ProjectedLSTMCell`` layers run over a sequence, forward or backward.

    The cell equations live in ``ProjectedLSTMCell.recurrent_step``; this layer only runs them fast: the
    input matmul ``x · W + b`` is computed for all time steps at once, and the time loop is a symbolic loop
    (``_backend.scan_time``) — or, with ``unroll=True`` and a length known when tracing, a Python-unrolled
    loop, which XLA (``jit_compile=True``) turns into the fastest inference code. Training keeps
    ``unroll=False``: the symbolic loop's gradient compiles with XLA in seconds, an unrolled one in tens.

    Masking: padded outputs are zero and the final state is the one at each sequence's last real step, so
    padding never changes the outputs or states of real steps (masks must be left-aligned: real tokens
    first). With ``go_backwards=True`` each sequence is read right-to-left *within its own
    length* (its last real token first); outputs are returned in the original (left-to-right) order.
    Skip connections (``use_skip_connections``) add each layer's input to its output for layers 2..n, as in
    ELMo. Dropout is applied between layers (to the input of layers 2..n) in training only.

    Stateless by default: every call starts from zero state. With ``stateful=True`` (the original ELMo
    behaviour, an explicit opt-in, eager execution only) the final state of each batch row is kept and used
    as the initial state of the same row in the next call: a smaller batch reads and updates only its first
    rows, a larger batch starts its extra rows from zero. ``reset_states()`` forgets everything. For a
    backward stack the kept state is the one reached at the sentence start.

    Args:
        units: memory cells per layer.
        num_layers: number of stacked layers.
        projection_dim, cell_clip, proj_clip: see ``ProjectedLSTMCell``.
        go_backwards: read right-to-left within each sentence.
        use_skip_connections: residual connections between layers.
        dropout: dropout rate between layers, in training only.
        stateful: carry state across calls (see above).
        unroll: unroll the time loop when the length is static (for compiled inference).

    Call arguments:
        inputs: `(batch_size, time, input_dim)`.
        mask: `(batch_size, time)` bool, real tokens first. Defaults to all true.
        training: bool.

    Returns:
        A list of ``num_layers`` tensors `(batch_size, time, output_dim)`, ``output_dim = projection_dim or units``.
    """

    def __init__(
        self,
        units,
        num_layers=1,
        projection_dim=None,
        cell_clip=None,
        proj_clip=None,
        go_backwards=False,
        use_skip_connections=False,
        dropout=0.0,
        stateful=False,
        unroll=False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        check_positive_int(num_layers, "num_layers")
        check_rate(dropout)
        self.units = units
        self.num_layers = num_layers
        self.projection_dim = projection_dim
        self.cell_clip = cell_clip
        self.proj_clip = proj_clip
        self.go_backwards = bool(go_backwards)
        self.use_skip_connections = bool(use_skip_connections)
        self.dropout = float(dropout)
        self.stateful = bool(stateful)
        self.unroll = bool(unroll)
        self.supports_masking = True
        self.cells = [
            ProjectedLSTMCell(
                units, projection_dim=projection_dim, cell_clip=cell_clip, proj_clip=proj_clip,
                dtype=self.dtype_policy, name=f"cell_{i}",
            )
            for i in range(num_layers)
        ]
        self.output_dim = self.cells[0].output_size
        self.dropout_layer = (
            keras.layers.Dropout(self.dropout, dtype=self.dtype_policy, name="dropout") if self.dropout > 0 else None
        )
        self._carried_states = None  # stateful mode: list of (h, c) NumPy arrays, one pair per layer

    def build(self, input_shape):
        input_dim = input_shape[-1]
        for i, cell in enumerate(self.cells):
            cell.build((None, input_dim if i == 0 else self.output_dim))

    # -- the loop ---------------------------------------------------------------------------------------------

    def _run_layer(self, cell, inputs, mask, h, c):
        """inputs `(B, T, D)`, mask `(B, T)` bool → outputs `(B, T, out)` (zero at padding), final (h, c).

        Padding comes after a sequence's real steps (the backward stack reverses within each length first),
        and the recurrence is causal, so padded steps cannot change the outputs at real steps: the loop runs
        unmasked and only the final state is read at each sequence's last real step.
        """
        gates = cell.input_gates(inputs)  # (B, T, 4U): the input matmul, hoisted out of the loop
        steps = inputs.shape[1]
        if self.unroll and steps is not None:
            hs, cs = [], []
            state_h, state_c = h, c
            for t in range(steps):
                state_h, state_c = cell.recurrent_step(gates[:, t], state_h, state_c)
                hs.append(state_h)
                cs.append(state_c)
            all_h, all_c = ops.stack(hs, axis=1), ops.stack(cs, axis=1)  # (B, T, out), (B, T, U)
        else:

            def step(carry, gate_t):
                new_h, new_c = cell.recurrent_step(gate_t, carry[0], carry[1])
                return (new_h, new_c), (new_h, new_c)

            _, (all_h, all_c) = scan_time(step, (h, c), ops.moveaxis(gates, 1, 0))
            all_h, all_c = ops.moveaxis(all_h, 0, 1), ops.moveaxis(all_c, 0, 1)
        outputs = all_h * ops.expand_dims(ops.cast(mask, all_h.dtype), -1)
        lengths = sequence_lengths(mask)  # (B,)
        last = ops.reshape(ops.maximum(lengths - 1, 0), (-1, 1, 1))
        empty = ops.reshape(lengths == 0, (-1, 1))
        final_h = ops.where(empty, h, ops.take_along_axis(all_h, last, axis=1)[:, 0])
        final_c = ops.where(empty, c, ops.take_along_axis(all_c, last, axis=1)[:, 0])
        return outputs, final_h, final_c

    def run(self, inputs, mask=None, initial_states=None, training=None):
        """Run the stack and also return the final states.

        Args:
            inputs: `(batch_size, time, input_dim)`.
            mask: `(batch_size, time)` bool or None.
            initial_states: None (zeros) or a list of ``num_layers`` pairs ``(h, c)``.

        Returns:
            ``(layer_outputs, final_states)``: a list of `(batch_size, time, output_dim)` tensors and a list of
            ``(h, c)`` pairs, `(batch_size, output_dim)` and `(batch_size, units)`.
        """
        inputs = ops.convert_to_tensor(inputs, dtype=self.compute_dtype)
        if mask is None:
            mask = ops.ones(ops.shape(inputs)[:2], dtype="bool")
        mask = ops.cast(mask, "bool")
        check_left_aligned(mask, f"LSTMStack {self.name!r}")
        if self.go_backwards:
            inputs = reverse_within_length(inputs, mask)
        batch = ops.shape(inputs)[0]
        layer_input = inputs
        outputs, final_states = [], []
        for i, cell in enumerate(self.cells):
            if initial_states is None:
                h = ops.zeros((batch, cell.output_size), dtype=self.compute_dtype)
                c = ops.zeros((batch, cell.units), dtype=self.compute_dtype)
            else:
                h, c = (ops.convert_to_tensor(s, dtype=self.compute_dtype) for s in initial_states[i])
            if i > 0 and self.dropout_layer is not None:
                layer_input = self.dropout_layer(layer_input, training=training)
            output, h, c = self._run_layer(cell, layer_input, mask, h, c)
            if i > 0 and self.use_skip_connections:
                output = output + layer_input
            outputs.append(output)
            final_states.append((h, c))
            layer_input = output
        if self.go_backwards:
            outputs = [reverse_within_length(output, mask) for output in outputs]
        return outputs, final_states

    def call(self, inputs, mask=None, training=None):
        if not self.stateful:
            return self.run(inputs, mask=mask, training=training)[0]
        if not is_eager(inputs):
            raise RuntimeError(
                "LSTMStack(stateful=True) keeps state between calls and needs eager execution; "
                "call the layer directly (not inside model.predict / a compiled function), or use stateful=False"
            )
        batch = int(ops.shape(inputs)[0])
        outputs, final_states = self.run(inputs, mask=mask, initial_states=self._initial_from_carried(batch),
                                         training=training)
        self._store_carried(final_states, batch)
        return outputs

    # -- stateful bookkeeping (eager, NumPy) ------------------------------------------------------------------

    def _initial_from_carried(self, batch):
        states = []
        for i, cell in enumerate(self.cells):
            h = np.zeros((batch, cell.output_size), dtype=np.float32)
            c = np.zeros((batch, cell.units), dtype=np.float32)
            if self._carried_states is not None:
                carried_h, carried_c = self._carried_states[i]
                rows = min(batch, carried_h.shape[0])
                h[:rows], c[:rows] = carried_h[:rows], carried_c[:rows]
            states.append((h, c))
        return states

    def _store_carried(self, final_states, batch):
        new_states = []
        for i, (h, c) in enumerate(final_states):
            h, c = ops.convert_to_numpy(h), ops.convert_to_numpy(c)
            if self._carried_states is not None and self._carried_states[i][0].shape[0] > batch:
                old_h, old_c = self._carried_states[i]
                h = np.concatenate([h, old_h[batch:]])
                c = np.concatenate([c, old_c[batch:]])
            new_states.append((h, c))
        self._carried_states = new_states

    def reset_states(self):
        """Forget the carried state (stateful mode); the next call starts from zero state."""
        self._carried_states = None

    def compute_mask(self, inputs, mask=None):
        return [mask] * self.num_layers

    def compute_output_shape(self, input_shape):
        return [tuple(input_shape[:-1]) + (self.output_dim,)] * self.num_layers

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "units": self.units,
                "num_layers": self.num_layers,
                "projection_dim": self.projection_dim,
                "cell_clip": self.cell_clip,
                "proj_clip": self.proj_clip,
                "go_backwards": self.go_backwards,
                "use_skip_connections": self.use_skip_connections,
                "dropout": self.dropout,
                "stateful": self.stateful,
                "unroll": self.unroll,
            }
        )
        return config
