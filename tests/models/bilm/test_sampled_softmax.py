"""Sampled softmax (``models.bilm.sampled_softmax``) and ``BiLanguageModel(n_negative_samples=...)``: a NumPy
re-derivation of the loss, accidental hits, the log-uniform sampler, convergence to the full loss, training."""

import numpy as np
import pytest

from elmo_keras._backend import compile_function, fit_jit_compile
from elmo_keras._quiet import keras
from elmo_keras.models import BiLanguageModel, BiLMConfig, build_bilm_lm, get_size
from elmo_keras.models.bilm.sampled_softmax import (
    log_uniform_log_probabilities,
    sample_candidates,
    sampled_softmax_losses,
)
from elmo_keras.models.optimizer import DenseGradientAdam
from elmo_keras.text import PAD_ID, Vocabulary, lm_inputs_and_targets
from tests.support.backend_support import to_numpy

TRAIN = [
    "the cat sat on the mat .",
    "the dog sat on the rug .",
    "a cat ate the fish .",
    "a dog ate the bone .",
    "the cat saw the dog .",
    "the dog saw the cat .",
]
HELDOUT = ["the dog sat on the mat .", "a cat ate the bone ."]
SAMPLED_TINY = get_size("tiny").replace(n_negative_samples=16)


def numpy_sampled_loss(hidden, targets, kernel, bias, candidates, log_counts):
    """``log(exp(s_t) + Σ_j [c_j ≠ t] exp(s_{c_j} − log_count_j)) − s_t`` per row, in float64."""
    logits = hidden.astype("float64") @ kernel.astype("float64") + bias  # (N, V)
    losses = []
    for row, target in enumerate(targets):
        terms = [logits[row, target]] + [logits[row, c] - lc for c, lc in zip(candidates, log_counts) if c != target]
        terms = np.array(terms)
        losses.append(np.log(np.exp(terms - terms.max()).sum()) + terms.max() - logits[row, target])
    return np.array(losses)


def random_softmax(vocab_size=40, dim=8, rows=12, seed=0):
    rng = np.random.default_rng(seed)
    hidden = rng.normal(size=(rows, dim)).astype("float32")
    kernel = (rng.normal(size=(dim, vocab_size)) * 0.5).astype("float32")
    bias = (-np.log(np.arange(1, vocab_size + 1))).astype("float32")  # Zipf-like, as a trained LM's
    targets = rng.integers(1, vocab_size, size=rows).astype("int32")
    return hidden, targets, kernel, bias


def test_loss_matches_a_numpy_re_derivation_for_fixed_candidates():
    hidden, targets, kernel, bias = random_softmax()
    candidates = np.array([0, 1, 5, 5, 17, 39], "int32")  # PAD, then draws (5 twice: with replacement)
    log_counts = np.array([0.0, -0.3, 0.7, 0.7, 1.9, 2.5], "float32")
    losses = to_numpy(sampled_softmax_losses(hidden.reshape(3, 4, 8), targets.reshape(3, 4), kernel, bias,
                                             candidates, log_counts))
    assert losses.shape == (3, 4)
    expected = numpy_sampled_loss(hidden, targets, kernel, bias, candidates, log_counts)
    np.testing.assert_allclose(losses.reshape(-1), expected, rtol=1e-5, atol=1e-5)


def test_accidental_hits_are_removed():
    hidden, _, kernel, bias = random_softmax(rows=2)
    targets = np.array([5, 6], "int32")
    with_hit = to_numpy(sampled_softmax_losses(hidden, targets, kernel, bias, np.array([0, 5, 9], "int32"),
                                               np.zeros(3, "float32")))
    without = to_numpy(sampled_softmax_losses(hidden, targets, kernel, bias, np.array([0, 9], "int32"),
                                              np.zeros(2, "float32")))
    assert with_hit[0] == pytest.approx(without[0], abs=1e-6)  # candidate 5 is row 0's target: dropped
    assert with_hit[1] > without[1] + 1e-3  # but a negative for row 1
    # a target that is every candidate leaves only itself in the softmax: loss 0
    alone = to_numpy(sampled_softmax_losses(hidden[:1], np.array([7], "int32"), kernel, bias,
                                            np.array([7, 7], "int32"), np.zeros(2, "float32")))
    assert alone[0] == pytest.approx(0.0, abs=1e-6)


