"""Gradient flow through a vanilla RNN and an LSTM: the measured ``∂L/∂h_t`` against backprop by hand in NumPy,
the clipping claims (and Keras' ``clipnorm`` against the formula), vanishing vs gating, and the toy task."""

from __future__ import annotations

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.analysis.gradient_study.cells import ForgetGateLSTMCell, TanhRNNCell
from elmo_keras.analysis.gradient_study.flow import (
    clip_by_norm,
    clipnorm_optimizer_step,
    far_near_ratio,
    gradient_norms_by_distance,
    state_gradients,
)
from elmo_keras.analysis.gradient_study.models import RecurrentClassifier
from elmo_keras.analysis.gradient_study.results import (
    INITIAL,
    MEASURE_BATCH,
    MEASURE_SEED,
    TRAINED,
    gradient_study,
    measure_gradients,
    quiz_numbers,
    untrained_models,
)
from elmo_keras.analysis.gradient_study.task import INPUT_DIM, NUM_SYMBOLS, remember_first_batch, train_remember_first

LENGTH = 12  # one sequence length for every test: JAX compiles each new shape
UNITS = 8
TOLERANCE = 1e-5  # float32 forward/backward vs float64 NumPy, relative to the largest gradient entry


@pytest.fixture(scope="module")
def batch():
    """The sequences ``measure_gradients`` measures on: one input shape for every test (JAX compiles per shape)."""
    return remember_first_batch(MEASURE_BATCH, LENGTH, seed=MEASURE_SEED)


def weights(model):
    """The cell's weights by name, float64; ``head_kernel``, ``head_bias`` for the output layer."""
    named = {w.path.split("/")[-1]: w for w in model.cell.weights}
    named.update(head_kernel=model.head.kernel, head_bias=model.head.bias)
    return {name: keras.ops.convert_to_numpy(w.value).astype("float64") for name, w in named.items()}


def numpy_rnn_state_gradients(model, inputs, targets):
    """∂L/∂h_t by hand: forward h_t = tanh(x W + h U + b), logits = h_T V + a, L = mean CE; then backward."""
    w = weights(model)
    kernel, recurrent, bias = w["kernel"], w["recurrent_kernel"], w["bias"]
    head_kernel, head_bias = w["head_kernel"], w["head_bias"]
    batch, steps, _ = inputs.shape
    hidden = np.zeros((batch, steps, model.units))
    h = np.zeros((batch, model.units))
    for t in range(steps):
        h = np.tanh(inputs[:, t] @ kernel + h @ recurrent + bias)
        hidden[:, t] = h
    logits = h @ head_kernel + head_bias
    probabilities = np.exp(logits - logits.max(-1, keepdims=True))
    probabilities /= probabilities.sum(-1, keepdims=True)
    d_logits = (probabilities - np.eye(model.num_classes)[targets]) / batch  # mean cross-entropy
    gradients = np.zeros_like(hidden)
    gradients[:, -1] = d_logits @ head_kernel.T
    for t in range(steps - 1, 0, -1):  # h_t = tanh(... + h_{t−1} U): dh_{t−1} = (dh_t ⊙ (1 − h_t²)) Uᵀ
        gradients[:, t - 1] = (gradients[:, t] * (1 - hidden[:, t] ** 2)) @ recurrent.T
    return gradients


def test_rnn_state_gradients_match_backprop_by_hand(batch):
    model = RecurrentClassifier("rnn", UNITS, NUM_SYMBOLS, recurrent_scale=1.2, seed=5)
    measured = state_gradients(model, batch)
    expected = numpy_rnn_state_gradients(model, *batch)
    assert measured.cell is None and measured.hidden.shape == (MEASURE_BATCH, LENGTH, UNITS)
    np.testing.assert_allclose(measured.hidden, expected, atol=TOLERANCE * np.abs(expected).max())
    table = gradient_norms_by_distance(model, batch)
    np.testing.assert_allclose(table["hidden"], np.linalg.norm(expected[:, ::-1], axis=(0, 2)), rtol=1e-4)
    assert list(table["distance"]) == list(range(LENGTH))


