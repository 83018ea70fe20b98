"""How training batches reach ``fit``: ``tf.data`` pipelines, and the time axis each engine wants.

- ``trains_from_tf_data``: whether the biLM's batches are gathered inside a ``tf.data`` pipeline (TensorFlow) or
  made by a ``PyDataset`` (elsewhere).
- ``gathered_batches``: the biLM's training batches as a ``tf.data`` pipeline (no Python per batch);
  ``generated_batches``: batches a Python generator makes (a streamed corpus, a large in-memory one).
- ``padded_time``: a training batch's time steps, rounded up on JAX (which compiles the step once per shape).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from elmo_keras._quiet import keras

JAX_TIME_BUCKET = 8



def padded_time(steps: int) -> int:
    """The time steps to pad a training batch of ``steps`` to: a multiple of ``JAX_TIME_BUCKET`` on JAX, whose
    ``jit`` compiles the training step once per input shape (one per sentence length would cost a compilation
    for nearly every batch); ``steps`` itself elsewhere (TensorFlow traces once for every length)."""
    if keras.backend.backend() != "jax":
        return steps
    return -(-steps // JAX_TIME_BUCKET) * JAX_TIME_BUCKET


def trains_from_tf_data() -> bool:
    """True on TensorFlow, where a ``tf.data`` pipeline gathers the biLM's batches (``gathered_batches``); other
    backends read a ``PyDataset`` (``models.bilm.batches.PlannedBatches``)."""
    return keras.backend.backend() == "tensorflow"


def gathered_batches(inputs, targets, plan, lengths):
    """A ``tf.data`` pipeline of ``(inputs[plan[k], :lengths[k]], targets[plan[k], :lengths[k]])`` for each ``k``.

    The whole plan is built up front, so batches are gathered inside TensorFlow.

    Args:
        inputs: `(rows, time, ...)` encoded sentences (NumPy).
        targets: `(rows, time)` (NumPy).
        plan: int32 `(num_batches, batch_size)` row indices.
        lengths: int32 `(num_batches,)` time steps kept in each batch.

    Returns:
        A ``tf.data.Dataset`` of ``(inputs, targets)`` batches, `(batch_size, length, ...)` and
        `(batch_size, length)`; its element shapes leave the length as None, so the training step is traced
        once for every length.
    """
    import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

    inputs, targets = tf.constant(inputs), tf.constant(targets)
    plan, lengths = tf.constant(plan), tf.constant(lengths)

    def batch(k):
        rows, length = plan[k], lengths[k]
        return tf.gather(inputs, rows)[:, :length], tf.gather(targets, rows)[:, :length]

    options = tf.data.Options()
    # no autotuning: its background thread holds up tearing the pipeline down at the end of fit
    options.autotune.enabled = False
    return tf.data.Dataset.range(int(plan.shape[0])).map(batch).prefetch(1).with_options(options)


def generated_batches(generate: Callable, batch_size: int, inputs_tail: tuple = ()):
    """A ``tf.data`` pipeline of the ``(inputs, targets)`` int32 NumPy batches that ``generate()`` yields, in order.

    Keras would read a ``PyDataset``'s signature from its first two items and fix the time axis when they have the
    same length (a later batch of another length then fails); here the time axis is None in the signature (one
    trace of the training step). On other backends TensorFlow only reads data here: it is kept off the GPUs.

    Args:
        generate: a function of no arguments returning an iterator of ``(inputs (batch_size, time, *inputs_tail),
            targets (batch_size, time))``; called anew for each pass over the dataset.
        batch_size: int, the rows of every batch.
        inputs_tail: the inputs' shape after the time axis: ``()`` for word ids, ``(50,)`` for character ids.

    Returns:
        A ``tf.data.Dataset`` of the batches, two prepared ahead.
    """
    import tensorflow as tf  # here: tf.data feeds fit on every backend, but only the pipelines need TensorFlow

    if keras.backend.backend() != "tensorflow":  # it must not take GPU memory from the backend that trains
        with contextlib.suppress(RuntimeError):  # its runtime already started: too late, and already decided
            tf.config.set_visible_devices([], "GPU")
    signature = (tf.TensorSpec((batch_size, None, *inputs_tail), tf.int32), tf.TensorSpec((batch_size, None), tf.int32))
    options = tf.data.Options()
    options.autotune.enabled = False  # its background thread holds up tearing the pipeline down (gathered_batches)
    return tf.data.Dataset.from_generator(generate, output_signature=signature).prefetch(2).with_options(options)
