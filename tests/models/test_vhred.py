"""VHRED: outputs, the KL against its closed form in NumPy, reparameterisation (exact with a fixed ε, and its
statistics), the annealing schedule, word dropout in training only, the ELBO loss, saving, decoding from prior
samples and a short training run."""

import numpy as np
import pytest

from elmo_keras.decoding import beam_search, greedy
from elmo_keras.models.dialogue import (
    VHRED,
    encode_dialogues,
    gaussian_kl,
    kl_weight,
    latent_responses,
    load_dialogue_model,
    reparameterize,
    save_dialogue_model,
    train_vhred,
)
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID, PAD_ID, UNK_ID
from tests.models.test_hred import HISTORY, RESPONSE_IN, RESPONSE_OUT, TOLERANCE, VOCAB, small_model
from tests.support.backend_support import to_numpy

LATENT = 3
KL_TOLERANCE = 1e-5  # float32 closed form vs float64 NumPy


@pytest.fixture(scope="module")
def model():
    return small_model(cls=VHRED, latent_dim=LATENT, latent_hidden=6)


def numpy_kl(mean_q, log_var_q, mean_p, log_var_p):
    """KL(q ‖ p) written with standard deviations: Σ log(σ_p/σ_q) + (σ_q² + (μ_q − μ_p)²) / (2 σ_p²) − ½."""
    sd_q, sd_p = np.exp(0.5 * log_var_q), np.exp(0.5 * log_var_p)
    return (np.log(sd_p / sd_q) + (sd_q**2 + (mean_q - mean_p) ** 2) / (2 * sd_p**2) - 0.5).sum(-1)


def test_kl_matches_the_closed_form_in_numpy_and_is_zero_for_equal_gaussians():
    rng = np.random.default_rng(0)
    mean_q, log_var_q, mean_p, log_var_p = (rng.normal(size=(4, 5)).astype(np.float32) for _ in range(4))
    kl = to_numpy(gaussian_kl(mean_q, log_var_q, mean_p, log_var_p))
    np.testing.assert_allclose(kl, numpy_kl(mean_q, log_var_q, mean_p, log_var_p), rtol=KL_TOLERANCE, atol=KL_TOLERANCE)
    assert np.all(kl > 0)
    np.testing.assert_allclose(to_numpy(gaussian_kl(mean_q, log_var_q, mean_q, log_var_q)), 0.0, atol=1e-6)


def test_reparameterisation_statistics():
    mean, log_var = np.array([[1.0, -2.0]], np.float32), np.array([[0.0, np.log(4.0)]], np.float32)
    noise = np.random.default_rng(1).standard_normal((20_000, 2)).astype(np.float32)
    z = to_numpy(reparameterize(np.repeat(mean, len(noise), 0), np.repeat(log_var, len(noise), 0), noise))
    np.testing.assert_allclose(z.mean(0), [1.0, -2.0], atol=0.05)  # standard error ≤ 2/√20000 ≈ 0.014
    np.testing.assert_allclose(z.var(0), [1.0, 4.0], rtol=0.05)


def test_kl_annealing_schedule():
    assert [float(to_numpy(kl_weight(s, 100))) for s in (0, 25, 50, 100, 250)] == [0.0, 0.25, 0.5, 1.0, 1.0]
    assert float(to_numpy(kl_weight(7, 0))) == 1.0
    with pytest.raises(ValueError, match="kl_annealing_steps"):
        VHRED(vocab_size=10, kl_annealing_steps=-1)


def test_outputs_and_a_fixed_noise_gives_z_exactly(model):
    out = model({"history": HISTORY, "response_in": RESPONSE_IN})
    assert tuple(out["logits"].shape) == (2, 4, VOCAB) and tuple(out["kl"].shape) == (2,)
    noise = np.array([[0.5, -1.0, 2.0], [0.0, 0.3, -0.7]], np.float32)
    logits = to_numpy(model({"history": HISTORY, "response_in": RESPONSE_IN, "noise": noise})["logits"])
    context = model.context_vector(HISTORY)
    mean, log_var = (to_numpy(t) for t in model.posterior(context, model.utterance_vectors(RESPONSE_IN[:, 1:])))
    z = mean + np.exp(0.5 * log_var) * noise
    expected = to_numpy(model.decoder_logits(model.decoder_states(context, z), RESPONSE_IN))
    np.testing.assert_allclose(logits, expected, atol=TOLERANCE)
    mean_p, log_var_p = (to_numpy(t) for t in model.prior(context))
    np.testing.assert_allclose(to_numpy(out["kl"]), numpy_kl(mean, log_var, mean_p, log_var_p), rtol=1e-4, atol=1e-5)


