"""One runner for a stack of projected LSTM layers, reading in one direction or in two at once.

Shapes: ``D`` directions run together (1 or 2), ``B`` batch, ``T`` time, ``U`` units, ``H`` each layer's output
width (``projection_dim`` or ``U``).

Per layer: dropout on the layer's input (layers 2..n, through the caller's ``dropout``), ``x · W + b`` for all
steps at once, the time loop, the skip connection (layers 2..n). A backward direction reads each sentence right
to left within its own length: its input is reversed within length before the first layer and its outputs are
reversed back at the end. Padding follows each sequence's real steps and the loop is causal, so the loop runs
unmasked: padded outputs are zeroed and the final states are read at each sequence's last real step.

Which loop runs (all three give the same outputs; ``sequence_loop`` has them):

- ``unroll`` with a length known when tracing: ``unrolled_sequence`` per direction — what XLA turns into the
  fastest inference code. Each direction keeps its own 2-D products, which XLA runs side by side.
- a start state given, or the final states wanted: ``scanned_sequence`` (autodiff).
- for training (``for_training``): ``lstm_sequence`` with its hand-written gradient, one loop per direction
  with 2-D products, which the graph runs side by side.
- otherwise (graph inference) ``side_by_side_sequences``: both directions in one loop that keeps only ``h``.

Measured by ``benchmarks/bilm_throughput.py`` (docs/speed.md, "Two directions in one loop"): stacking the two
directions on a leading axis of 2 in one loop — `(2, B, ·)` states, `(2, H, 4U)` kernels, half the iterations — was
slower for training and for inference than this layout: the per-step stacking copies and the transposes of the
4U-wide gates cost more than the iterations saved. The input gates are made time-major by transposing the
narrow inputs instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from elmo_keras._backend import fused_elementwise
from elmo_keras._quiet import keras, ops
from elmo_keras.layers.input_checks import check_left_aligned
from elmo_keras.layers.matmul_dtype import matrix, product
from elmo_keras.layers.recurrence.sequence_loop import (
    lstm_sequence,
    scanned_sequence,
    side_by_side_sequences,
    unrolled_sequence,
)
from elmo_keras.layers.sequence_ops import reverse_within_length, sequence_lengths


class CellWeights(NamedTuple):
    """One layer's weights in one direction, as tensors: the bias in the compute dtype, the kernels in the compute
    dtype or in the dtype the matmuls run in (``layers.matmul_dtype``: bfloat16 kernels, float32 results)."""

    kernel: Any  # (input_dim, 4U)
    bias: Any  # (4U,)
    recurrent_kernel: Any  # (H, 4U)
    projection_kernel: Any = None  # (U, H), or None without a projection (then H = U)


class Direction(NamedTuple):
    """One reading direction of a stack: its layers' weights, first layer first."""

    cells: Sequence[CellWeights]
    go_backwards: bool = False


class StackOptions(NamedTuple):
    """The settings that every direction run together shares."""

    cell_clip: float | None = None
    proj_clip: float | None = None
    use_skip_connections: bool = False
    unroll: bool = False


class StackRun(NamedTuple):
    """What ``run_stacks`` returns."""

    outputs: list  # per direction, per layer: (B, T, H), zero at padding, in left-to-right order
    final_states: list | None  # per direction, per layer: (h (B, H), c (B, U)); None unless asked for


