"""Everything backend-specific in elmo_keras, in one place; the rest is written with ``keras.ops``.

What is TensorFlow-only, with its portable fallback elsewhere: the ``tf.while_loop`` runner, XLA
(``execution="xla"``; JAX jit-compiles every non-eager mode), the ``tf.data`` training pipeline (a ``PyDataset``),
and the ``training_precision="auto"`` probe (float32).

- ``scan_time``: the symbolic loop over time steps. ``keras.ops.scan`` on TensorFlow keeps its carry in
  ``TensorArray``s and gives ``tf.while_loop`` no ``maximum_iterations``, which costs extra reads/writes every
  step and makes the loop impossible to differentiate under XLA; on TensorFlow we run ``tf.while_loop``
  ourselves with plain tensors as the carry. JAX outside ``jit`` runs a Python loop (``jax.lax.scan`` there would
  compile its body at every call); elsewhere ``keras.ops.scan``.
- ``compile_function``: XLA (``tf.function(jit_compile=True)``) or ``jax.jit`` (the weights passed in at every
  call, not baked in); eager elsewhere.
- ``compile_for_inference``: the embedder's execution modes (graph / XLA / eager); ``compiles_per_shape``.
- ``id_graph_function``: a function of several id tensors as one graph for every shape (the seq2seq's scoring).
- ``is_eager``: whether a tensor holds values (stateful layers need that).
- ``gathered_batches``: the biLM's training batches as a ``tf.data`` pipeline (no Python per batch);
  ``generated_batches``: batches a Python generator makes (a streamed corpus, a large in-memory one).
- ``fit_jit_compile``: what ``Model.compile(jit_compile=…)`` takes for a fast training step on each backend.
- ``padded_time``: a training batch's time steps, rounded up on JAX (which compiles the step once per shape).
- ``dense_gradients``: TensorFlow's sparse (``IndexedSlices``) gradients as dense tensors (``models.optimizer``).
- ``has_native_bfloat16``: whether bfloat16 training can pay off here (``models.precision`` measures if it does).
- ``loss_and_gradients``: the gradient of a stateful ``train_step`` (TensorFlow, PyTorch); JAX's stateless
  steps are in ``_jax_steps``.
- ``input_gradients``: the gradient of a scalar function with respect to its input tensors (the gradient-flow
  study's ``∂L/∂h_t``, through zero probes added to the states).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import numpy as np
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
    backend = keras.backend.backend()
    if backend == "jax" and is_eager(xs[0] if isinstance(xs, (tuple, list)) else xs):
        return _python_loop(step, carry, xs, reverse)
    if backend != "tensorflow":
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


def _python_loop(step, carry, xs, reverse):
    """``scan_time`` as a Python loop, for eager JAX: ``jax.lax.scan`` outside ``jit`` compiles its body anew at
    every call (a new closure each time), while each eager op here is compiled once per shape and reused."""
    several = isinstance(xs, (tuple, list))
    sequences = tuple(xs) if several else (xs,)
    steps = sequences[0].shape[0]
    outputs = [None] * steps
    carry = tuple(carry)
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        carry, outputs[t] = step(carry, tuple(x[t] for x in sequences) if several else sequences[0][t])
        carry = tuple(carry)
    return carry, tuple(ops.stack(ys) for ys in zip(*outputs))


def compile_function(fn, variables=()):
    """``fn`` compiled for the current Keras backend (retraced per input shape).

    Args:
        fn: a function of tensors, written with ``keras.ops``.
        variables: the Keras variables ``fn`` reads (a model's weights). ``jax.jit`` would bake their values
            into the compiled function as constants; on JAX they are passed in at every call instead, so the
            function sees later updates. Defaults to none.

    Returns:
        ``tf.function(fn, jit_compile=True)`` on TensorFlow, ``jax.jit`` on JAX, ``fn`` itself elsewhere.
    """
    backend = keras.backend.backend()
    if backend == "tensorflow":
        import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

        return tf.function(fn, jit_compile=True)
    if backend == "jax":
        return _jax_jit_reading(fn, list(variables))
    return fn


def _jax_jit_reading(fn, variables):
    """``jax.jit(fn)`` with ``variables`` read at call time (arguments of the compiled function, not constants)."""
    import jax  # here: only the backend in use is imported (others may be absent)

    @jax.jit
    def compiled(values, *args):
        with keras.StatelessScope(state_mapping=list(zip(variables, values))):
            return fn(*args)

    return lambda *args: compiled([v.value for v in variables], *args)


def compiles_per_shape(execution: str) -> bool:
    """Whether ``compile_for_inference(…, execution)`` compiles once per input shape (so inputs should be padded
    to a few shapes): ``"xla"``, and every mode but ``"eager"`` on JAX."""
    return execution == "xla" or (execution != "eager" and keras.backend.backend() == "jax")


def compile_for_inference(fn: Callable, execution: str, input_shape: tuple, variables=()) -> Callable:
    """``fn`` as a TensorFlow graph, or ``jax.jit``-compiled on JAX (PyTorch runs ``fn`` as is).

    Args:
        fn: ``fn(ids) -> outputs``, taking one int32 id tensor.
        execution: ``"graph"``: one ``tf.function`` trace with symbolic batch and time (the LSTM loop becomes a
            ``while`` loop), reused for every shape. ``"xla"``: ``tf.function(jit_compile=True)``, compiled once
            per input shape. On JAX both are ``jax.jit``, compiled once per shape. ``"eager"``: ``fn`` itself.
        input_shape: the shape of the ids ``fn`` takes, `(batch, time)` or `(batch, time, 50)`; only the axes
            after ``time`` are fixed in the ``"graph"`` signature.
        variables: the Keras variables ``fn`` reads (``compile_function``).
    """
    backend = keras.backend.backend()
    if execution == "eager" or backend not in ("tensorflow", "jax"):
        return fn
    if backend == "jax":
        return _jax_jit_reading(fn, list(variables))
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


def fit_jit_compile() -> bool:
    """``jit_compile`` for ``Model.compile`` of the recurrent models: False on TensorFlow (a plain graph: with the
    hand-written LSTM gradient it runs faster than XLA's while loop on CPU and is built sooner), True on JAX (False
    there means eager, one dispatch per op), False on PyTorch (True would mean ``torch.compile``)."""
    return keras.backend.backend() == "jax"


JAX_TIME_BUCKET = 8


def padded_time(steps: int) -> int:
    """The time steps to pad a training batch of ``steps`` to: a multiple of ``JAX_TIME_BUCKET`` on JAX, whose
    ``jit`` compiles the training step once per input shape (one per sentence length would cost a compilation
    for nearly every batch); ``steps`` itself elsewhere (TensorFlow traces once for every length)."""
    if keras.backend.backend() != "jax":
        return steps
    return -(-steps // JAX_TIME_BUCKET) * JAX_TIME_BUCKET


def dense_gradients(gradients):
    """``gradients`` with every ``tf.IndexedSlices`` (an embedding's, on TensorFlow) summed into a dense tensor.

    Args:
        gradients: a list of gradient tensors (None allowed); other backends' are dense already.
    """
    if keras.backend.backend() != "tensorflow":
        return gradients
    import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

    return [tf.convert_to_tensor(g) if isinstance(g, tf.IndexedSlices) else g for g in gradients]


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


def loss_and_gradients(loss_fn, variables):
    """``(loss, d loss / d variables)`` for a stateful ``train_step``: TensorFlow's tape, or PyTorch's autograd
    (a variable the loss does not reach gets a zero gradient). JAX's steps are stateless (``_jax_steps``).

    Args:
        loss_fn: ``fn() -> scalar loss``, reading the variables.
        variables: the Keras variables to differentiate with respect to.
    """
    backend = keras.backend.backend()
    if backend == "tensorflow":
        import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

        with tf.GradientTape() as tape:
            loss = loss_fn()
        return loss, tape.gradient(loss, variables)
    if backend == "torch":
        import torch  # here: only the backend in use is imported (others may be absent)

        loss = loss_fn()
        values = [v.value for v in variables]
        gradients = torch.autograd.grad(loss, values, allow_unused=True)
        return loss, [torch.zeros_like(v) if g is None else g for v, g in zip(values, gradients)]
    raise NotImplementedError(f"no stateful gradient on the {backend!r} backend; use _jax_steps.branch_train_step")


def input_gradients(fn, arrays) -> tuple[float, list[np.ndarray]]:
    """``fn(*tensors)`` and ``[∂fn/∂tensor]`` for float ``arrays``.

    Args:
        fn: a function of backend tensors written with ``keras.ops``, returning a scalar.
        arrays: NumPy float arrays (each becomes a tensor of its own dtype and shape).

    Returns:
        ``(value, gradients)``: a float and one NumPy array per input, shaped like it (zeros where ``fn`` does
        not depend on an input).
    """
    backend = keras.backend.backend()
    if backend == "tensorflow":
        import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

        tensors = [tf.constant(a) for a in arrays]
        with tf.GradientTape() as tape:
            tape.watch(tensors)
            value = fn(*tensors)
        gradients = tape.gradient(value, tensors, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    elif backend == "jax":
        import jax  # here: only the backend in use is imported

        value, gradients = jax.value_and_grad(fn, argnums=tuple(range(len(arrays))))(*arrays)
    elif backend == "torch":
        import torch  # here: only the backend in use is imported

        tensors = [keras.ops.convert_to_tensor(a).requires_grad_(True) for a in arrays]  # on Keras' device
        value = fn(*tensors)
        gradients = torch.autograd.grad(value, tensors, allow_unused=True, materialize_grads=True)
    else:
        raise NotImplementedError(f"no gradient for the {backend!r} backend (tensorflow, jax and torch have one)")
    return float(ops.convert_to_numpy(value)), [np.asarray(ops.convert_to_numpy(g)) for g in gradients]
