"""Optimizers that update only the rows a training step touched: ``LazyAdam`` and ``SparseAdagrad``.

A *row-sparse* variable is one whose rows a step reads only for some ids: a word embedding's rows (the batch's
words), and with a sampled softmax the softmax kernel's columns and bias entries (the batch's target words and the
sampled candidates). ``BiLanguageModel.row_sparse_variables()`` names them, ``{variable.path: axis}``. Every other
row of such a variable has a zero gradient; at bilm-tf's 793,471 words a step touches a few thousand of them, yet
``DenseGradientAdam`` moves every row and both of its moments every step.

For a row-sparse variable these optimizers sum the gradient of a repeated id first (as ``DenseGradientAdam`` does,
and bilm-tf's ``_deduplicate_indexed_slices``), then update only the *touched* rows, those whose summed gradient is
not all zero (``_backend.sparse_rows``; on TensorFlow the gradient is cut down to those rows before clipping):

- ``LazyAdam``: a touched row takes Adam's step from its summed gradient, the bias correction counting every step
  (``iterations``), as dense Adam; an untouched row keeps its weights and both moments. With every row touched at
  every step this is dense Adam; otherwise dense Adam would keep moving a row on its momentum after the batches
  stopped reading it, and LazyAdam does not.
- ``SparseAdagrad``: bilm-tf's optimizer, ``tf.train.AdagradOptimizer(learning_rate=0.2,
  initial_accumulator_value=1.0)`` (``bilm/training.py``): ``accumulator += g²``, ``w -= lr · g / √accumulator``.
  An untouched row's Adagrad step is zero anyway, so skipping it changes no number, only the work.

The other variables (LSTMs, projections) get dense gradients and Keras' own Adam / Adagrad step. As with
``DenseGradientAdam``, the replicas' gradients (``tf.distribute``) are summed before ``clipnorm``, and ``clipnorm``
clips each gradient tensor: the summed rows of a row-sparse gradient have the dense gradient's norm, so the clip
factor is the one ``DenseGradientAdam`` applies.

Where it saves work: on TensorFlow and PyTorch the touched rows are gathered and written back in place; on JAX
(static shapes under ``jax.jit``) the update is computed for every row and kept only where touched, the same numbers
without the saving. Either way the gradient itself is still a dense tensor except for TensorFlow's embedding.
"""

from __future__ import annotations

from elmo_keras._backend import dense_gradients, touched_slices, update_touched_rows
from elmo_keras._quiet import keras, ops
from elmo_keras.models.bilm.distribution import SumsReplicasBeforeClipping, sum_over_replicas

BILM_TF_LEARNING_RATE = 0.2  # bilm-tf's Adagrad (bilm/training.py: options.get('learning_rate', 0.2))
BILM_TF_INITIAL_ACCUMULATOR = 1.0  # tf.train.AdagradOptimizer(..., initial_accumulator_value=1.0)
UNSUPPORTED = ("weight_decay", "use_ema", "gradient_accumulation_steps", "amsgrad")  # each would move every row