def run_stacks(
    directions: Sequence[Direction],
    inputs,
    mask,
    options: StackOptions = StackOptions(),
    dropout: Callable | None = None,
    initial_states: Sequence[Sequence[tuple]] | None = None,
    return_final_states: bool = False,
    name: str = "LSTM stack",
    for_training: bool = True,
) -> StackRun:
    """Run one or two directions of the same depth over ``inputs``.

    Args:
        directions: one or two ``Direction``s with the same number of layers and the same widths.
        inputs: `(B, T, input_dim)` in the weights' dtype.
        mask: `(B, T)` bool, left-aligned (real tokens first).
        options: clips, skip connections and unrolling, shared by all directions.
        dropout: ``fn(x) -> x`` applied to the input of layers 2..n (all directions at once, `(D, B, T, H)`),
            or None.
        initial_states: None (zero state) or, per direction, per layer, ``(h (B, H), c (B, U))``. A backward
            direction starts at each sentence's last real token.
        return_final_states: also return the state reached at each sentence's end (for a backward direction:
            at its start). Rows without real tokens keep their initial state.
        name: how errors name the caller.
        for_training: True: the loop with the hand-written gradient (a fast backward pass); False: the inference
            loop (faster forward, differentiable by autodiff only). The outputs are the same.

    Returns:
        A ``StackRun``.
    """
    if len(directions) not in (1, 2):
        raise ValueError(f"{name}: run one or two directions together, received {len(directions)}")
    depth = len(directions[0].cells)
    if any(len(direction.cells) != depth for direction in directions):
        raise ValueError(f"{name}: directions run together need the same number of layers, "
                         f"received {[len(direction.cells) for direction in directions]}")
    mask = ops.cast(mask, "bool")
    check_left_aligned(mask, name)
    # every direction's input side by side: (D, B, T, input_dim), a backward one reversed within each length
    layer_input = ops.stack([
        reverse_within_length(inputs, mask) if direction.go_backwards else inputs for direction in directions
    ])
    outputs = [[] for _ in directions]
    final_states = [[] for _ in directions] if return_final_states else None
    for index in range(depth):
        if index > 0 and dropout is not None:
            layer_input = dropout(layer_input)
        cells = [direction.cells[index] for direction in directions]
        starts = None if initial_states is None else [states[index] for states in initial_states]
        output, finals = _run_layer(cells, layer_input, mask, options, starts, return_final_states, for_training)
        if index > 0 and options.use_skip_connections:
            output = output + layer_input
        for position, direction_output in enumerate(ops.unstack(output, len(directions))):  # cheaper than [d]
            outputs[position].append(direction_output)
            if final_states is not None:
                final_states[position].append(finals[position])
        layer_input = output
    for position, direction in enumerate(directions):
        if direction.go_backwards:
            outputs[position] = [reverse_within_length(output, mask) for output in outputs[position]]
    return StackRun(outputs, final_states)


def _zero_state(cell: CellWeights, batch, dtype) -> tuple:
    units = cell.recurrent_kernel.shape[-1] // 4
    return ops.zeros((batch, cell.recurrent_kernel.shape[-2]), dtype), ops.zeros((batch, units), dtype)


def _input_gates(cells: Sequence[CellWeights], inputs):
    """``x · W + b`` of every direction in one batched matmul: `(D, B, T, in)` → `(D, B, T, 4U)`."""
    kernel = ops.stack([matrix(cell.kernel) for cell in cells])  # (D, in, 4U)
    bias = ops.stack([cell.bias for cell in cells])  # (D, 4U)
    shape = ops.shape(inputs)
    flat = ops.reshape(inputs, (len(cells), -1, shape[-1]))  # (D, B·T, in)
    gates = product(flat, kernel) + bias[:, None, :]
    return ops.reshape(gates, (len(cells), shape[1], shape[2], -1))


def _stacked(tensors):
    return None if tensors[0] is None else ops.stack([matrix(tensor) for tensor in tensors])


def _time_major_gates(cell: CellWeights, inputs):
    """``x · W + b`` of one direction, time-major: `(B, T, in)` → `(T, B, 4U)` (the narrow input is transposed)."""
    inputs = ops.swapaxes(inputs, 0, 1)  # (T, B, in)
    shape = ops.shape(inputs)
    gates = product(ops.reshape(inputs, (-1, shape[-1])), cell.kernel) + cell.bias
    return ops.reshape(gates, (shape[0], shape[1], -1))


def _narrowed(cell: CellWeights, inputs) -> bool:
    """Whether ``cell``'s matmuls run in another dtype than ``inputs`` (``layers.matmul_dtype``)."""
    dtype = keras.backend.standardize_dtype
    return dtype(cell.recurrent_kernel.dtype) != dtype(inputs.dtype)


