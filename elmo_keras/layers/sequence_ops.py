"""Small sequence helpers shared by the layers (all ``keras.ops``; masks are left-aligned).

A mask is `(batch, time)` bool with the real tokens first and padding after them, as produced by
``batch_to_ids`` and by right-padded word-id batches.
"""

from __future__ import annotations

from elmo_keras._quiet import ops


def sequence_lengths(mask):
    """The number of real tokens per row.

    Args:
        mask: `(batch, time)` bool or 0/1.

    Returns:
        `(batch,)` int32.
    """
    return ops.sum(ops.cast(mask, "int32"), axis=1)


def reverse_within_length(inputs, mask):
    """Reverse each sequence over its real tokens only; padding stays where it is.

    Args:
        inputs: `(batch, time, ...)`.
        mask: `(batch, time)` bool, left-aligned.

    Returns:
        Same shape as ``inputs``: row ``b`` holds ``inputs[b, len_b-1], ..., inputs[b, 0]`` then its padding.
        Applying it twice gives back ``inputs``.
    """
    time = ops.shape(inputs)[1]
    positions = ops.expand_dims(ops.arange(time, dtype="int32"), 0)  # (1, T)
    lengths = ops.expand_dims(sequence_lengths(mask), 1)  # (B, 1)
    index = ops.where(positions < lengths, lengths - 1 - positions, positions)  # (B, T)
    for _ in range(len(inputs.shape) - 2):
        index = ops.expand_dims(index, -1)
    return ops.take_along_axis(inputs, ops.broadcast_to(index, ops.shape(inputs)), axis=1)


def add_sentence_boundaries(inputs, mask, bos, eos):
    """Wrap every sequence in boundary tokens: ``<S> tokens </S>`` then padding.

    Args:
        inputs: int `(batch, time)` word ids or `(batch, time, chars)` character ids.
        mask: `(batch, time)` bool, left-aligned.
        bos, eos: the boundary tokens: scalar ids for word ids, `(chars,)` rows of character ids for character
            ids (``BEGIN_OF_SENTENCE_ROW`` / ``END_OF_SENTENCE_ROW``).

    Returns:
        ``(inputs_with_boundaries, mask_with_boundaries)``: `(batch, time + 2)` (or `(batch, time + 2, chars)`) in
        the dtype of ``inputs``, and `(batch, time + 2)` bool.

    Example:
        >>> ids, mask = add_sentence_boundaries(np.array([[7, 9], [5, 0]]), np.array([[1, 1], [1, 0]], bool), 2, 3)
        >>> keras.ops.convert_to_numpy(ids).tolist(), keras.ops.convert_to_numpy(mask).tolist()
        ([[2, 7, 9, 3], [2, 5, 3, 0]], [[True, True, True, True], [True, True, True, False]])
    """
    inputs = ops.convert_to_tensor(inputs)
    batch = ops.shape(inputs)[0]
    feature_shape = tuple(ops.shape(inputs)[2:])
    bos = ops.cast(ops.broadcast_to(ops.convert_to_tensor(bos), (batch, 1) + feature_shape), inputs.dtype)
    eos = ops.cast(ops.convert_to_tensor(eos), inputs.dtype)
    mask_int = ops.cast(mask, "int32")
    padded = ops.concatenate([inputs, ops.zeros_like(inputs[:, :1])], axis=1)  # (B, T+1, ...)
    padded_mask = ops.concatenate([mask_int, ops.zeros_like(mask_int[:, :1])], axis=1)  # (B, T+1)
    lengths = ops.expand_dims(sequence_lengths(mask), 1)  # (B, 1)
    is_eos = ops.arange(ops.shape(padded)[1], dtype="int32")[None, :] == lengths  # (B, T+1)
    is_eos_b = ops.reshape(is_eos, tuple(ops.shape(is_eos)) + (1,) * len(feature_shape))
    body = ops.where(is_eos_b, ops.broadcast_to(eos, ops.shape(padded)), padded)
    new_inputs = ops.concatenate([bos, body], axis=1)
    new_mask = ops.concatenate([ops.ones_like(mask_int[:, :1]), padded_mask + ops.cast(is_eos, "int32")], axis=1)
    return new_inputs, ops.cast(new_mask, "bool")


def remove_sentence_boundaries(outputs, mask):
    """Inverse of ``add_sentence_boundaries`` for activations.

    Args:
        outputs: `(batch, time + 2, dim)`, computed over inputs with boundaries.
        mask: `(batch, time + 2)` bool, left-aligned, boundaries included.

    Returns:
        ``(outputs_without_boundaries, mask_without_boundaries)``, `(batch, time, dim)` and `(batch, time)` bool;
        positions past a sentence's end are zero.
    """
    lengths = sequence_lengths(mask) - 2  # (B,)
    inner = outputs[:, 1:-1]
    positions = ops.arange(ops.shape(inner)[1], dtype="int32")[None, :]
    inner_mask = positions < ops.expand_dims(lengths, 1)
    inner = ops.where(ops.expand_dims(inner_mask, -1), inner, ops.zeros_like(inner))
    return inner, inner_mask