class RowSparseUpdates(SumsReplicasBeforeClipping):
    """Mixin over a Keras optimizer: row-sparse variables (``row_sparse``) get ``row_rule`` on their touched rows
    only, the others the optimizer's own ``update_step``. A subclass names the slots of a variable (``slots``) and
    the update of a block of rows (``row_rule``)."""

    def __init__(self, *args, row_sparse: dict | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        for name in UNSUPPORTED:
            if getattr(self, name, None):
                raise ValueError(f"{type(self).__name__} updates only the touched rows; {name}="
                                 f"{getattr(self, name)!r} would change every row: leave it unset")
        self.row_sparse = {str(path): int(axis) for path, axis in (row_sparse or {}).items()}
        self._row_axes = {}  # _var_key(variable) → row axis, set by build

    def build(self, variables):
        super().build(variables)
        by_path = {variable.path: variable for variable in variables}
        missing = sorted(set(self.row_sparse) - set(by_path))
        if missing:
            raise ValueError(f"row_sparse names variables the optimizer is not built on: {missing}")
        for path, axis in self.row_sparse.items():
            if not 0 <= axis < len(by_path[path].shape):
                raise ValueError(f"row_sparse axis {axis} of {path} is outside its shape {tuple(by_path[path].shape)}")
        self._row_axes = {self._var_key(by_path[path]): axis for path, axis in self.row_sparse.items()}

    def apply(self, grads, trainable_variables=None):
        if trainable_variables is None and not self.built:
            return super().apply(grads)  # Keras says that the optimizer must be built first
        variables = self._trainable_variables if trainable_variables is None else list(trainable_variables)
        axes = [self.row_sparse.get(v.path) for v in variables]
        grads = [g if axis is not None else dense_gradients([g])[0] for g, axis in zip(grads, axes)]
        grads = [g if axis is None else touched_slices(g, axis) for g, axis in zip(sum_over_replicas(grads), axes)]
        return super().apply(grads, trainable_variables)

    def update_step(self, gradient, variable, learning_rate):
        axis = self._row_axes.get(self._var_key(variable))
        if axis is None:
            return super().update_step(gradient, variable, learning_rate)
        update_touched_rows(gradient, axis, [variable, *self.slots(variable)],
                            self.row_rule(variable.dtype, learning_rate))

    def slots(self, variable) -> list:
        """The optimizer variables of ``variable``, in ``row_rule``'s order."""
        raise NotImplementedError

    def row_rule(self, dtype, learning_rate):
        """``fn(gradient_rows, weight_rows, *slot_rows) -> [weight_rows, *slot_rows]`` for this step."""
        raise NotImplementedError

    def get_config(self):
        return {**super().get_config(), "row_sparse": dict(self.row_sparse)}


@keras.saving.register_keras_serializable(package="elmo_keras")
class LazyAdam(RowSparseUpdates, keras.optimizers.Adam):
    """``m ← β₁m + (1−β₁)g``, ``v ← β₂v + (1−β₂)g²``, ``w ← w − α_t · m / (√v + ε)`` on the touched rows of the
    row-sparse variables only (``α_t = lr · √(1−β₂ᵗ) / (1−β₁ᵗ)``, ``t`` every step so far); Keras' Adam elsewhere.

    Args:
        learning_rate: float, Adam's learning rate. Defaults to 0.001.
        row_sparse: ``{variable.path: row axis}`` of the row-sparse variables
            (``BiLanguageModel.row_sparse_variables()``). Defaults to None (none: Adam with dense gradients).
        name: str. Defaults to ``"lazy_adam"``.
        **kwargs: ``keras.optimizers.Adam``'s other arguments (``beta_1``, ``beta_2``, ``epsilon``, ``clipnorm``…);
            ``amsgrad``, ``weight_decay``, ``use_ema`` and ``gradient_accumulation_steps`` are refused.

    Example:
        >>> optimizer = LazyAdam(1e-3, clipnorm=5.0, row_sparse={"lm/embedding/embeddings": 0})
    """

    def __init__(self, learning_rate=0.001, row_sparse=None, name="lazy_adam", **kwargs):
        super().__init__(learning_rate=learning_rate, row_sparse=row_sparse, name=name, **kwargs)

    def slots(self, variable):
        index = self._get_variable_index(variable)
        return [self._momentums[index], self._velocities[index]]

    def row_rule(self, dtype, learning_rate):
        step = ops.cast(self.iterations + 1, dtype)  # Keras' Adam.update_step, on rows
        beta_1_power = ops.power(ops.cast(self.beta_1, dtype), step)
        beta_2_power = ops.power(ops.cast(self.beta_2, dtype), step)
        alpha = ops.cast(learning_rate, dtype) * ops.sqrt(1 - beta_2_power) / (1 - beta_1_power)

        def rule(gradient, weight, m, v):
            gradient = ops.cast(gradient, dtype)
            m = ops.add(m, ops.multiply(ops.subtract(gradient, m), 1 - self.beta_1))
            v = ops.add(v, ops.multiply(ops.subtract(ops.square(gradient), v), 1 - self.beta_2))
            weight = ops.subtract(weight, ops.divide(ops.multiply(m, alpha), ops.add(ops.sqrt(v), self.epsilon)))
            return [weight, m, v]

        return rule


@keras.saving.register_keras_serializable(package="elmo_keras")
class SparseAdagrad(RowSparseUpdates, keras.optimizers.Adagrad):
    """``a ← a + g²``, ``w ← w − lr · g / √(a + ε)`` (Adagrad), on the touched rows of the row-sparse variables
    only; Keras' Adagrad elsewhere. The defaults are bilm-tf's: ``tf.train.AdagradOptimizer(learning_rate=0.2,
    initial_accumulator_value=1.0)``, which has no ``ε``.

    Args:
        learning_rate: float. Defaults to 0.2 (bilm-tf's).
        initial_accumulator_value: float, every accumulator's start. Defaults to 1.0 (bilm-tf's).
        epsilon: float ≥ 0 added under the square root. Defaults to 0.0 (TensorFlow 1's Adagrad).
        row_sparse: ``{variable.path: row axis}``, as ``LazyAdam``'s. Defaults to None.
        name: str. Defaults to ``"sparse_adagrad"``.
        **kwargs: ``keras.optimizers.Adagrad``'s other arguments (``clipnorm``…); ``weight_decay``, ``use_ema`` and
            ``gradient_accumulation_steps`` are refused.

    Raises:
        ValueError: ``initial_accumulator_value + epsilon`` is not > 0 (the first step would divide by zero).
    """

    def __init__(self, learning_rate=BILM_TF_LEARNING_RATE, initial_accumulator_value=BILM_TF_INITIAL_ACCUMULATOR,
                 epsilon=0.0, row_sparse=None, name="sparse_adagrad", **kwargs):
        if not initial_accumulator_value + epsilon > 0:
            raise ValueError("initial_accumulator_value + epsilon must be > 0, received "
                             f"{initial_accumulator_value!r} + {epsilon!r}")
        super().__init__(learning_rate=learning_rate, initial_accumulator_value=initial_accumulator_value,
                         epsilon=epsilon, row_sparse=row_sparse, name=name, **kwargs)

    def slots(self, variable):
        return [self._accumulators[self._get_variable_index(variable)]]

    def row_rule(self, dtype, learning_rate):
        lr = ops.cast(learning_rate, dtype)

        def rule(gradient, weight, accumulator):  # Keras' Adagrad.update_step, on rows
            gradient = ops.cast(gradient, dtype)
            accumulator = ops.add(accumulator, ops.square(gradient))
            weight = ops.subtract(weight, ops.divide(ops.multiply(lr, gradient),
                                                     ops.sqrt(ops.add(accumulator, self.epsilon))))
            return [weight, accumulator]

        return rule
