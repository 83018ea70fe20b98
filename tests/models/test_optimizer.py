"""``DenseGradientAdam`` takes Adam's step for an embedding row that repeats in a batch, on every backend (Keras'
Adam on TensorFlow does not: it applies the per-token sparse slices row by row)."""

import numpy as np

from elmo_keras._quiet import keras
from elmo_keras.models import DenseGradientAdam
from tests.support.backend_support import to_numpy, value_and_gradients


def test_a_repeated_row_gets_adams_first_step():
    embedding = keras.layers.Embedding(5, 3)
    embedding.build((None,))
    before = to_numpy(embedding.embeddings).copy()
    ids = np.array([1, 1, 1, 1, 2])
    target = np.random.default_rng(0).normal(size=(5, 3)).astype("float32")
    optimizer = DenseGradientAdam(0.01)
    optimizer.build(embedding.trainable_variables)
    if keras.backend.backend() == "tensorflow":  # the sparse gradient that Keras' own Adam gets wrong
        import tensorflow as tf  # here: the tape gives the embedding's gradient as IndexedSlices

        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(embedding(ids) * target)
        gradients = tape.gradient(loss, embedding.trainable_variables)
        assert isinstance(gradients[0], tf.IndexedSlices)
    else:
        _, gradients = value_and_gradients(lambda: keras.ops.sum(keras.ops.multiply(embedding(ids), target)), [],
                                           embedding.trainable_variables)
        gradients = [keras.ops.convert_to_tensor(g) for g in gradients]
    optimizer.apply(gradients, embedding.trainable_variables)
    step = to_numpy(embedding.embeddings) - before
    dense_gradient = np.zeros((5, 3), "float32")
    np.add.at(dense_gradient, ids, target)
    # Adam's first step is −lr · sign(gradient) (up to epsilon) wherever the gradient is not zero
    np.testing.assert_allclose(step[[1, 2]], -0.01 * np.sign(dense_gradient[[1, 2]]), rtol=1e-4)
    np.testing.assert_array_equal(step[[0, 3, 4]], 0.0)


def test_it_round_trips_through_its_config():
    optimizer = DenseGradientAdam(0.02, clipnorm=5.0)
    restored = keras.optimizers.deserialize(keras.optimizers.serialize(optimizer))
    assert isinstance(restored, DenseGradientAdam) and restored.get_config() == optimizer.get_config()