def test_lstm_cell_gradient_obeys_the_forget_gate(batch):
    """∂L/∂c_{t−1} = ∂L/∂c_t ⊙ f_t + (paths through h_{t−1}); with U = 0 the h path carries only via the gates'
    ``U``, so ∂L/∂c_{t−1} = ∂L/∂c_t ⊙ f_t + ∂L/∂h_{t−1} ⊙ o_{t−1} ⊙ tanh′(c_{t−1}), checked with the measured
    ``∂L/∂h`` (1e-5 relative)."""
    model = RecurrentClassifier("lstm", UNITS, NUM_SYMBOLS, forget_bias=1.0, seed=5)
    model(batch[0])
    model.cell.recurrent_kernel.assign(np.zeros((UNITS, 4 * UNITS), "float32"))
    measured = state_gradients(model, batch)
    trajectory = model.trajectory(batch[0])
    cells = keras.ops.convert_to_numpy(trajectory["cell"]).astype("float64")
    w = weights(model)
    z_o = batch[0] @ w["kernel"][:, 3 * UNITS:] + w["bias"][3 * UNITS:]  # U = 0: gates depend on x only
    output_gate = 1 / (1 + np.exp(-z_o))
    expected = (measured.cell[:, 1:] * measured.forget[:, 1:]
                + measured.hidden[:, :-1] * output_gate[:, :-1] * (1 - np.tanh(cells[:, :-1]) ** 2))
    np.testing.assert_allclose(measured.cell[:, :-1], expected, atol=TOLERANCE * np.abs(expected).max())


# -- the clipping claim ---------------------------------------------------------------------------------------


def test_clipping_scales_large_gradients_to_theta_and_leaves_small_ones(batch):
    exploding = RecurrentClassifier("rnn", UNITS, NUM_SYMBOLS, recurrent_scale=3.0, seed=5)
    vanishing = RecurrentClassifier("rnn", UNITS, NUM_SYMBOLS, recurrent_scale=0.5, seed=5)
    large, small = (state_gradients(model, batch).hidden.astype("float64") for model in (exploding, vanishing))
    theta = float(np.linalg.norm(small)) * 2  # between the two norms
    assert np.linalg.norm(large) > theta > np.linalg.norm(small)
    for gradient in (large, small):
        clipped = clip_by_norm(gradient, theta)
        assert np.linalg.norm(clipped) <= np.linalg.norm(gradient) * (1 + 1e-12)  # never longer
        per_step, clipped_per_step = (np.linalg.norm(g, axis=(0, 2))[::-1] for g in (gradient, clipped))
        assert far_near_ratio(clipped_per_step, LENGTH - 1) == pytest.approx(far_near_ratio(per_step, LENGTH - 1),
                                                                             rel=1e-9)
    assert np.linalg.norm(clip_by_norm(large, theta)) == pytest.approx(theta, rel=1e-9)  # exactly θ
    np.testing.assert_array_equal(clip_by_norm(small, theta), small)  # untouched
    per_step = np.linalg.norm(large, axis=(0, 2))[::-1]
    assert far_near_ratio(per_step, LENGTH - 1) > 10  # the exploding case does explode


@pytest.mark.parametrize("scale", [0.5, 2.0])
def test_keras_clipnorm_step_matches_the_formula(scale):
    gradient = np.random.default_rng(0).normal(size=(3, 5)).astype("float32")
    theta = float(np.linalg.norm(gradient)) * scale  # 0.5: clipped, 2.0: untouched
    np.testing.assert_allclose(clipnorm_optimizer_step(gradient, theta), clip_by_norm(gradient, theta), rtol=1e-6)


def test_clipping_refuses_a_bad_threshold():
    with pytest.raises(ValueError, match="threshold must be a finite number > 0, received 0"):
        clip_by_norm(np.ones(3), 0)


# -- vanishing vs gating --------------------------------------------------------------------------------------


def test_vanilla_rnn_gradient_vanishes_and_the_lstm_forget_gate_keeps_it(batch):
    rnn = gradient_norms_by_distance(RecurrentClassifier("rnn", UNITS, NUM_SYMBOLS, recurrent_scale=0.5), batch)
    lstm = gradient_norms_by_distance(RecurrentClassifier("lstm", UNITS, NUM_SYMBOLS, forget_bias=5.0), batch)
    far = LENGTH - 1
    rnn_ratio, lstm_ratio = far_near_ratio(rnn["hidden"], far), far_near_ratio(lstm["cell"], far)
    assert rnn_ratio < 1e-3  # ~0.5^11 · tanh′ factors
    assert lstm_ratio > 0.3  # ∏ f_t with f ≈ σ(5) ≈ 0.99
    assert lstm["forget"].min() > 0.95
    assert np.all(np.diff(np.log(rnn["hidden"])) < 0)  # decays at every step