def _run_layer(cells, inputs, mask, options, starts, return_final_states, for_training=True):
    """One layer in every direction: inputs `(D, B, T, in)` → outputs `(D, B, T, H)` (zero at padding) and, when
    asked for, the final ``(h, c)`` of each direction."""
    clips = (options.cell_clip, options.proj_clip)
    batch, steps = ops.shape(inputs)[1], inputs.shape[2]
    if starts is None and (return_final_states or (options.unroll and steps is not None)):
        starts = [_zero_state(cell, batch, inputs.dtype) for cell in cells]
    elif starts is not None:  # given states (NumPy, for a stateful stack) as tensors of the inputs' dtype, once
        starts = [(ops.convert_to_tensor(h, inputs.dtype), ops.convert_to_tensor(c, inputs.dtype)) for h, c in starts]
    all_c = None
    if options.unroll and steps is not None:
        per_direction = []
        for position, cell in enumerate(cells):
            direction_input = inputs[position]
            shape = ops.shape(direction_input)
            flat = ops.reshape(direction_input, (-1, shape[-1]))  # (B·T, in)
            gates = ops.reshape(product(flat, cell.kernel) + cell.bias, (shape[0], shape[1], -1))  # (B, T, 4U)
            per_direction.append(unrolled_sequence(gates, *starts[position], cell.recurrent_kernel,
                                                   cell.projection_kernel, *clips))
        all_h = ops.stack([h for h, _ in per_direction])  # (D, B, T, H)
        if return_final_states:
            all_c = ops.stack([c for _, c in per_direction])
    elif starts is None:
        direction_inputs = ops.unstack(inputs, len(cells))
        gates = [_time_major_gates(cell, direction_input) for cell, direction_input in zip(cells, direction_inputs)]
        if for_training:  # one loop per direction: the graph runs them side by side
            per_direction = [lstm_sequence(direction_gates, cell.recurrent_kernel, cell.projection_kernel, *clips)
                             for direction_gates, cell in zip(gates, cells)]
        else:  # narrowed (bfloat16) matmuls: the casts between them are worth fusing with the gates' arithmetic
            fuse = fused_elementwise if _narrowed(cells[0], inputs) else None
            per_direction = side_by_side_sequences(gates, [cell.recurrent_kernel for cell in cells],
                                                   [cell.projection_kernel for cell in cells], *clips, fuse=fuse)
        all_h = ops.stack([ops.swapaxes(h, 0, 1) for h in per_direction])  # (D, B, T, H)
    else:
        gates = ops.moveaxis(_input_gates(cells, inputs), 2, 0)  # (T, D, B, 4U)
        recurrent = _stacked([cell.recurrent_kernel for cell in cells])  # (D, H, 4U)
        projection = _stacked([cell.projection_kernel for cell in cells])  # (D, U, H) or None
        h0, c0 = ops.stack([h for h, _ in starts]), ops.stack([c for _, c in starts])  # (D, B, ·)
        all_h, all_c = scanned_sequence(gates, h0, c0, recurrent, projection, *clips)
        all_c = ops.moveaxis(all_c, 0, 2)
        all_h = ops.moveaxis(all_h, 0, 2)  # (D, B, T, H)
    outputs = all_h * ops.cast(mask, all_h.dtype)[None, :, :, None]
    if not return_final_states:
        return outputs, None
    lengths = sequence_lengths(mask)  # (B,)
    last = ops.reshape(ops.maximum(lengths - 1, 0), (-1, 1, 1))
    empty = ops.reshape(lengths == 0, (-1, 1))
    finals = []
    for position, (h0, c0) in enumerate(starts):
        final_h = ops.where(empty, h0, ops.take_along_axis(all_h[position], last, axis=1)[:, 0])
        final_c = ops.where(empty, c0, ops.take_along_axis(all_c[position], last, axis=1)[:, 0])
        finals.append((final_h, final_c))
    return outputs, finals
