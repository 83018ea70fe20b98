"""The remedies for VHRED's KL collapse and HRED's ablation without context, as model options: free bits (the floor
as defined, and its gradient), the bag-of-words loss on z (against NumPy, and its gradient reaches z and the
posterior), word dropout never at inference, the options serialized and checked, HRED reading only the last turn,
and VHRED's batched greedy decoding of z samples against ``greedy`` one z at a time."""

import numpy as np
import pytest
from keras import ops

from elmo_keras.decoding import greedy
from elmo_keras.models.dialogue import HRED, VHRED, DialogueConfig, free_bits_kl
from elmo_keras.models.dialogue.generation import batch_greedy
from elmo_keras.text.vocabulary import PAD_ID
from tests.models.test_hred import HISTORY, RESPONSE_IN, RESPONSE_OUT, TOLERANCE, VOCAB, small_model
from tests.support.backend_support import to_numpy, value_and_gradients

LATENT = 3


@pytest.fixture(scope="module")
def bow_model():
    return small_model(cls=VHRED, latent_dim=LATENT, latent_hidden=6, bow_weight=0.5)


def test_free_bits_floor_behaves_as_defined():
    terms = np.array([[0.02, 0.9, 0.3], [0.06, 0.5, 0.1]], np.float32)  # batch means 0.04, 0.7, 0.2
    value, (gradient,) = value_and_gradients(lambda t: free_bits_kl(t, 0.25), [terms])
    assert float(value) == pytest.approx(0.25 + 0.7 + 0.25, abs=1e-6)  # the floor replaces the two low dimensions
    np.testing.assert_allclose(gradient, [[0.0, 0.5, 0.0], [0.0, 0.5, 0.0]], atol=1e-7)  # no pull below the floor
    plain = float(to_numpy(free_bits_kl(terms, 0.0)))
    assert plain == pytest.approx(terms.sum(1).mean(), abs=1e-6)  # floor 0: the plain KL term


def test_free_bits_enter_the_loss_and_the_logged_kl_stays_the_real_one():
    model = small_model(cls=VHRED, latent_dim=LATENT, latent_hidden=6, free_bits=5.0)  # far above any KL here
    out = model({"history": HISTORY, "response_in": RESPONSE_IN})
    plain = small_model(cls=VHRED, latent_dim=LATENT, latent_hidden=6)
    plain.set_weights(model.get_weights())
    loss = float(to_numpy(model.compute_loss(y=RESPONSE_OUT, y_pred=out, training=False)))
    reference = float(to_numpy(plain.compute_loss(y=RESPONSE_OUT, y_pred=out, training=False)))
    kl = to_numpy(out["kl"])
    assert loss == pytest.approx(reference - kl.mean() + 5.0 * LATENT, rel=1e-5)
    assert float(to_numpy(model.kl_per_token.result())) == pytest.approx(kl.sum() / (RESPONSE_OUT != PAD_ID).sum(),
                                                                        rel=1e-5)


def test_bag_of_words_loss_matches_numpy_and_enters_the_loss(bow_model):
    out = bow_model({"history": HISTORY, "response_in": RESPONSE_IN})
    bow = to_numpy(out["bow_logits"])
    assert bow.shape == (2, VOCAB)
    log_probs = bow - np.log(np.exp(bow).sum(-1, keepdims=True))
    expected = -np.array([log_probs[i, RESPONSE_OUT[i][RESPONSE_OUT[i] != PAD_ID]].sum() for i in range(2)])
    np.testing.assert_allclose(to_numpy(bow_model.bag_of_words_loss(RESPONSE_OUT, out["bow_logits"])), expected,
                               rtol=1e-5)
    loss = float(to_numpy(bow_model.compute_loss(y=RESPONSE_OUT, y_pred=out, training=False)))
    logits = to_numpy(out["logits"])
    token_log_probs = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    picked = np.take_along_axis(token_log_probs, RESPONSE_OUT[..., None], -1)[..., 0]
    reconstruction = -(picked * (RESPONSE_OUT != PAD_ID)).sum(1)
    assert loss == pytest.approx((reconstruction + to_numpy(out["kl"]) + 0.5 * expected).mean(), rel=1e-5)


def test_bag_of_words_gradient_reaches_z_and_the_posterior(bow_model):
    def bow_loss(noise):
        out = bow_model({"history": HISTORY, "response_in": RESPONSE_IN, "noise": noise})
        return ops.mean(bow_model.bag_of_words_loss(RESPONSE_OUT, out["bow_logits"]))

    noise = np.array([[0.3, -1.0, 0.5], [1.2, 0.1, -0.4]], np.float32)
    posterior = bow_model.posterior_net[1].kernel
    _, (to_noise, to_posterior) = value_and_gradients(bow_loss, [noise], [posterior])
    assert np.abs(to_noise).min(axis=1).max() > 0 and np.all(np.abs(to_noise).sum(1) > 1e-6)  # d loss / d z ≠ 0
    assert np.abs(to_posterior).sum() > 1e-6  # through z = μ_q + σ_q ε into q(z | c, x)