def test_the_sampler_draws_log_uniform_ids_and_never_pad():
    vocab_size, draws = 30, 200_000
    candidates, log_counts = (to_numpy(t) for t in sample_candidates(draws, vocab_size, seed=3))
    assert candidates[0] == PAD_ID and log_counts[0] == 0.0  # always a candidate, counted exactly
    drawn = candidates[1:]
    assert drawn.min() >= 1 and drawn.max() <= vocab_size - 1
    ranks = np.arange(vocab_size - 1)
    q = np.log((ranks + 2) / (ranks + 1)) / np.log(vocab_size)  # q(rank), rank = id − 1
    assert q.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(to_numpy(log_uniform_log_probabilities(ranks + 1, vocab_size)), np.log(q), rtol=1e-5)
    np.testing.assert_allclose(log_counts[1:], np.log(draws * q[drawn - 1]), rtol=1e-5)
    frequencies = np.bincount(drawn - 1, minlength=vocab_size - 1) / draws
    # each id's frequency within 5 standard errors of q (a false alarm for one of 29 ids: < 1e-5)
    np.testing.assert_array_less(np.abs(frequencies - q), 5 * np.sqrt(q * (1 - q) / draws))


def test_sampled_loss_approaches_the_full_loss_as_samples_grow():
    vocab_size, sizes = 400, (8, 64, 400, 4000)
    hidden, targets, kernel, bias = random_softmax(vocab_size=vocab_size, dim=16, rows=64, seed=1)
    logits = hidden.astype("float64") @ kernel + bias
    full = np.mean(np.log(np.exp(logits).sum(-1)) - logits[np.arange(len(targets)), targets])
    def mean_loss(ids, counts):
        return keras.ops.mean(sampled_softmax_losses(hidden, targets, kernel, bias, ids, counts))

    if keras.backend.backend() == "jax":  # one compilation per size, not one per op and size (XLA on TF: slower)
        mean_loss = compile_function(mean_loss)
    errors = {size: [] for size in sizes}
    for seed in range(8):
        ids, log_counts = (to_numpy(t) for t in sample_candidates(sizes[-1], vocab_size, seed=seed))
        for size in sizes:  # the first `size` of i.i.d. draws are `size` i.i.d. draws: log(S·q) = log q + log S
            counts = np.concatenate([log_counts[:1], log_counts[1 : size + 1] - np.log(sizes[-1]) + np.log(size)])
            errors[size].append(abs(float(to_numpy(mean_loss(ids[: size + 1], counts.astype("float32")))) - full))
    errors = {size: np.mean(values) for size, values in errors.items()}
    # mean |sampled − full| over 8 seeds shrinks as the draws grow (full loss 8.9 nats; measured 0.50 at 8 draws,
    # 0.16 at 64)
    assert list(errors.values()) == sorted(errors.values(), reverse=True), errors
    # within 1.1 % of the loss at as many draws as words, 0.45 % at ten times as many (measured: 0.049, 0.011 on TF)
    assert errors[vocab_size] < 0.1 and errors[10 * vocab_size] < 0.04, errors


def full_softmax_loss(model, sentences):
    """Forward + backward mean cross-entropy of the full softmax (an eager call: no graph to trace)."""
    inputs, targets = lm_inputs_and_targets([s.split() for s in sentences], model.vocabulary, "word")
    return float(to_numpy(model.compute_loss(y=targets, y_pred=model(inputs), training=False)))


def state_of(model):
    return [to_numpy(v).copy() for v in [*model.weights, *model.optimizer.variables, model.sampler_seed.state]]


@pytest.fixture(scope="module")
def sampled_training():
    """A tiny word-level biLM with 16 sampled negatives, trained 30 steps on ``TRAIN`` (one batch) twice from the
    same starting state (weights, Adam's slots, the sampler's seed) by one compiled step (tracing it costs most)."""
    vocabulary = Vocabulary.from_corpus(TRAIN + HELDOUT, lowercase=True)
    keras.utils.set_random_seed(5)
    model = build_bilm_lm(SAMPLED_TINY, len(vocabulary))
    model.vocabulary = vocabulary
    model.build((None, None))
    model.compile(optimizer=DenseGradientAdam(0.03), jit_compile=fit_jit_compile())
    model.optimizer.build(model.trainable_variables)
    start = state_of(model)
    before = full_softmax_loss(model, HELDOUT)
    inputs, targets = lm_inputs_and_targets([s.split() for s in TRAIN], vocabulary, "word")
    steps = 30  # one epoch of 30 copies of the batch: Keras' per-epoch overhead once
    ends = []
    for _ in range(2):
        for variable, value in zip([*model.weights, *model.optimizer.variables, model.sampler_seed.state], start):
            variable.assign(value)
        model.fit(np.tile(inputs, (steps, 1)), np.tile(targets, (steps, 1)), batch_size=len(TRAIN), shuffle=False,
                  verbose=0)
        ends.append(state_of(model))
    return {"model": model, "start": start, "ends": ends, "before": before, "after": full_softmax_loss(model, HELDOUT)}


