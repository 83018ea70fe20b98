"""Row-sparse updates (``models.sparse_optimizers``, ``_backend.sparse_rows``, ``BiLMConfig.optimizer``): ``LazyAdam``
is dense Adam on every row a step touched and leaves every other row and its moments bit for bit; a repeated id is
summed first; ``SparseAdagrad`` is bilm-tf's Adagrad re-derived in NumPy; ``train_bilm`` with either is deterministic
and resumes exactly. Run on each backend: TensorFlow's embedding gradient arrives as ``tf.IndexedSlices`` (the
sparse path), its softmax-kernel gradient dense (the scanned path); JAX's and PyTorch's are dense.

The variables: an embedding `(6, 3)` read by id (axis 0), a softmax kernel `(3, 6)` read by column (axis 1), a bias
`(6,)` read by id, and a dense matrix `(2, 3)` every step reads whole (Keras' own step).
"""

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.cli import main
from elmo_keras.models.bilm import training as training_module  # the train command imports train_bilm from here
from elmo_keras.models.bilm.checkpoint_files import CheckpointError, run_identity
from elmo_keras.models.bilm.language_model import build_bilm_lm
from elmo_keras.models.bilm.presets import BiLMConfig
from elmo_keras.models.bilm.training import train_bilm
from elmo_keras.models.optimizer import DenseGradientAdam, make_optimizer
from elmo_keras.models.sparse_optimizers import LazyAdam, SparseAdagrad
from elmo_keras.text.vocabulary import Vocabulary
from tests.support.backend_support import BACKEND, to_numpy, value_and_gradients
from tests.support.resume_worker import CONFIG, CORPUS, StopAfterStep

ROWS, DIM = 6, 3
RNG = np.random.default_rng(0)
START = [RNG.normal(size=shape).astype("float32") for shape in ((ROWS, DIM), (DIM, ROWS), (ROWS,), (2, DIM))]
AXES = (0, 1, 0)  # the first three variables' row axes
LEARNING_RATE = 0.1


def make_variables():
    return [keras.Variable(value, name=name) for value, name in zip(START, ("embedding", "kernel", "bias", "dense"))]


def row_sparse(variables):
    return {variable.path: axis for variable, axis in zip(variables, AXES)}


def loss_fn(variables, ids, weights):
    """``Σ weights_i · (E[id_i] · 1 + K[:, id_i] · 1 + b[id_i]) + Σ D``: row ``r``'s gradient is the sum of the
    weights of the positions holding ``r`` (zero where no position does)."""
    embedding, kernel, bias, dense = variables
    ops = keras.ops
    ids, weights = ops.convert_to_tensor(ids), ops.convert_to_tensor(weights)
    per_position = (ops.sum(ops.take(embedding, ids, axis=0), axis=1) + ops.sum(ops.take(kernel, ids, axis=1), axis=0)
                    + ops.take(bias, ids, axis=0))
    return ops.sum(per_position * weights) + ops.sum(dense * ops.sum(weights))


def gradients_of(variables, ids, weights):
    """The backend's own gradients: ``tf.IndexedSlices`` for the TensorFlow gathers along axis 0, dense otherwise."""
    ids, weights = np.asarray(ids, "int32"), np.asarray(weights, "float32")
    if BACKEND == "tensorflow":
        import tensorflow as tf  # here: the tape keeps TensorFlow's sparse gradients as they reach the optimizer

        with tf.GradientTape() as tape:
            loss = loss_fn(variables, ids, weights)
        gradients = tape.gradient(loss, variables)
        assert isinstance(gradients[0], tf.IndexedSlices) and not isinstance(gradients[1], tf.IndexedSlices)
        return gradients
    _, gradients = value_and_gradients(lambda: loss_fn(variables, ids, weights), [], variables)
    return [keras.ops.convert_to_tensor(g) for g in gradients]


def train(optimizer, steps):
    """Apply ``optimizer`` for ``steps`` ``(ids, weights)``; the variables' and slots' values after each step."""
    variables = make_variables()
    optimizer.build(variables)
    after = []
    for ids, weights in steps:
        optimizer.apply(gradients_of(variables, ids, weights), variables)
        after.append(([to_numpy(v).copy() for v in variables], [to_numpy(v).copy() for v in optimizer.variables]))
    return after, variables, optimizer


