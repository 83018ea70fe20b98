"""Row-sparse optimizer updates on each engine (``models.sparse_optimizers``): the rows of a variable that a step's
gradient touched, and an update written back to those rows only.

A *row* is a slice along ``axis``: a word embedding's row (axis 0), a softmax kernel's column (axis 1 of
`(dim, vocab)`), a bias entry (axis 0). A row is *touched* when its gradient, summed over the batch, is not all
zero: one definition on every engine, so that the three take the same steps.

- TensorFlow: ``touched_slices`` turns the gradient into ``tf.IndexedSlices`` of the touched rows only, before the
  optimizer clips it (so clipping reads and scales those rows, not the whole tensor). An embedding's gradient
  arrives as slices already, one per token: the slices of a repeated id are summed (``tf.unique`` + a segment sum).
  A dense gradient (the softmax kernel's: TensorFlow's gradient of a gather along axis 1 is dense) is scanned for
  non-zero rows. Columns travel as the slices of the transposed gradient. ``update_touched_rows`` gathers those
  rows of the weight and its slots, updates them and writes them back in place (``scatter_update``,
  ``scatter_nd_update``); under a ``tf.distribute`` strategy columns are updated as on JAX below (its mirrored
  variables have no ``scatter_nd_update``).
- PyTorch: the gradient stays dense (and is clipped whole); its non-zero rows are found (``nonzero``), and the rows
  written back in place (``index_copy_``).
- JAX (and any other engine): ``jax.jit`` needs static shapes, and the number of touched rows changes every step,
  so the update is computed for every row and kept only in the touched ones (``where``): the same numbers, without
  the saving.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from elmo_keras._quiet import keras, ops


def touched_slices(gradient, axis: int):
    """TensorFlow: ``gradient`` as ``tf.IndexedSlices`` holding each touched row once (repeated ids summed, all-zero
    rows dropped); along ``axis`` 1, the slices of the transposed gradient. Other engines: ``gradient`` as it is.

    Args:
        gradient: a dense gradient, a ``tf.IndexedSlices`` (rows, ``axis`` 0), or None (returned as it is).
        axis: int, the row axis: 0, or 1 for the columns of a 2-D variable.

    Returns:
        On TensorFlow ``tf.IndexedSlices``: values `(k, *row_shape)` (`(k, dim)` for columns), indices `(k,)`.
    """
    if keras.backend.backend() != "tensorflow" or gradient is None:
        return gradient
    import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

    if isinstance(gradient, tf.IndexedSlices):
        if axis != 0:
            raise ValueError(f"a tf.IndexedSlices gradient indexes rows (axis 0), received axis={axis}")
        unique_ids, positions = tf.unique(gradient.indices)
        values = tf.math.unsorted_segment_sum(gradient.values, positions, tf.shape(unique_ids)[0])
        touched = tf.reduce_any(tf.not_equal(values, 0), axis=_other_axes(values.shape.rank, 0))
        return tf.IndexedSlices(tf.boolean_mask(values, touched), tf.boolean_mask(unique_ids, touched),
                                gradient.dense_shape)
    gradient = tf.convert_to_tensor(gradient)
    touched = tf.reduce_any(tf.not_equal(gradient, 0), axis=_other_axes(gradient.shape.rank, axis))
    ids = tf.where(touched)[:, 0]
    if axis == 0:
        return tf.IndexedSlices(tf.gather(gradient, ids), ids, tf.shape(gradient, out_type=ids.dtype))
    if axis == 1 and gradient.shape.rank == 2:
        return tf.IndexedSlices(tf.transpose(tf.gather(gradient, ids, axis=1)), ids,
                                tf.reverse(tf.shape(gradient, out_type=ids.dtype), [0]))
    raise ValueError(f"row updates along axis {axis} of a rank-{gradient.shape.rank} variable are not supported: "
                     "axis 0, or axis 1 of a 2-D variable")


def update_touched_rows(gradient, axis: int, variables: Sequence, rule: Callable) -> None:
    """Replace the touched rows of ``variables`` by ``rule``'s result; leave every other row as it is.

    Args:
        gradient: the gradient of ``variables[0]``: ``touched_slices``' result (TensorFlow), or a dense tensor of the
            weight's shape.
        axis: int, the row axis: 0, or 1 for the columns of a 2-D variable.
        variables: the weight and its optimizer slots (Keras variables, or TensorFlow's own inside its optimizer),
            all of the weight's shape.
        rule: ``fn(gradient_rows, *variable_rows) -> [new rows, one per variable]``, elementwise, written with
            ``keras.ops``; it gets ``k`` rows at a time, or every row (JAX).
    """
    backend = keras.backend.backend()
    if backend == "tensorflow":
        _tensorflow_update(gradient, axis, variables, rule)
    elif backend == "torch":
        _torch_update(gradient, axis, variables, rule)
    else:
        _masked_update(gradient, axis, variables, rule)


def _other_axes(rank: int, axis: int) -> tuple[int, ...]:
    return tuple(a for a in range(rank) if a != axis)


def _masked_update(gradient, axis, variables, rule) -> None:
    """Every row updated, the untouched ones put back: static shapes (JAX)."""
    gradient = ops.convert_to_tensor(gradient)
    touched = ops.any(ops.not_equal(gradient, 0), axis=_other_axes(len(gradient.shape), axis), keepdims=True)
    old = [ops.convert_to_tensor(variable) for variable in variables]
    for variable, before, after in zip(variables, old, rule(gradient, *old)):
        variable.assign(ops.where(touched, ops.cast(after, before.dtype), before))


def _tensorflow_update(gradient, axis, variables, rule) -> None:
    import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

    targets = [v.value if isinstance(v, keras.Variable) else v for v in variables]  # tf.Variables, written in place
    if not isinstance(gradient, tf.IndexedSlices):
        gradient = touched_slices(gradient, axis)
    if axis != 0 and any(isinstance(t, tf.distribute.DistributedValues) for t in targets):
        # a strategy's mirrored slot variables have no scatter_nd_update (NotImplementedError)
        return _masked_update(tf.transpose(tf.convert_to_tensor(gradient)), axis, variables, rule)
    ids = gradient.indices
    if axis == 0:
        new_rows = rule(gradient.values, *[tf.gather(target, ids) for target in targets])
        for target, rows in zip(targets, new_rows):
            target.scatter_update(tf.IndexedSlices(tf.cast(rows, target.dtype), ids))
        return None
    new_columns = rule(gradient.values, *[tf.transpose(tf.gather(target, ids, axis=1)) for target in targets])
    # one (row, column) index per element, column by column: (k, dim) order is 4-5x faster than (dim, k) here
    columns, dims = tf.meshgrid(ids, tf.range(tf.shape(gradient.values, out_type=ids.dtype)[1]), indexing="ij")
    indices = tf.stack([dims, columns], axis=-1)  # (k, dim, 2)
    for target, values in zip(targets, new_columns):
        target.scatter_nd_update(indices, tf.cast(values, target.dtype))
    return None


def _torch_update(gradient, axis, variables, rule) -> None:
    import torch  # here: only the backend in use is imported (others may be absent)

    with torch.no_grad():
        targets = [v.value for v in variables]  # the Parameters, written in place
        touched = torch.ne(gradient, 0)
        for other in sorted(_other_axes(gradient.dim(), axis), reverse=True):
            touched = touched.any(dim=other)
        ids = torch.nonzero(touched).squeeze(1)
        new_rows = rule(gradient.index_select(axis, ids), *[target.index_select(axis, ids) for target in targets])
        for target, rows in zip(targets, new_rows):
            target.index_copy_(axis, ids, rows.to(target.dtype))
