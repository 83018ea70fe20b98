"""How the engine in use runs code: which one it is, the loop over time steps, and compiled functions.

- ``backend_name`` / ``engine_version``: the Keras backend in use (a checkpoint records it), and its engine's version.
- ``scan_time``: the symbolic loop over time steps. ``keras.ops.scan`` on TensorFlow keeps its carry in
  ``TensorArray``s and gives ``tf.while_loop`` no ``maximum_iterations``, which costs extra reads/writes every
  step and makes the loop impossible to differentiate under XLA; on TensorFlow we run ``tf.while_loop``
  ourselves with plain tensors as the carry. JAX outside ``jit`` runs a Python loop (``jax.lax.scan`` there would
  compile its body at every call); elsewhere ``keras.ops.scan``.
- ``compile_function``: XLA (``tf.function(jit_compile=True)``) or ``jax.jit`` (the weights passed in at every
  call, not baked in); eager elsewhere.
- ``compile_for_inference``: the embedder's execution modes (graph / XLA / eager); ``compiles_per_shape``;
  ``compiled_functions_take_variables_as_constants`` (JAX: no kept weight copies).
- ``id_graph_function``: a function of several id tensors as one graph for every shape (the seq2seq's scoring).
- ``check_onnx_export_backend``: whether this backend can export an ONNX graph of any batch and length.
- ``is_eager``: whether a tensor holds values (stateful layers need that).
"""

from __future__ import annotations

from collections.abc import Callable

from elmo_keras._quiet import keras, ops


def backend_name() -> str:
    """The Keras backend this process runs: ``"tensorflow"``, ``"jax"``, ``"torch"`` (or ``"numpy"``)."""
    return keras.backend.backend()


def engine_version() -> str:
    """``"tensorflow 2.19.0"``: the backend in use and its engine's version (what a per-machine measurement
    depends on)."""
    backend = keras.backend.backend()
    if backend == "tensorflow":
        import tensorflow as engine  # here: only the backend in use is imported (others may be absent)
    elif backend == "jax":
        import jax as engine  # here: only the backend in use is imported (others may be absent)
    elif backend == "torch":
        import torch as engine  # here: only the backend in use is imported (others may be absent)
    else:
        return backend
    return f"{backend} {engine.__version__}"


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


def compiled_functions_take_variables_as_constants() -> bool:
    """Whether a variable a compiled inference function reads becomes a constant of that function instead of an
    input it reads at every call: JAX (``jax.jit`` closes over values). Extra weight copies kept for speed would be
    baked in there, so ``layers.matmul_dtype.keep_narrowed_kernels`` keeps none on JAX."""
    return keras.backend.backend() == "jax"


def compile_for_inference(fn: Callable, execution: str, input_shape: tuple, variables=()) -> Callable:
    """``fn`` as a TensorFlow graph, or ``jax.jit``-compiled on JAX (PyTorch runs ``fn`` as is).

    Args:
        fn: ``fn(ids) -> outputs``, taking one int32 id tensor.
        execution: ``"graph"``: one ``tf.function`` trace with symbolic batch and time (the LSTM loop becomes a
            ``while`` loop), reused for every shape. ``"xla"``: ``tf.function(jit_compile=True)``, compiled once
            per input shape. On JAX both are ``jax.jit``, compiled once per shape. ``"eager"``: ``fn`` itself.
        input_shape: the shape of the ids ``fn`` takes, `(batch, time)` or `(batch, time, characters)`; only its
            rank is fixed in the ``"graph"`` signature (character ids may come cut to fewer than 50 positions,
            ``text.char_ids.trim_character_padding``).
        variables: the Keras variables ``fn`` reads (``compile_function``).
    """
    backend = keras.backend.backend()
    if execution == "eager" or backend not in ("tensorflow", "jax"):
        return fn
    if backend == "jax":
        return _jax_jit_reading(fn, list(variables))
    import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

    if execution == "graph":
        return tf.function(fn, input_signature=[tf.TensorSpec((None,) * len(input_shape), tf.int32)])
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


def check_onnx_export_backend() -> None:
    """Raise ``ValueError`` unless this backend exports a model to ONNX with symbolic batch and time.

    TensorFlow does (``keras.Model.export(format="onnx")`` hands one traced graph, its time loops ``while`` loops, to
    tf2onnx). PyTorch's exporter fixes every shape (Keras passes no dynamic axes and its time loop is unrolled when
    traced) and has no ONNX op for ``take_along_dim``; on JAX Keras needs the ``jax2onnx`` package.
    """
    backend = keras.backend.backend()
    if backend != "tensorflow":
        raise ValueError(f"ONNX export needs the tensorflow backend, this process runs {backend!r} (set "
                         "KERAS_BACKEND=tensorflow before Keras is imported; the .onnx file then runs anywhere)")


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
