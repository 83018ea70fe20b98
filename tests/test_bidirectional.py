"""run_bidirectional: the two-direction runner gives exactly what the forward and backward stacks give alone."""

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.layers import LSTMStack
from elmo_keras.layers.bidirectional import run_bidirectional


@pytest.mark.parametrize("skip, projection", [(False, None), (True, 6)])
def test_runner_equals_each_stack_run_alone(skip, projection):
    keras.utils.set_random_seed(3)
    kwargs = dict(units=8, num_layers=2, projection_dim=projection, use_skip_connections=skip,
                  cell_clip=3.0 if projection else None, proj_clip=3.0 if projection else None)
    forward, backward = LSTMStack(**kwargs), LSTMStack(go_backwards=True, **kwargs)
    width = projection or 8
    inputs = np.random.default_rng(0).normal(size=(3, 7, width)).astype("float32")
    mask = np.arange(7)[None, :] < np.array([[7], [4], [1]])
    forward.build(inputs.shape)
    backward.build(inputs.shape)
    together = run_bidirectional(forward, backward, inputs, mask)
    for runner_outputs, stack in zip(together, (forward, backward)):
        alone = stack(inputs, mask=mask)
        assert len(runner_outputs) == len(alone) == 2
        for layer_together, layer_alone in zip(runner_outputs, alone):
            np.testing.assert_allclose(keras.ops.convert_to_numpy(layer_together),
                                       keras.ops.convert_to_numpy(layer_alone), atol=1e-5)
            padded = keras.ops.convert_to_numpy(layer_together)[~mask]
            assert not padded.any()  # zero at padding
