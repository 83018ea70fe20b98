"""JAX's stateless training and evaluation steps for a model whose batches each train one branch (the taggers'
tasks): Keras' ``train_step(state, data)`` / ``test_step(state, data)`` contract, written for ``jax.lax.switch``.
TensorFlow and PyTorch run the stateful step itself (``_backend.loss_and_gradients``).

Only imported on the JAX backend's path (``SequenceTagger``); it imports JAX inside the functions.
"""

from __future__ import annotations

import warnings

from keras import ops

from elmo_keras._quiet import keras


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
