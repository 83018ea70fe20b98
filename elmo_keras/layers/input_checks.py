"""Checks of the id tensors that enter the token encoders (and of the masks the LSTMs get), so bad input fails
with a message, not a TF trace or a silently wrong result.

Rank and empty axes are checked whenever the shape is known; the values (integers in ``[0, num_ids)``) only
when they are at hand (eager calls): a traced graph cannot raise a Python error from a value. Unchecked, a
negative id would select a row counted from the end of the table, and ``5.9`` would be read as ``5``.
"""

from __future__ import annotations

import numpy as np

from elmo_keras._backend import is_eager
from elmo_keras._quiet import ops


def check_ids(inputs, rank: int, num_ids: int, layer: str, what: str) -> None:
    """Raise ``ValueError`` unless ``inputs`` is a `rank`-D tensor of ids in ``[0, num_ids)`` with no empty axis.

    Args:
        inputs: the id tensor: `(batch, time)` word ids or `(batch, time, chars)` character ids.
        rank: int, the expected number of axes (2 or 3).
        num_ids: int, the size of the embedding table.
        layer: str, the layer's name, for the message.
        what: str, ``"word ids (batch, time)"`` or the like, for the message.
    """
    shape = tuple(inputs.shape)
    if len(shape) != rank:
        raise ValueError(f"{layer} expects {what}, received a tensor of shape {shape}")
    for axis, name in ((0, "batch"), (1, "time"), (2, "character")):
        if axis < rank and shape[axis] == 0:
            raise ValueError(f"{layer} received an empty {name} axis (shape {shape}); give it at least one token")
    if not is_eager(inputs):
        return
    values = ops.convert_to_numpy(inputs)
    if not np.issubdtype(values.dtype, np.integer):
        if not np.issubdtype(values.dtype, np.number) or np.any(values != np.round(values)):
            raise ValueError(f"{layer} expects integer {what}, received {values.dtype} values "
                             "that are not whole numbers")
    low, high = values.min(), values.max()
    if low < 0 or high >= num_ids:
        bad = low if low < 0 else high
        raise ValueError(
            f"{layer} received id {bad:g}, outside [0, {num_ids}): ids must index its table of {num_ids} entries "
            "(0 is padding); were the inputs encoded with this model's vocabulary?"
        )


def first_token_after_padding(mask: np.ndarray) -> tuple[int, int] | None:
    """``(row, step)`` of the first real token that follows padding in a `(batch, time)` bool mask, or None."""
    gaps = mask[:, 1:] & ~mask[:, :-1]  # a real token right after padding
    if not gaps.any():
        return None
    row, step = np.argwhere(gaps)[0]
    return int(row), int(step) + 1


def check_left_aligned(mask, layer: str) -> None:
    """Raise ``ValueError`` if a row of the `(batch, time)` mask has a real token after padding (eager only).

    The backward LSTM reverses each sentence within its length, which assumes the real tokens come first: a
    padding id inside a sentence (``[2, 0, 5, 3]``) would silently mix padding into the reversed sentence.

    Args:
        mask: `(batch, time)` bool or 0/1, or None (nothing to check).
        layer: str, the layer's name, for the message.
    """
    if mask is None or not is_eager(mask):
        return
    found = first_token_after_padding(ops.convert_to_numpy(mask).astype(bool))
    if found is not None:
        row, step = found
        raise ValueError(
            f"{layer}: row {row} has a real token at step {step} after padding; padding (id 0 / all-zero "
            "character rows) must come after a sentence's last token, so remove padding ids inside sentences"
        )
