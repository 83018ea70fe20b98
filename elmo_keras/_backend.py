"""Everything backend-specific in elmo_keras, in one place; the rest is written with ``keras.ops``.

- ``scan_time``: the symbolic loop over time steps. ``keras.ops.scan`` on TensorFlow keeps its carry in
  ``TensorArray``s and gives ``tf.while_loop`` no ``maximum_iterations``, which costs extra reads/writes every
  step and makes the loop impossible to differentiate under XLA; on TensorFlow we run ``tf.while_loop``
  ourselves with plain tensors as the carry. Other backends use ``keras.ops.scan``.
- ``compile_function``: XLA (``tf.function(jit_compile=True)``) or ``jax.jit``; eager elsewhere.
- ``compile_for_inference``: the embedder's execution modes (graph / XLA / eager).
- ``id_graph_function``: a function of several id tensors as one graph for every shape (the seq2seq's scoring).
- ``is_eager``: whether a tensor holds values (stateful layers need that).
- ``gathered_batches``: the biLM's training batches as a ``tf.data`` pipeline (no Python per batch).
- ``has_native_bfloat16``: whether bfloat16 training can pay off here (``models.precision`` measures if it does).
"""

from __future__ import annotations

from collections.abc import Callable

from keras import ops

from elmo_keras._quiet import keras


def scan_time(step, carry, xs, reverse=False):
    """Run ``carry, y = step(carry, x_t)`` for ``t = 0 … T−1`` (``T−1 … 0`` when ``reverse``).

    Args:
        step: ``fn(carry: tuple of tensors, x_t) -> (new_carry, y_t)`` with ``y_t`` a tuple of tensors.
        carry: tuple of tensors.
        xs: `(T, ...)` tensor, time-major, or a tuple of such tensors (then ``x_t`` is the tuple of their
            ``t``-th slices).
        reverse: walk time backwards; ``ys[i][t]`` is still the output of step ``t``.

    Returns:
        ``(final_carry, ys)`` with every ``ys[i]`` stacked time-major `(T, ...)`.
    """
    if keras.backend.backend() != "tensorflow":
        return ops.scan(step, carry, xs, reverse=reverse)
    import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

    several = isinstance(xs, (tuple, list))
    sequences = tuple(xs) if several else (xs,)

    def slice_at(t):
        return tuple(x[t] for x in sequences) if several else sequences[0][t]

    steps = tf.shape(sequences[0])[0]
    probe_carry, probe_y = step(carry, slice_at(0))  # traced once for the output structure (dead code in the graph)
    del probe_carry
    arrays = tuple(
        tf.TensorArray(y.dtype, size=steps, element_shape=y.shape, clear_after_read=True) for y in probe_y
    )

    def body(i, carry, arrays):
        t = steps - 1 - i if reverse else i
        new_carry, ys = step(carry, slice_at(t))
        return i + 1, tuple(new_carry), tuple(a.write(t, y) for a, y in zip(arrays, ys))

    static_steps = sequences[0].shape[0]
    _, final_carry, arrays = tf.while_loop(
        lambda i, *_: i < steps, body, (tf.constant(0), tuple(carry), arrays),
        maximum_iterations=static_steps if static_steps is not None else steps,
    )
    return final_carry, tuple(a.stack() for a in arrays)


def compile_function(fn):
    """``fn`` compiled for the current Keras backend (retraced per input shape).

    Args:
        fn: a function of tensors, written with ``keras.ops``.

    Returns:
        ``tf.function(fn, jit_compile=True)`` on TensorFlow, ``jax.jit(fn)`` on JAX, ``fn`` itself elsewhere.
    """
    backend = keras.backend.backend()
    if backend == "tensorflow":
        import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

        return tf.function(fn, jit_compile=True)
    if backend == "jax":
        import jax  # here: only the backend in use is imported (others may be absent)

        return jax.jit(fn)
    return fn


def compile_for_inference(fn: Callable, execution: str, input_shape: tuple) -> Callable:
    """``fn`` as a TensorFlow graph (the only backend-specific code here; other backends run ``fn`` as is).

    Args:
        fn: ``fn(ids) -> outputs``, taking one int32 id tensor.
        execution: ``"graph"``: one ``tf.function`` trace with symbolic batch and time (the LSTM loop becomes a
            ``while`` loop), reused for every shape. ``"xla"``: ``tf.function(jit_compile=True)``, compiled once
            per input shape. ``"eager"``: ``fn`` itself.
        input_shape: the shape of the ids ``fn`` takes, `(batch, time)` or `(batch, time, 50)`; only the axes
            after ``time`` are fixed in the ``"graph"`` signature.
    """
    if execution == "eager" or keras.backend.backend() != "tensorflow":
        return fn
    import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

    if execution == "graph":
        return tf.function(fn, input_signature=[tf.TensorSpec((None, None) + tuple(input_shape[2:]), tf.int32)])
    return tf.function(fn, jit_compile=True)


def id_graph_function(fn: Callable, num_inputs: int) -> Callable:
    """``fn(*ids)`` traced once as a TensorFlow graph for int32 `(batch, time)` inputs of any size, reused for every
    shape (a Keras model called eagerly runs its layers op by op from Python); ``fn`` itself on other backends.

    Args:
        fn: ``fn(ids_1, …, ids_n) -> outputs``, each ``ids_i`` int32 `(batch, time)`.
        num_inputs: n.
    """
    if keras.backend.backend() != "tensorflow":
        return fn
    import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

    spec = tf.TensorSpec((None, None), tf.int32)
    return tf.function(fn, input_signature=[spec] * num_inputs, autograph=False)


def is_eager(tensor) -> bool:
    """True when ``tensor`` holds concrete values (not traced inside a compiled function).

    Args:
        tensor: any backend tensor (only JAX needs it: there a traced value is a ``jax.core.Tracer``).
    """
    backend = keras.backend.backend()
    if backend == "tensorflow":
        import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

        return tf.executing_eagerly()
    if backend == "jax":
        import jax  # here: only the backend in use is imported (others may be absent)

        return not isinstance(tensor, jax.core.Tracer)
    return True


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


def has_native_bfloat16(cpuinfo_path: str = "/proc/cpuinfo") -> bool:
    """True on TensorFlow when the CPU does bfloat16 arithmetic natively (AVX512-BF16 or AMX-BF16 flags).

    There oneDNN's bfloat16 matmuls use those instructions; elsewhere bfloat16 is emulated and slower. The flag
    only rules bfloat16 out: whether a whole training step is faster with it is measured
    (``models.precision``), since casts and small matmuls can make it slower even with the instructions.

    Args:
        cpuinfo_path: str, the file listing the CPU flags. Defaults to ``"/proc/cpuinfo"`` (False if unreadable).
    """
    if keras.backend.backend() != "tensorflow":
        return False
    try:
        with open(cpuinfo_path, encoding="utf-8", errors="replace") as cpuinfo:
            flags = cpuinfo.read()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags
