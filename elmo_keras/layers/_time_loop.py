"""The one backend-specific piece of the LSTM layers: a symbolic loop over time steps.

``keras.ops.scan`` on TensorFlow keeps its carry in ``TensorArray``s and gives ``tf.while_loop`` no
``maximum_iterations``; that costs extra reads/writes every step in graph mode and makes the loop's gradient
impossible to compile with XLA. On TensorFlow we therefore run ``tf.while_loop`` ourselves, with plain
tensors as the carry and ``maximum_iterations`` set, which graph mode runs faster and XLA can differentiate.
Other backends use ``keras.ops.scan`` (JAX's ``lax.scan`` has neither problem).
"""

from __future__ import annotations

from elmo_keras._quiet import keras
from keras import ops


def scan_time(step, carry, xs):
    """Run ``carry, y = step(carry, xs[t])`` for ``t = 0 … T−1``.

    Args:
        step: ``fn(carry: tuple of tensors, x_t) -> (new_carry, y_t)`` with ``y_t`` a tuple of tensors.
        carry: tuple of tensors.
        xs: `(T, ...)` tensor, time-major.

    Returns:
        ``(final_carry, ys)`` with every ``ys[i]`` stacked time-major `(T, ...)`.
    """
    if keras.backend.backend() != "tensorflow":
        return ops.scan(step, carry, xs)
    import tensorflow as tf

    steps = tf.shape(xs)[0]
    probe_carry, probe_y = step(carry, xs[0])  # traced once for the output structure (dead code in the graph)
    del probe_carry
    arrays = tuple(
        tf.TensorArray(y.dtype, size=steps, element_shape=y.shape, clear_after_read=True) for y in probe_y
    )

    def body(t, carry, arrays):
        new_carry, ys = step(carry, xs[t])
        return t + 1, tuple(new_carry), tuple(a.write(t, y) for a, y in zip(arrays, ys))

    _, final_carry, arrays = tf.while_loop(
        lambda t, *_: t < steps, body, (tf.constant(0), tuple(carry), arrays),
        maximum_iterations=xs.shape[0] if xs.shape[0] is not None else steps,
    )
    return final_carry, tuple(a.stack() for a in arrays)
