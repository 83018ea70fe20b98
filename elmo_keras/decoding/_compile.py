"""The one backend-specific piece of decoding: compiling a step function.

Under TensorFlow the function becomes ``tf.function(jit_compile=True)`` (XLA); under JAX ``jax.jit``. Other
backends run it eagerly — correct, only slower. Functions compiled here must use ``keras.ops`` only.
"""

from __future__ import annotations

from elmo_keras._quiet import keras


def compile_function(fn):
    """``fn`` compiled for the current Keras backend (retraced per input shape)."""
    backend = keras.backend.backend()
    if backend == "tensorflow":
        import tensorflow as tf

        return tf.function(fn, jit_compile=True)
    if backend == "jax":
        import jax

        return jax.jit(fn)
    return fn