def lazy(**options):
    variables = make_variables()
    return LazyAdam(LEARNING_RATE, row_sparse=row_sparse(variables), **options)


EVERY_ROW = (np.arange(ROWS), RNG.uniform(0.5, 1.5, ROWS))
SOME_ROWS = ([1, 3, 3, 4], [0.7, -0.4, 1.1, 0.3])  # rows 0, 2, 5 untouched; row 3 twice


def test_lazy_adam_is_dense_adam_when_every_row_is_touched_every_step():
    steps = [EVERY_ROW, (np.arange(ROWS)[::-1], RNG.uniform(-1.5, -0.5, ROWS)), EVERY_ROW]
    dense, _, _ = train(DenseGradientAdam(LEARNING_RATE), steps)
    mine, _, _ = train(lazy(), steps)
    for (weights, slots), (dense_weights, dense_slots) in zip(mine, dense):
        for a, b in zip(weights + slots, dense_weights + dense_slots):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_untouched_rows_and_their_moments_stay_bit_for_bit_and_touched_rows_take_adams_step():
    steps = [EVERY_ROW, SOME_ROWS]
    mine, variables, optimizer = train(lazy(), steps)
    dense, _, _ = train(DenseGradientAdam(LEARNING_RATE), steps)
    untouched, touched = [0, 2, 5], [1, 3, 4]
    for k, axis in enumerate(AXES):
        after_first, after_second = mine[0][0][k], mine[1][0][k]
        np.testing.assert_array_equal(np.take(after_second, untouched, axis), np.take(after_first, untouched, axis))
        np.testing.assert_allclose(np.take(after_second, touched, axis), np.take(dense[1][0][k], touched, axis),
                                   rtol=1e-6, atol=1e-6)
        # dense Adam moves the untouched rows on their momentum: what LazyAdam does not do
        assert not np.allclose(np.take(dense[1][0][k], untouched, axis), np.take(after_first, untouched, axis))
    _, first_variables, first_optimizer = train(lazy(), steps[:1])  # the moments after step 1
    for k, axis in enumerate(AXES):
        for now, then in zip(optimizer.slots(variables[k]), first_optimizer.slots(first_variables[k])):
            now, then = to_numpy(now), to_numpy(then)
            np.testing.assert_array_equal(np.take(now, untouched, axis), np.take(then, untouched, axis))
            assert not np.array_equal(np.take(now, touched, axis), np.take(then, touched, axis))
    np.testing.assert_allclose(mine[1][0][3], dense[1][0][3], rtol=1e-6)  # the dense variable: Keras' Adam


def adam_numpy(steps_gradients, start, lr=LEARNING_RATE, beta_1=0.9, beta_2=0.999, epsilon=1e-7):
    """Dense Adam in NumPy (Keras' formula) on a sequence of dense gradients."""
    weight, m, v = start.astype("float64"), np.zeros(start.shape), np.zeros(start.shape)
    for t, gradient in enumerate(steps_gradients, start=1):
        m = m + (gradient - m) * (1 - beta_1)
        v = v + (gradient ** 2 - v) * (1 - beta_2)
        weight = weight - lr * np.sqrt(1 - beta_2 ** t) / (1 - beta_1 ** t) * m / (np.sqrt(v) + epsilon)
    return weight


def test_a_repeated_id_takes_adams_step_on_its_summed_gradient():
    ids, weights = [2, 2, 2, 2, 4, 2], [0.5, -0.1, 0.25, 0.05, 0.3, 0.2]  # row 2: six uses summing to 0.9
    summed = np.zeros(ROWS)
    np.add.at(summed, ids, weights)
    mine, _, _ = train(lazy(), [(ids, weights)] * 2)
    for k, axis in enumerate(AXES):
        gradient = np.expand_dims(summed, 1 - axis) * np.ones_like(START[k]) if START[k].ndim == 2 else summed
        expected = adam_numpy([gradient, gradient], START[k])
        np.testing.assert_allclose(mine[1][0][k], expected, rtol=1e-5, atol=1e-5)  # float32 against float64


