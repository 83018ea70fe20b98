"""A stack of projected LSTM layers reading in one direction (the biLM's forward or backward half), as a Keras layer.

The layer owns the cells' weights and its settings; the recurrence itself is ``recurrence.run_stacks``.
``run_lstm_stacks`` runs a forward and a backward stack together, as ``BiLM`` and the taggers' ``BiLSTM`` do.
"""

from __future__ import annotations

import numpy as np

from elmo_keras._backend import is_eager
from elmo_keras._quiet import keras, ops
from elmo_keras.argument_checks import check_int, check_rate
from elmo_keras.layers.matmul_dtype import check_matmul_dtype, kernel_for
from elmo_keras.layers.projected_lstm_cell import ProjectedLSTMCell
from elmo_keras.layers.recurrence import CellWeights, Direction, StackOptions, run_stacks


@keras.saving.register_keras_serializable(package="elmo_keras")
class LSTMStack(keras.layers.Layer):
    """``num_layers`` ``ProjectedLSTMCell`` layers run over a sequence, forward or backward.

    The cell equations are ``recurrence.cell_math``'s; the loop is ``recurrence.run_stacks``: the input matmul
    ``x · W + b`` for all time steps at once, then a symbolic time loop with a hand-written gradient — or, with
    ``unroll=True`` and a length known when tracing, a Python-unrolled loop, which XLA (``jit_compile=True``)
    turns into the fastest inference code. Training keeps ``unroll=False``: the symbolic loop compiles in
    seconds, an unrolled one's gradient in tens.

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
        matmul_dtype: None, or the dtype the matmuls run in at inference (``direction``), e.g. ``"bfloat16"``.
            Defaults to None.

    Returns:
        A list of ``num_layers`` tensors `(batch_size, time, output_dim)`, ``output_dim = projection_dim or units``.

    Example:
        >>> stack = LSTMStack(32, num_layers=2, projection_dim=16, go_backwards=True, use_skip_connections=True)
        >>> mask = np.array([[True] * 5, [True] * 3 + [False] * 2])  # two sentences, 5 and 3 tokens
        >>> layers = stack(np.ones((2, 5, 16), "float32"), mask=mask)
        >>> [tuple(layer.shape) for layer in layers]
        [(2, 5, 16), (2, 5, 16)]
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
        check_int(num_layers, "num_layers")
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

    # -- what the recurrence runner needs ---------------------------------------------------------------------

    @property
    def options(self) -> StackOptions:
        """The settings the runner shares between directions run together (clips, skip connections, unrolling)."""
        return StackOptions(self.cell_clip, self.proj_clip, self.use_skip_connections, self.unroll)

    def direction(self, matmul_dtype=None) -> Direction:
        """This stack's weights, each cast to the compute dtype (as Keras casts a layer's weights in ``call``), and
        its reading direction. The layer must be built.

        Args:
            matmul_dtype: the dtype the kernels are cast to instead (once, here, not at every step), which the
                recurrence's matmuls then run in (``layers.matmul_dtype``), e.g. ``"bfloat16"``; the bias,
                the states and the outputs keep the compute dtype. Defaults to None (the compute dtype).
        """

        def kernel(variable):
            return None if variable is None else kernel_for(variable, matmul_dtype, self.compute_dtype)

        cells = tuple(
            CellWeights(kernel(cell.kernel), ops.cast(cell.bias.value, self.compute_dtype),
                        kernel(cell.recurrent_kernel), kernel(cell.projection_kernel))
            for cell in self.cells
        )
        return Direction(cells, self.go_backwards)

    def dropout_function(self, training=None):
        """``fn(x) -> x``: this stack's dropout between layers (identity outside training), or None without dropout."""
        if self.dropout_layer is None:
            return None
        return lambda x: self.dropout_layer(x, training=training)

    def run(self, inputs, mask=None, initial_states=None, training=None, matmul_dtype=None):
        """Run the stack and also return the final states.

        Args:
            inputs: `(batch_size, time, input_dim)`.
            mask: `(batch_size, time)` bool or None.
            initial_states: None (zeros) or a list of ``num_layers`` pairs ``(h, c)``.
            matmul_dtype: as for ``call``.

        Returns:
            ``(layer_outputs, final_states)``: a list of `(batch_size, time, output_dim)` tensors and a list of
            ``(h, c)`` pairs, `(batch_size, output_dim)` and `(batch_size, units)`.
        """
        check_matmul_dtype(matmul_dtype, training)
        inputs, mask = self._prepared(inputs, mask)
        run = run_stacks(
            [self.direction(matmul_dtype)], inputs, mask, self.options, dropout=self.dropout_function(training),
            initial_states=None if initial_states is None else [initial_states], return_final_states=True,
            name=f"LSTMStack {self.name!r}",
        )
        return run.outputs[0], run.final_states[0]

    def _prepared(self, inputs, mask):
        inputs = ops.convert_to_tensor(inputs, dtype=self.compute_dtype)
        if mask is None:
            mask = ops.ones(ops.shape(inputs)[:2], dtype="bool")
        return inputs, mask

    def call(self, inputs, mask=None, training=None, matmul_dtype=None):
        if not self.stateful:
            return run_lstm_stacks([self], inputs, mask, training=training, matmul_dtype=matmul_dtype)[0]
        if not is_eager(inputs):
            raise RuntimeError(
                "LSTMStack(stateful=True) keeps state between calls and needs eager execution; "
                "call the layer directly (not inside model.predict / a compiled function), or use stateful=False"
            )
        batch = int(ops.shape(inputs)[0])
        outputs, final_states = self.run(inputs, mask=mask, initial_states=self._initial_from_carried(batch),
                                         training=training, matmul_dtype=matmul_dtype)
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


