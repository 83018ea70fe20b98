"""Training steps on each engine: what ``Model.compile`` takes, and the gradients of the hand-written steps.

- ``fit_jit_compile``: what ``Model.compile(jit_compile=…)`` takes for a fast training step on each backend.
- ``loss_and_gradients``: the gradient of a stateful ``train_step`` (TensorFlow, PyTorch).
- ``uses_stateless_steps``: whether ``train_step``/``test_step`` follow JAX's stateless contract; then
  ``branch_train_step`` / ``branch_test_step`` are the steps of a model whose batches each train one branch (the
  taggers' tasks): Keras' ``train_step(state, data)`` / ``test_step(state, data)``, written for ``jax.lax.switch``.
- ``dense_gradients``: TensorFlow's sparse (``IndexedSlices``) gradients as dense tensors (``models.optimizer``).
- ``input_gradients``: the gradient of a scalar function with respect to its input tensors (the gradient-flow
  study's ``∂L/∂h_t``, through zero probes added to the states).
"""

from __future__ import annotations

import warnings

import numpy as np

from elmo_keras._quiet import keras, ops


def fit_jit_compile() -> bool:
    """``jit_compile`` for ``Model.compile`` of the recurrent models: False on TensorFlow (a plain graph: with the
    hand-written LSTM gradient it runs faster than XLA's while loop on CPU and is built sooner), True on JAX (False
    there means eager, one dispatch per op), False on PyTorch (True would mean ``torch.compile``)."""
    return keras.backend.backend() == "jax"


def uses_stateless_steps() -> bool:
    """True on JAX, whose trainer calls ``train_step(state, data) -> (logs, state)`` (``branch_train_step``);
    TensorFlow and PyTorch call the stateful ``train_step(data)`` (``loss_and_gradients``)."""
    return keras.backend.backend() == "jax"


def loss_and_gradients(loss_fn, variables):
    """``(loss, d loss / d variables)`` for a stateful ``train_step``: TensorFlow's tape, or PyTorch's autograd
    (a variable the loss does not reach gets a zero gradient). JAX's steps are stateless (``branch_train_step``).

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
    raise NotImplementedError(f"no stateful gradient on the {backend!r} backend; use branch_train_step")


def dense_gradients(gradients):
    """``gradients`` with every ``tf.IndexedSlices`` (an embedding's, on TensorFlow) summed into a dense tensor.

    Args:
        gradients: a list of gradient tensors (None allowed); other backends' are dense already.
    """
    if keras.backend.backend() != "tensorflow":
        return gradients
    import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

    return [tf.convert_to_tensor(g) if isinstance(g, tf.IndexedSlices) else g for g in gradients]


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


def branch_train_step(model, state, branch, branch_loss, branch_variables, trackers):
    """One JAX training step (Keras' stateless ``train_step(state, data)`` contract) that trains only ``branch``.

    The step runs branch ``k``'s loss, takes its gradient and applies the optimizer to branch ``k``'s variables
    only (the others get no gradient, so neither they nor their optimizer slots move): the stateful step of
    TensorFlow and PyTorch (``SequenceTagger.train_step``), written for ``jax.lax.switch``.

    Args:
        model: the ``keras.Model`` (its optimizer built on all of its trainable variables).
        state: ``(trainable, non_trainable, optimizer, metrics)`` variable values, as the JAX trainer passes them.
        branch: int32 scalar tensor, the branch of this batch.
        branch_loss: ``fn(k) -> scalar loss`` of branch ``k``, reading the model's variables.
        branch_variables: per branch, the trainable variables it updates.
        trackers: ``(total, per_branch)``: the ``keras.metrics.Mean`` of every batch's loss and, per branch, of
            its own batches' losses (``model.metrics`` must be ``[total, *per_branch]``).

    Returns:
        ``(logs, new_state)``.
    """
    import jax  # here: only the backend in use is imported (others may be absent)

    trainable, non_trainable, optimizer_values, metric_values = state
    trainable_variables, non_trainable_variables = model.trainable_variables, model.non_trainable_variables

    def run(k):
        updated = {id(v) for v in branch_variables[k]}

        def loss_of(trainable, non_trainable):
            mapping = list(zip(trainable_variables, trainable)) + list(zip(non_trainable_variables, non_trainable))
            with keras.StatelessScope(state_mapping=mapping) as scope:
                loss = branch_loss(k)
            return loss, [scope.get_current_value(v) for v in non_trainable_variables]

        def step(trainable, non_trainable, optimizer_values):
            (loss, non_trainable), gradients = jax.value_and_grad(loss_of, has_aux=True)(trainable, non_trainable)
            gradients = [g if id(v) in updated else None for v, g in zip(trainable_variables, gradients)]
            trainable, optimizer_values = _stateless_apply(model.optimizer, optimizer_values, gradients, trainable)
            return loss, trainable, non_trainable, optimizer_values

        return step

    loss, trainable, non_trainable, optimizer_values = jax.lax.switch(
        branch, [run(k) for k in range(len(branch_variables))], trainable, non_trainable, optimizer_values)
    logs, metric_values = _tracked(model, trackers, branch, loss, metric_values)
    return logs, (trainable, non_trainable, optimizer_values, metric_values)


def branch_test_step(model, state, branch, branch_loss, trackers):
    """``branch_train_step``'s evaluation: JAX's stateless ``test_step(state, data)``, no update.

    Args:
        model, branch, branch_loss, trackers: as in ``branch_train_step``.
        state: ``(trainable, non_trainable, metrics)`` variable values.

    Returns:
        ``(logs, new_state)``.
    """
    import jax  # here: only the backend in use is imported (others may be absent)

    trainable, non_trainable, metric_values = state
    mapping = (list(zip(model.trainable_variables, trainable))
               + list(zip(model.non_trainable_variables, non_trainable)))
    with keras.StatelessScope(state_mapping=mapping):
        loss = jax.lax.switch(branch, [lambda k=k: branch_loss(k) for k in range(len(trackers[1]))])
    logs, metric_values = _tracked(model, trackers, branch, loss, metric_values)
    return logs, (trainable, non_trainable, metric_values)


def _stateless_apply(optimizer, optimizer_values, gradients, trainable):
    """``optimizer.stateless_apply`` without its warning for the variables that get no gradient (by design)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Gradients do not exist for variables")
        return optimizer.stateless_apply(optimizer_values, gradients, trainable)


def _tracked(model, trackers, branch, loss, metric_values):
    """``(logs, new metric values)``: the loss trackers updated statelessly, and their results."""
    total, per_branch = trackers
    metric_variables = [v for metric in model.metrics for v in metric.variables]
    with keras.StatelessScope(state_mapping=list(zip(metric_variables, metric_values))) as scope:
        total.update_state(loss)
        for k, tracker in enumerate(per_branch):
            tracker.update_state(loss, sample_weight=ops.cast(ops.equal(branch, k), loss.dtype))
        logs = {metric.name: metric.result() for metric in model.metrics}
        return logs, [scope.get_current_value(v) for v in metric_variables]
