"""The stack runner: two directions together equal each stack alone; start states, final states and unrolling
agree; mismatched stacks are refused by name."""

import numpy as np
import pytest
from keras import ops

from elmo_keras._quiet import keras
from elmo_keras.layers import LSTMStack
from elmo_keras.layers.lstm_stack import run_lstm_stacks
from elmo_keras.layers.recurrence import StackOptions, run_stacks
from tests.support.backend_support import value_and_gradients

MASK = np.arange(7)[None, :] < np.array([[7], [4], [1]])


def _numpy(tensors):
    return [keras.ops.convert_to_numpy(t) for t in tensors]


def _stacks(skip=False, projection=None, unroll=False):
    keras.utils.set_random_seed(3)
    kwargs = dict(units=8, num_layers=2, projection_dim=projection, use_skip_connections=skip, unroll=unroll,
                  cell_clip=3.0 if projection else None, proj_clip=3.0 if projection else None)
    forward, backward = LSTMStack(**kwargs), LSTMStack(go_backwards=True, **kwargs)
    inputs = np.random.default_rng(0).normal(size=(3, 7, projection or 8)).astype("float32")
    forward.build(inputs.shape)
    backward.build(inputs.shape)
    return forward, backward, inputs


@pytest.mark.parametrize("skip, projection, unroll", [(False, None, False), (True, 6, False), (True, 6, True)])
def test_two_directions_together_equal_each_stack_alone(skip, projection, unroll):
    forward, backward, inputs = _stacks(skip, projection, unroll)
    together = run_lstm_stacks([forward, backward], inputs, MASK, training=True)  # the training loop (no dropout)
    for runner_outputs, stack in zip(together, (forward, backward)):
        alone = stack(inputs, mask=MASK)  # the inference loop
        assert len(runner_outputs) == len(alone) == 2
        for layer_together, layer_alone in zip(_numpy(runner_outputs), _numpy(alone)):
            np.testing.assert_allclose(layer_together, layer_alone, atol=1e-5)
            assert not layer_together[~MASK].any()  # zero at padding


@pytest.mark.parametrize("unroll", [False, True])
def test_start_and_final_states_of_both_directions(unroll):
    forward, backward, inputs = _stacks(projection=6, unroll=unroll)
    rng = np.random.default_rng(5)
    starts = [[(rng.normal(size=(3, 6)).astype("float32"), rng.normal(size=(3, 8)).astype("float32"))
               for _ in range(2)] for _ in range(2)]
    run = run_stacks([forward.direction(), backward.direction()], inputs, MASK, forward.options,
                     initial_states=starts, return_final_states=True)
    for position, stack in enumerate((forward, backward)):
        outputs, finals = stack.run(inputs, mask=MASK, initial_states=starts[position])
        for ours, alone in zip(_numpy(run.outputs[position]), _numpy(outputs)):
            np.testing.assert_allclose(ours, alone, atol=1e-5)
        for (h, c), (alone_h, alone_c), (start_h, _) in zip(run.final_states[position], finals, starts[position]):
            np.testing.assert_allclose(keras.ops.convert_to_numpy(h), keras.ops.convert_to_numpy(alone_h), atol=1e-5)
            np.testing.assert_allclose(keras.ops.convert_to_numpy(c), keras.ops.convert_to_numpy(alone_c), atol=1e-5)
    # the forward final state is the last real step's output; the backward one is the first token's
    top_forward, top_backward = _numpy(run.outputs[0])[-1], _numpy(run.outputs[1])[-1]
    final_forward, final_backward = (keras.ops.convert_to_numpy(run.final_states[d][-1][0]) for d in (0, 1))
    for row, length in enumerate(MASK.sum(axis=1)):
        np.testing.assert_allclose(final_forward[row], top_forward[row, length - 1], atol=1e-6)
        np.testing.assert_allclose(final_backward[row], top_backward[row, 0], atol=1e-6)


def test_a_row_without_tokens_keeps_its_start_state():
    forward, _, inputs = _stacks()
    mask = MASK.copy()
    mask[2] = False
    start = [(np.full((3, 8), 0.25, "float32"), np.full((3, 8), -0.5, "float32"))] * 2
    _, finals = forward.run(inputs, mask=mask, initial_states=start)
    for h, c in finals:
        np.testing.assert_allclose(keras.ops.convert_to_numpy(h)[2], 0.25)
        np.testing.assert_allclose(keras.ops.convert_to_numpy(c)[2], -0.5)


def test_unrolled_scanned_inference_and_custom_gradient_loops_agree():
    forward, backward, inputs = _stacks(projection=6)
    directions = [forward.direction(), backward.direction()]
    default = _numpy(run_stacks(directions, inputs, MASK, forward.options).outputs[1])
    unrolled = _numpy(run_stacks(directions, inputs, MASK, forward.options._replace(unroll=True)).outputs[1])
    scanned = _numpy(run_stacks(directions, inputs, MASK, forward.options, return_final_states=True).outputs[1])
    inference = _numpy(run_stacks(directions, inputs, MASK, forward.options, for_training=False).outputs[1])
    for a, b, c, d in zip(default, unrolled, scanned, inference):
        np.testing.assert_allclose(a, b, atol=1e-5)
        np.testing.assert_allclose(a, c, atol=1e-5)
        np.testing.assert_allclose(a, d, atol=1e-5)


def test_the_inference_loop_has_the_training_loops_gradient():
    """``for_training=False`` is differentiated by autodiff: the same gradient as the hand-written one."""
    forward, backward, inputs = _stacks(projection=6)
    weights = forward.trainable_variables + backward.trainable_variables
    gradients = []
    for for_training in (True, False):
        def loss(inputs, for_training=for_training):
            directions = [forward.direction(), backward.direction()]  # the weights as read inside the gradient
            outputs = run_stacks(directions, inputs, MASK, forward.options, for_training=for_training).outputs
            return sum(ops.sum(ops.square(layer)) for direction in outputs for layer in direction)

        gradients.append(value_and_gradients(loss, [inputs], weights)[1])
    for with_hand_written, with_autodiff in zip(*gradients):
        np.testing.assert_allclose(with_hand_written, with_autodiff, atol=1e-5)


def test_mismatched_or_stateful_stacks_are_refused():
    forward, _, inputs = _stacks()
    other = LSTMStack(8, num_layers=2, cell_clip=2.0, go_backwards=True, name="other")
    other.build(inputs.shape)
    with pytest.raises(ValueError, match=r"differ in cell_clip \(None vs 2.0\)"):
        run_lstm_stacks([forward, other], inputs, MASK)
    stateful = LSTMStack(8, num_layers=2, stateful=True, name="carrying")
    stateful.build(inputs.shape)
    with pytest.raises(ValueError, match="'carrying' is stateful"):
        run_lstm_stacks([forward, stateful], inputs, MASK)
    with pytest.raises(ValueError, match="one or two directions"):
        run_stacks([forward.direction()] * 3, inputs, MASK, StackOptions())
    with pytest.raises(ValueError, match="real token at step 4 after padding"):
        run_lstm_stacks([forward], inputs, ~MASK)