_SHARED_SETTINGS = ("units", "num_layers", "projection_dim", "cell_clip", "proj_clip", "use_skip_connections",
                    "dropout", "unroll")


def run_lstm_stacks(stacks, inputs, mask=None, training=None, matmul_dtype=None):
    """Run one ``LSTMStack``, or two of the same configuration together (a forward and a backward half, as in a
    biLM): one time loop per layer for both, the same outputs as calling each stack alone.

    Args:
        stacks: a list of one or two built, stateless ``LSTMStack`` layers whose settings (all but
            ``go_backwards`` and the weights) are equal. The first stack's dropout applies to both.
        inputs: `(batch_size, time, input_dim)`.
        mask: `(batch_size, time)` bool, real tokens first; None means all real.
        training: bool; also picks the time loop: with training, the one with the hand-written gradient, without,
            the faster inference loop (same outputs; still differentiable, by autodiff).
        matmul_dtype: run the matmuls in this dtype, e.g. ``"bfloat16"`` (``LSTMStack.direction``); inference only.
            Defaults to None (the compute dtype).

    Returns:
        A list with, per stack, a list of ``num_layers`` tensors `(batch_size, time, output_dim)`.

    Raises:
        ValueError: stacks that differ in a shared setting, a stateful stack, or ``matmul_dtype`` with ``training``.
    """
    check_matmul_dtype(matmul_dtype, training)
    first = stacks[0]
    for stack in stacks:
        if stack.stateful:
            raise ValueError(f"LSTMStack {stack.name!r} is stateful: call it on its own, which keeps its state")
        differing = [name for name in _SHARED_SETTINGS if getattr(stack, name) != getattr(first, name)]
        if differing:
            raise ValueError(
                f"LSTMStacks {first.name!r} and {stack.name!r} run together need the same settings; they differ in "
                + ", ".join(f"{name} ({getattr(first, name)!r} vs {getattr(stack, name)!r})" for name in differing)
            )
    inputs, mask = first._prepared(inputs, mask)
    names = " and ".join(repr(stack.name) for stack in stacks)
    run = run_stacks([stack.direction(matmul_dtype) for stack in stacks], inputs, mask, first.options,
                     dropout=first.dropout_function(training), name=f"LSTMStack {names}", for_training=bool(training))
    return run.outputs