def test_training_with_sampling_lowers_the_full_softmax_heldout_loss(sampled_training):
    # forward + backward full-softmax cross-entropy on sentences not trained on (measured: 5.67 → 3.91 nats on TF)
    assert sampled_training["after"] < sampled_training["before"] - 1.0, sampled_training


def test_sampled_training_is_deterministic_for_a_seed(sampled_training):
    first, second = sampled_training["ends"]
    for a, b in zip(first, second):  # the same start gives the same weights, Adam's slots and sampler state
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[-1], sampled_training["start"][-1])  # the sampler's seed moved on
    keras.utils.set_random_seed(5)  # and the same seed gives the same start (weights and the sampler's seed)
    again = build_bilm_lm(SAMPLED_TINY, len(sampled_training["model"].vocabulary))
    again.build((None, None))
    np.testing.assert_array_equal(to_numpy(again.sampler_seed.state), sampled_training["start"][-1])
    for a, b in zip(again.weights, sampled_training["start"]):
        np.testing.assert_array_equal(to_numpy(a), b)
    draws = [to_numpy(sample_candidates(64, 1000, keras.random.SeedGenerator(seed))[0]) for seed in (5, 5, 6)]
    np.testing.assert_array_equal(draws[0], draws[1])
    assert not np.array_equal(draws[0], draws[2])


def test_training_outputs_are_hidden_states_and_evaluation_outputs_are_logits():
    keras.utils.set_random_seed(0)
    model = build_bilm_lm(SAMPLED_TINY, 20)
    ids = np.array([[2, 7, 9, 3], [2, 5, 3, 0]], "int32")
    training = model(ids, training=True)
    assert sorted(training) == ["backward_hidden", "forward_hidden", "mask"]
    assert tuple(training["forward_hidden"].shape) == (2, 4, SAMPLED_TINY.token_dim)
    assert tuple(model(ids)["forward_logits"].shape) == (2, 4, 20)
    loss = float(to_numpy(model.compute_loss(y=ids, y_pred=training)))
    assert np.isfinite(loss) and loss > 0


def test_keras_file_round_trip_keeps_the_argument_and_the_outputs(tmp_path):
    keras.utils.set_random_seed(0)
    model = build_bilm_lm(SAMPLED_TINY, 20)
    ids = np.array([[2, 7, 9, 3], [2, 5, 3, 0]], "int32")
    model(ids)
    model.save(tmp_path / "m.keras")
    loaded = keras.saving.load_model(tmp_path / "m.keras")
    assert isinstance(loaded, BiLanguageModel) and loaded.get_config()["n_negative_samples"] == 16
    np.testing.assert_array_equal(to_numpy(loaded(ids)["forward_logits"]), to_numpy(model(ids)["forward_logits"]))


def test_config_and_argument_checks():
    assert BiLMConfig.from_dict(get_size("tiny").to_dict() | {"n_negative_samples": 8}).n_negative_samples == 8
    old = get_size("tiny").to_dict()
    del old["n_negative_samples"]  # a training.json written before the field existed
    assert BiLMConfig.from_dict(old).n_negative_samples is None
    with pytest.raises(ValueError, match="n_negative_samples must be a positive int or None, received 0"):
        get_size("tiny").replace(n_negative_samples=0)
    bilm = build_bilm_lm(get_size("tiny"), 20).bilm
    with pytest.raises(ValueError, match="n_negative_samples must be a positive int or None, received 2.5"):
        BiLanguageModel(bilm, 20, n_negative_samples=2.5)
    assert build_bilm_lm(get_size("tiny"), 20).sampler_seed is None  # the full softmax draws nothing