def test_clipping_acts_on_the_summed_gradient_as_dense_adam_clips_it():
    steps = [([0, 1, 1, 2, 3, 4, 5, 5, 5], np.full(9, 3.0)), EVERY_ROW]  # norms far above clipnorm 0.5
    dense, _, _ = train(DenseGradientAdam(LEARNING_RATE, clipnorm=0.5, epsilon=1.0), steps)  # ε 1: the scale shows
    mine, _, _ = train(lazy(clipnorm=0.5, epsilon=1.0), steps)
    unclipped, _, _ = train(lazy(epsilon=1.0), steps)
    for k in range(4):
        np.testing.assert_allclose(mine[1][0][k], dense[1][0][k], rtol=1e-6, atol=1e-6)
        assert not np.allclose(unclipped[1][0][k], dense[1][0][k])  # the clip was active


def adagrad_numpy(steps_gradients, start, lr, initial):
    """bilm-tf's ``tf.train.AdagradOptimizer``: ``a += g²``, ``w -= lr · g / √a`` (no ε)."""
    weight, accumulator = start.astype("float64"), np.full(start.shape, initial)
    for gradient in steps_gradients:
        accumulator = accumulator + gradient ** 2
        weight = weight - lr * gradient / np.sqrt(accumulator)
    return weight, accumulator