def test_study_tables_and_quiz_numbers(batch):
    models = untrained_models(UNITS, rnn_scale=0.8, forget_bias=3.0)
    models.update({(label, TRAINED): model for (label, stage), model in list(models.items()) if stage == INITIAL})
    study = gradient_study(measure_gradients(models, LENGTH, rnn_scale=0.8), theta=0.05)
    numbers = quiz_numbers(study)
    assert numbers["rnn_clipped_ratio"] == pytest.approx(numbers["rnn_ratio"], rel=1e-9)
    assert numbers["exploding_clipped_norm"] == pytest.approx(0.05, rel=1e-6)
    assert numbers["exploding_norm"] > 0.05
    assert (study.clip_summary["clipped_norm"] <= study.clip_summary["gradient_norm"] * (1 + 1e-9)).all()
    ratios = study.decay.set_index("shrink")["ratio"].sort_index()
    assert ratios.is_monotonic_increasing  # more shrinking (weight decay), more vanishing
    assert numbers["lstm_cell_ratio_initial"] > 10 * numbers["rnn_ratio"]


# -- the model and the task -----------------------------------------------------------------------------------


def test_task_batch_and_errors():
    inputs, targets = remember_first_batch(10, 5, seed=0)
    assert inputs.shape == (10, 5, INPUT_DIM) and np.bincount(targets).max() - np.bincount(targets).min() <= 1
    np.testing.assert_array_equal(inputs[:, 0].argmax(-1), targets)
    assert (inputs[:, 1:].argmax(-1) >= NUM_SYMBOLS).all()
    with pytest.raises(ValueError, match="length must be an int ≥ 2"):
        remember_first_batch(4, 1)
    with pytest.raises(ValueError, match="cell_type must be one of"):
        RecurrentClassifier("gru")
    with pytest.raises(ValueError, match="forget_bias must be a number"):
        ForgetGateLSTMCell(4, forget_bias="high")


def test_masked_steps_keep_the_state(batch):
    model = RecurrentClassifier("lstm", UNITS, NUM_SYMBOLS)
    inputs = batch[0]
    padded = np.concatenate([inputs[:, :LENGTH - 3], np.ones_like(inputs[:, :3])], axis=1)
    mask = np.arange(LENGTH) < LENGTH - 3
    short = model.trajectory(inputs[:, :LENGTH - 3])["logits"]
    masked = model.trajectory(padded, mask=np.broadcast_to(mask, (len(inputs), LENGTH)))["logits"]
    np.testing.assert_allclose(keras.ops.convert_to_numpy(masked), keras.ops.convert_to_numpy(short), atol=1e-6)


def test_cells_run_in_a_keras_rnn_and_the_model_round_trips(tmp_path, batch):
    for cell in (TanhRNNCell(UNITS), ForgetGateLSTMCell(UNITS, forget_bias=2.0)):
        assert keras.layers.RNN(cell)(batch[0]).shape == (MEASURE_BATCH, UNITS)
    model = RecurrentClassifier("lstm", UNITS, NUM_SYMBOLS, forget_bias=2.0, seed=1)
    before = keras.ops.convert_to_numpy(model(batch[0]))
    model.save(tmp_path / "model.keras")
    loaded = keras.saving.load_model(tmp_path / "model.keras")
    assert loaded.get_config() == model.get_config()
    np.testing.assert_allclose(keras.ops.convert_to_numpy(loaded(batch[0])), before, atol=1e-6)


def test_training_reduces_the_lstm_loss():
    model = RecurrentClassifier("lstm", UNITS, NUM_SYMBOLS, seed=0)
    run = train_remember_first(model, length=LENGTH, count=256, epochs=4, batch_size=16, learning_rate=0.03)
    assert len(run.loss) == 4 and run.loss[-1] < run.loss[0] - 0.5  # from chance, ln 4 ≈ 1.39
    assert run.accuracy[-1] > 0.5  # chance: 0.25
