"""``DenseGradientAdam``: Keras' Adam, given dense gradients on every backend.

On TensorFlow an embedding's gradient arrives as ``tf.IndexedSlices``, one slice per token, and Keras 3.15's
TensorFlow optimizer applies such slices row by row: when a word occurs several times in a batch, its row gets an
update that is not Adam's. Measured on a 5×3 embedding with ids ``[1, 1, 1, 1, 2]`` and learning rate 0.01, the
first step of row 1 was (−0.0015, +0.0027, −0.0033) where Adam's first step is ±0.01 in every element (as the
JAX and PyTorch backends give, and as row 2, seen once, gets). Summing the slices into a dense gradient first makes
the three backends take the same step (``tests/models/test_optimizer.py``).

Under a ``tf.distribute`` strategy Keras' TensorFlow optimizer clips each replica's gradient (``clipnorm``) and
then sums the replicas' gradients, so a clipped step differs from one device's on the same global batch. This
optimizer sums first (``models.bilm.distribution.sum_over_replicas``) and skips Keras' own sum, so ``clipnorm`` acts on
the global batch's gradient (``tests/models/bilm/test_distributed_training.py``).

``make_optimizer`` builds a trainer's optimizer by name: ``"adam"`` (this one, every trainer's default),
``"lazy_adam"`` or ``"adagrad"`` (``models.sparse_optimizers``: only the rows a step touched are updated).
"""

from __future__ import annotations

from elmo_keras._backend import dense_gradients
from elmo_keras._quiet import keras
from elmo_keras.models.bilm.distribution import SumsReplicasBeforeClipping, sum_over_replicas
from elmo_keras.models.bilm.presets import OPTIMIZERS
from elmo_keras.models.sparse_optimizers import LazyAdam, SparseAdagrad

CLIP_NORM = 5.0  # every trainer but the classifiers' clips its gradients to this norm (models.fitting)


@keras.saving.register_keras_serializable(package="elmo_keras")
class DenseGradientAdam(SumsReplicasBeforeClipping, keras.optimizers.Adam):
    """``keras.optimizers.Adam`` (same arguments) that sums sparse gradients into dense ones, and the replicas'
    gradients into the global batch's (under ``tf.distribute``), before clipping and updating."""

    def apply(self, grads, trainable_variables=None):
        return super().apply(sum_over_replicas(dense_gradients(grads)), trainable_variables)


def make_optimizer(name: str, learning_rate: float, clip_norm: float | None = CLIP_NORM,
                   row_sparse: dict | None = None) -> keras.optimizers.Optimizer:
    """The optimizer called ``name`` (one of ``OPTIMIZERS``), clipping each gradient tensor to ``clip_norm``.

    Args:
        name: ``"adam"`` (``DenseGradientAdam``: every row moves every step), ``"lazy_adam"`` (``LazyAdam``) or
            ``"adagrad"`` (``SparseAdagrad``, bilm-tf's Adagrad: initial accumulator 1.0, no epsilon).
        learning_rate: float.
        clip_norm: float or None (no clipping). Defaults to ``CLIP_NORM``.
        row_sparse: ``{variable.path: row axis}`` of the variables whose touched rows alone ``"lazy_adam"`` and
            ``"adagrad"`` update (``BiLanguageModel.row_sparse_variables()``); unused by ``"adam"``. Defaults to None.

    Raises:
        ValueError: an unknown ``name``.
    """
    if name == "adam":
        return DenseGradientAdam(learning_rate, clipnorm=clip_norm)
    if name == "lazy_adam":
        return LazyAdam(learning_rate, clipnorm=clip_norm, row_sparse=row_sparse)
    if name == "adagrad":
        return SparseAdagrad(learning_rate, clipnorm=clip_norm, row_sparse=row_sparse)
    raise ValueError(f"optimizer must be one of {OPTIMIZERS}, received {name!r}")