def test_word_dropout_is_never_active_at_inference():
    dropping = small_model(cls=VHRED, latent_dim=LATENT, word_dropout=0.9)
    plain = small_model(cls=VHRED, latent_dim=LATENT)
    plain.set_weights(dropping.get_weights())
    inputs = {"history": HISTORY, "response_in": RESPONSE_IN, "noise": np.zeros((2, LATENT), np.float32)}
    np.testing.assert_array_equal(to_numpy(dropping(inputs, training=False)["logits"]),
                                  to_numpy(plain(inputs, training=False)["logits"]))
    fn, plain_fn = dropping.log_prob_fn(HISTORY[0]), plain.log_prob_fn(HISTORY[0])
    prefixes = RESPONSE_IN[:1, :3]
    np.testing.assert_allclose(fn(prefixes), plain_fn(prefixes), atol=TOLERANCE)
    assert np.abs(to_numpy(dropping(inputs, training=True)["logits"]) - to_numpy(plain(inputs)["logits"])).max() > 0


def test_the_options_are_serialized_and_checked(bow_model):
    clone = VHRED.from_config(bow_model.get_config())
    assert (clone.bow_weight, clone.free_bits, clone.bow_net is not None) == (0.5, 0.0, True)
    config = DialogueConfig(kind="vhred", bow_weight=1.0, free_bits=0.1, last_turn_only=False)
    assert DialogueConfig.from_dict(config.to_dict()) == config
    assert {"bow_weight": 1.0, "free_bits": 0.1, "last_turn_only": False}.items() <= config.model_kwargs().items()
    for field, value in (("bow_weight", -1.0), ("free_bits", float("nan"))):
        with pytest.raises(ValueError, match=field):
            VHRED(vocab_size=10, **{field: value})
        with pytest.raises(ValueError, match=field):
            DialogueConfig(**{field: value})
    with pytest.raises(ValueError, match="last_turn_only"):
        HRED(vocab_size=10, last_turn_only="yes")


def test_last_turn_only_reads_only_the_last_real_turn():
    model = small_model(last_turn_only=True)
    assert HRED.from_config(model.get_config()).last_turn_only
    context = to_numpy(model.context_vector(HISTORY))
    last = np.stack([HISTORY[0, 2:3], HISTORY[1, 1:2]])  # row 1's third turn is padding: its last turn is turn 1
    model.last_turn_only = False
    np.testing.assert_allclose(context, to_numpy(model.context_vector(last)), atol=TOLERANCE)
    assert np.abs(context - to_numpy(model.context_vector(HISTORY))).max() > 1e-4  # the full context differs


def test_z_samples_are_decoded_together_as_greedy_decodes_each(bow_model):
    context = bow_model.context_vector(HISTORY[:1])
    latents = bow_model.sample_prior(context, 4, seed=2)
    together = batch_greedy(bow_model, bow_model.decoder_states(ops.repeat(context, 4, axis=0), latents), 5)
    for hypothesis, z in zip(together, latents):
        one = greedy(bow_model.log_prob_fn(HISTORY[0], z), bow_model.bos_id, bow_model.eos_id, 5)
        assert (hypothesis.tokens, hypothesis.finished) == (one.tokens, one.finished)
        assert hypothesis.log_prob == pytest.approx(one.log_prob, abs=1e-4)


@pytest.mark.parametrize("cls", [HRED, VHRED])
def test_feed_context_steps_agree_with_teacher_forcing(cls):
    model = small_model(cls=cls, feed_context=True, **({"latent_dim": LATENT} if cls is VHRED else {}))
    assert model.decoder.cell.kernel.shape[0] == model.embedding_dim + model.decoder_init_width()
    states = model.initial_states(HISTORY[:1])
    assert len(states) == 2 and states[-1].shape[-1] == model.decoder_init_width()  # GRU h, then the conditioning
    teacher = to_numpy(model.next_token_log_probs(model.decoder_logits(states, RESPONSE_IN[:1])))[0]  # (4, V)
    fn = model.log_prob_fn(HISTORY[0])
    for length in range(1, 5):  # each call extends the previous prefix: one decoder_step
        np.testing.assert_allclose(fn(RESPONSE_IN[:1, :length])[0], teacher[length - 1], atol=1e-4)
    other = model.initial_states(HISTORY[1:])
    changed = to_numpy(model.decoder_logits(states[:-1] + other[-1:], RESPONSE_IN[:1]))
    assert np.abs(changed - to_numpy(model.decoder_logits(states, RESPONSE_IN[:1]))).max() > 1e-5