def test_inference_is_deterministic_and_training_draws_noise(model):
    inputs = {"history": HISTORY, "response_in": RESPONSE_IN}
    first, second = (to_numpy(model(inputs, training=False)["logits"]) for _ in range(2))
    np.testing.assert_array_equal(first, second)
    assert np.abs(to_numpy(model(inputs, training=True)["logits"]) - first).max() > 1e-5


def test_word_dropout_only_in_training_and_never_on_bos_or_padding():
    model = small_model(cls=VHRED, latent_dim=LATENT, word_dropout=0.5)
    words = np.array([[BOS_ID] + [5] * 40 + [PAD_ID] * 9], np.int32)
    np.testing.assert_array_equal(to_numpy(model._dropped_words(words, training=False)), words)
    dropped = to_numpy(model._dropped_words(words, training=True))
    assert dropped[0, 0] == BOS_ID and np.all(dropped[0, 41:] == PAD_ID)
    assert set(dropped[0, 1:41]) == {5, UNK_ID} and 8 <= (dropped[0, 1:41] == UNK_ID).sum() <= 32  # ~20 of 40


def test_loss_is_reconstruction_plus_weighted_kl(model):
    out = model({"history": HISTORY, "response_in": RESPONSE_IN})
    logits, kl = to_numpy(out["logits"]), to_numpy(out["kl"])
    log_probs = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    picked = np.take_along_axis(log_probs, RESPONSE_OUT[..., None], -1)[..., 0]
    reconstruction = -(picked * (RESPONSE_OUT != PAD_ID)).sum(1)
    loss = float(to_numpy(model.compute_loss(y=RESPONSE_OUT, y_pred=out, training=False)))  # weight 1
    assert loss == pytest.approx((reconstruction + kl).mean(), rel=1e-5)


def test_prior_samples_decode_to_valid_sequences_reproducibly(model):
    context = model.context_vector(HISTORY[:1])
    z = model.sample_prior(context, 4, seed=3)
    assert z.shape == (4, LATENT)
    np.testing.assert_array_equal(z, model.sample_prior(context, 4, seed=3))
    for latent in (None, z[0]):
        fn = model.log_prob_fn(HISTORY[0], latent)
        for h in [greedy(fn, BOS_ID, EOS_ID, 5), *beam_search(fn, BOS_ID, EOS_ID, 5, beam_size=2)]:
            assert all(t not in (PAD_ID, BOS_ID) and t < VOCAB for t in h.tokens)
            assert h.finished == (h.tokens[-1] == EOS_ID)


def test_training_logs_the_annealed_kl_and_the_directory_round_trips(tmp_path):
    examples = [(["i had sushi", "tell me more"], "was it tasty ?"), (["my team won", "tell me more"], "who scored ?"),
                (["i had sushi"], "now i am hungry"), (["my team won"], "what was the score ?")] * 8
    model = train_vhred(examples, epochs=3, seed=2, embedding_dim=8, utterance_units=8, context_units=8,
                        decoder_units=8, latent_dim=LATENT, latent_hidden=8, batch_size=8, learning_rate=3e-2,
                        kl_annealing_steps=8, word_dropout=0.25)
    history = model.training_summary["history"]
    assert {"loss", "reconstruction_per_token", "kl_per_token", "kl_weight"} <= set(history)
    # 4 updates per epoch: epoch means of w(step) = step / 8 over steps 0–3, 4–7, 8–11
    np.testing.assert_allclose(history["kl_weight"], [0.1875, 0.6875, 1.0], atol=1e-6)
    # (the string turns are words now, as documented: they used to be read character by character, which made the
    # vocabulary 16 characters and the task easier)
    assert history["reconstruction_per_token"][-1] < 0.8 * history["reconstruction_per_token"][0]
    save_dialogue_model(model, tmp_path / "vhred")
    loaded = load_dialogue_model(tmp_path / "vhred", kind="vhred")
    assert loaded.get_config() == model.get_config()
    inputs, _ = encode_dialogues(examples[:4], model.vocabulary)
    noise = np.ones((4, LATENT), np.float32)
    for key in ("logits", "kl"):
        np.testing.assert_array_equal(to_numpy(loaded({**inputs, "noise": noise})[key]),
                                      to_numpy(model({**inputs, "noise": noise})[key]))
    replies = latent_responses(loaded, inputs["history"][0], 3, seed=1)
    assert [r.text for r in replies] == [r.text for r in latent_responses(model, inputs["history"][0], 3, seed=1)]