def test_sparse_adagrad_is_bilm_tfs_adagrad():
    steps = [EVERY_ROW, SOME_ROWS, ([5, 0, 0], [2.0, -1.0, 0.5])]
    variables = make_variables()
    optimizer = make_optimizer("adagrad", 0.2, clip_norm=None, row_sparse=row_sparse(variables))
    assert isinstance(optimizer, SparseAdagrad) and optimizer.initial_accumulator_value == 1.0
    mine, variables, optimizer = train(optimizer, steps)
    dense_gradients = []
    for ids, weights in steps:
        summed = np.zeros(ROWS)
        np.add.at(summed, ids, weights)
        dense_gradients.append(summed)
    for k, axis in enumerate(AXES):
        gradients = [np.expand_dims(g, 1 - axis) * np.ones_like(START[k]) if START[k].ndim == 2 else g
                     for g in dense_gradients]
        weight, accumulator = adagrad_numpy(gradients, START[k], 0.2, 1.0)
        np.testing.assert_allclose(mine[-1][0][k], weight, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(to_numpy(optimizer.slots(variables[k])[0]), accumulator, rtol=1e-6)
    weight, _ = adagrad_numpy([np.full((2, DIM), np.sum(w)) for _, w in steps], START[3], 0.2, 1.0)
    np.testing.assert_allclose(mine[-1][0][3], weight, rtol=1e-6)  # the dense variable: Keras' Adagrad, same rule


def test_the_optimizers_round_trip_through_their_config_and_refuse_what_would_move_every_row():
    for optimizer in (lazy(clipnorm=5.0), SparseAdagrad(clipnorm=5.0, row_sparse={"a/b": 1})):
        restored = keras.optimizers.deserialize(keras.optimizers.serialize(optimizer))
        assert type(restored) is type(optimizer) and restored.get_config() == optimizer.get_config()
    with pytest.raises(ValueError, match="amsgrad=True would change every row"):
        LazyAdam(amsgrad=True)
    with pytest.raises(ValueError, match=r"row_sparse names variables the optimizer is not built on: \['nowhere/x'\]"):
        LazyAdam(row_sparse={"nowhere/x": 0}).build(make_variables())
    with pytest.raises(ValueError, match="initial_accumulator_value \\+ epsilon must be > 0"):
        SparseAdagrad(initial_accumulator_value=0.0)
    with pytest.raises(ValueError, match="optimizer must be one of"):
        BiLMConfig(optimizer="sgd")
    with pytest.raises(ValueError, match="optimizer must be one of"):
        make_optimizer("sgd", 0.1)


def test_the_bilm_names_its_row_sparse_variables():
    paths = {}
    for name, config in (("word, sampled", BiLMConfig(embedding_dim=8, units=8, num_layers=1, n_negative_samples=4)),
                         ("word, full", BiLMConfig(embedding_dim=8, units=8, num_layers=1)),
                         ("char, sampled", BiLMConfig(token_input="char", embedding_dim=4, units=8, num_layers=1,
                                                      char_filters=((1, 4),), n_negative_samples=4))):
        model = build_bilm_lm(config, 20)
        model.build((None, None) if config.token_input == "word" else (None, None, 50))
        paths[name] = {"/".join(path.split("/")[-2:]): axis for path, axis in model.row_sparse_variables().items()}
    assert paths == {"word, sampled": {"embedding/embeddings": 0, "softmax/kernel": 1, "softmax/bias": 0},
                     "word, full": {"embedding/embeddings": 0},
                     "char, sampled": {"softmax/kernel": 1, "softmax/bias": 0}}


# -- train_bilm ---------------------------------------------------------------------------------------------------

SAMPLED = CONFIG.replace(n_negative_samples=6, epochs=2)  # 5 steps per epoch, dropout 0.3


def train_run(optimizer, checkpoint_dir=None, resume=False, callbacks=None):
    return train_bilm(CORPUS, size=SAMPLED, seed=3, optimizer=optimizer, checkpoint_dir=checkpoint_dir,
                      checkpoint_every=2 if checkpoint_dir is not None else None, resume=resume, callbacks=callbacks)


def values(model):
    return [to_numpy(v).copy() for v in model.variables] + [to_numpy(v).copy() for v in model.optimizer.variables]


class Interrupted(Exception):
    pass


def interrupt():
    raise Interrupted()


@pytest.mark.slow
@pytest.mark.parametrize("optimizer", ["lazy_adam", "adagrad"])
def test_train_bilm_with_row_sparse_updates_is_deterministic_and_resumes_exactly(tmp_path, optimizer):
    reference = train_run(optimizer, tmp_path / "reference")
    assert reference.config.optimizer == optimizer
    assert type(reference.optimizer) is {"lazy_adam": LazyAdam, "adagrad": SparseAdagrad}[optimizer]
    again = train_run(optimizer)
    for mine, theirs in zip(values(again), values(reference)):
        np.testing.assert_array_equal(mine, theirs)
    assert again.training_summary["history"] == reference.training_summary["history"]

    with pytest.raises(Interrupted):
        train_run(optimizer, tmp_path / "resumed", callbacks=[StopAfterStep(7, interrupt)])  # mid epoch 2
    resumed = train_run(optimizer, tmp_path / "resumed", resume=True)
    assert resumed.training_summary["checkpoints"]["note"] == "resumed from checkpoint-000000006.npz (step 6)"
    for mine, theirs in zip(values(resumed), values(reference)):
        np.testing.assert_array_equal(mine, theirs)
    assert resumed.training_summary["history"] == reference.training_summary["history"]
    other = "adam" if optimizer == "lazy_adam" else "lazy_adam"  # another optimizer cannot continue the run
    with pytest.raises(CheckpointError, match=f"config.optimizer: '{optimizer}' in the checkpoint, '{other}' now"):
        train_run(other, tmp_path / "resumed", resume=True)


def test_the_default_optimizer_is_todays_and_leaves_the_run_identity_as_it_was():
    assert BiLMConfig().optimizer == "adam" and isinstance(make_optimizer("adam", 0.1), DenseGradientAdam)
    vocabulary = Vocabulary(["bank"])
    config = BiLMConfig().to_dict()
    written_before = {key: value for key, value in config.items() if key != "optimizer"}  # a checkpoint's, before
    assert run_identity(config, 0, vocabulary, "", 5) == run_identity(written_before, 0, vocabulary, "", 5)
    assert run_identity({**config, "optimizer": "lazy_adam"}, 0, vocabulary, "", 5)["config"]["optimizer"] == (
        "lazy_adam")


def test_the_command_line_passes_the_optimizer(monkeypatch, tmp_path):
    received = {}

    def fake_training(*args, **kwargs):
        received.update(kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(training_module, "train_bilm", fake_training)
    main(["train", str(tmp_path / "m"), "--size", "tiny", "--optimizer", "adagrad", "--learning-rate", "0.2"])
    assert received["optimizer"] == "adagrad"
