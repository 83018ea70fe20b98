"""What the tests need to run on every Keras backend: the backend's name, a skip marker for the tests that
exercise TensorFlow itself, and gradients of a function of tensors (``tf.GradientTape``, ``jax.grad`` or
``torch.autograd``)."""

from __future__ import annotations

import numpy as np
import pytest

from elmo_keras._quiet import keras

BACKEND = keras.backend.backend()


def tensorflow_only(reason: str):
    """Skip a test on the other backends, saying which TensorFlow feature it exercises."""
    return pytest.mark.skipif(BACKEND != "tensorflow", reason=f"TensorFlow only: {reason}")


def outcome(reason: str):
    """Mark a test of an *outcome*: what a training run reaches, or what a trained model scores on held-out data.

    It runs on TensorFlow only (``tests/conftest.py`` skips it elsewhere, with ``reason``): the outcome is the
    algorithm's, and the layers, training steps and shipped models it runs give the same numbers on every backend,
    which the tests that ``reason`` names check on every backend. A new test runs on every backend unless it says
    so here, with its reason.
    """
    if not reason.strip():
        raise ValueError("an outcome test must say which tests make its numbers the same on every backend")
    return pytest.mark.outcome(reason=reason)


def fuzz_examples(count: int) -> int:
    """Hypothesis draws for a reference test: ``count`` on TensorFlow, a quarter (at least 10) on the others.

    The search for a logic error (a case the code gets wrong on every backend) runs in full once; on JAX, where each
    new shape compiles, and on PyTorch, the draws check the backend's ops on fewer cases.
    """
    return count if BACKEND == "tensorflow" else max(10, count // 4)


def to_numpy(tensor) -> np.ndarray:
    """Any backend tensor (gradient-carrying PyTorch ones included) as NumPy."""
    return keras.ops.convert_to_numpy(tensor)


def value_and_gradients(fn, arrays, variables=()):
    """``fn(*tensors)`` (a scalar loss) and its gradients with respect to each input and to Keras variables.

    Args:
        fn: a function of backend tensors, written with ``keras.ops``, returning a scalar.
        arrays: NumPy arrays, converted to tensors of their own dtype.
        variables: Keras variables that ``fn`` reads (a layer's weights).

    Returns:
        ``(value, gradients)``: the gradients with respect to ``arrays`` then ``variables``, all NumPy.
    """
    variables = list(variables)
    if BACKEND == "tensorflow":
        import tensorflow as tf

        tensors = [tf.constant(a) for a in arrays]
        with tf.GradientTape() as tape:
            tape.watch(tensors)
            value = fn(*tensors)
        gradients = tape.gradient(value, tensors + variables)
    elif BACKEND == "jax":
        import jax

        def stateless(values, *tensors):  # the variables read from ``values``, so that jax can differentiate
            with keras.StatelessScope(state_mapping=list(zip(variables, values))):
                return fn(*tensors)

        arguments = [[v.value for v in variables], *arrays]
        value, gradients = jax.value_and_grad(stateless, argnums=tuple(range(len(arguments))))(*arguments)
        gradients = list(gradients[1:]) + list(gradients[0])
    elif BACKEND == "torch":
        import torch

        tensors = [torch.tensor(a, requires_grad=True) for a in arrays]
        value = fn(*tensors)
        gradients = torch.autograd.grad(value, tensors + [v.value for v in variables])
    else:
        raise NotImplementedError(f"no gradient helper for the {BACKEND!r} backend")
    return to_numpy(value), [to_numpy(g) for g in gradients]
