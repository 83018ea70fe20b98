"""HRED: shapes, masks (padded words and turns), c_t never sees utterance t, the loss against NumPy, the step API,
decoding through the shared strategies, saving, input errors and a short training run."""

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.decoding import beam_search, greedy, sample
from elmo_keras.models.dialogue import (
    HRED,
    DialogueConfig,
    encode_dialogues,
    encode_history,
    load_dialogue_model,
    save_dialogue_model,
)
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID, PAD_ID, UNK_ID, Vocabulary
from tests.support.backend_support import to_numpy

VOCAB = 16
HISTORY = np.array([[[5, 6, 7], [8, 0, 0], [9, 10, 0]],
                    [[11, 12, 0], [13, 0, 0], [0, 0, 0]]], dtype=np.int32)  # row 1: a padded third turn
RESPONSE_IN = np.array([[BOS_ID, 4, 5, 6], [BOS_ID, 7, 0, 0]], dtype=np.int32)
RESPONSE_OUT = np.array([[4, 5, 6, EOS_ID], [7, EOS_ID, 0, 0]], dtype=np.int32)
TOLERANCE = 1e-5  # float32 recurrences of a few steps


def small_model(cell="gru", cls=HRED, **kwargs):
    keras.utils.set_random_seed(0)
    model = cls(vocab_size=VOCAB, embedding_dim=6, utterance_units=5, context_units=7, decoder_units=9, cell=cell,
                **kwargs)
    model({"history": HISTORY, "response_in": RESPONSE_IN})
    return model


@pytest.fixture(scope="module")
def model():
    return small_model()


def test_logits_shape_and_get_config_round_trip(model):
    logits = model({"history": HISTORY, "response_in": RESPONSE_IN})
    assert tuple(logits.shape) == (2, 4, VOCAB)
    clone = HRED.from_config(model.get_config())
    assert clone.get_config() == model.get_config()


@pytest.mark.parametrize("cell", ["gru", "lstm"])
def test_padded_words_and_padded_turns_change_nothing(cell):
    model = model_for_cell(cell)
    context = to_numpy(model.context_vector(HISTORY))
    wider = np.pad(HISTORY, ((0, 0), (0, 2), (0, 3)))  # two more padded turns, three more padded words per turn
    np.testing.assert_allclose(to_numpy(model.context_vector(wider)), context, atol=TOLERANCE)
    alone = to_numpy(model.context_vector(HISTORY[1:, :2, :2]))  # row 1 without any padding
    np.testing.assert_allclose(alone[0], context[1], atol=TOLERANCE)
    longer = np.pad(RESPONSE_IN, ((0, 0), (0, 2)))
    logits = to_numpy(model({"history": wider, "response_in": longer}))[:, :4]
    np.testing.assert_allclose(logits, to_numpy(model({"history": HISTORY, "response_in": RESPONSE_IN})),
                               atol=TOLERANCE)


_MODELS = {}


def model_for_cell(cell):
    if cell not in _MODELS:
        _MODELS[cell] = small_model(cell)
    return _MODELS[cell]


@pytest.mark.parametrize("turn", [0, 1])
def test_c_t_never_sees_utterance_t(model, turn):
    """Perturbing utterance t (0-based ``turn``) leaves c_1 … c_t unchanged and changes c_{t+1}."""
    states = to_numpy(model.context_states(HISTORY))  # (B, T + 1, H): c_1 … c_{T+1}
    perturbed = HISTORY.copy()
    perturbed[0, turn, 0] = 14
    changed = to_numpy(model.context_states(perturbed))
    np.testing.assert_allclose(changed[0, : turn + 1], states[0, : turn + 1], atol=0)  # c_1 … c_t: identical
    assert np.abs(changed[0, turn + 1] - states[0, turn + 1]).max() > 1e-4  # c_{t+1} read utterance t
    np.testing.assert_allclose(changed[1], states[1], atol=0)  # the other dialogue: untouched
    assert np.all(states[:, 0] == 0)  # c_1 is the initial state
    np.testing.assert_allclose(states[0, -1], to_numpy(model.context_vector(HISTORY))[0], atol=TOLERANCE)


def test_loss_is_the_batch_mean_of_per_response_cross_entropy_sums(model):
    logits = to_numpy(model({"history": HISTORY, "response_in": RESPONSE_IN}))
    loss = float(to_numpy(model.compute_loss(y=RESPONSE_OUT, y_pred=logits)))
    log_probs = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    picked = np.take_along_axis(log_probs, RESPONSE_OUT[..., None], -1)[..., 0]
    expected = -(picked * (RESPONSE_OUT != PAD_ID)).sum(1).mean()
    assert loss == pytest.approx(expected, rel=1e-5)


def test_step_api_matches_teacher_forcing(model):
    states = model.decoder_states(model.context_vector(HISTORY))
    logits = to_numpy(model.decoder_logits(states, RESPONSE_IN))
    for t in range(RESPONSE_IN.shape[1]):
        log_probs, states = model.decoder_step(states, RESPONSE_IN[:, t])
        expected = to_numpy(model.next_token_log_probs(logits[:, t]))
        np.testing.assert_allclose(to_numpy(log_probs)[0], expected[0], atol=TOLERANCE)
    fn = model.log_prob_fn(HISTORY[0])
    np.testing.assert_allclose(fn(RESPONSE_IN[:1])[0], to_numpy(model.next_token_log_probs(logits[:1, -1]))[0],
                               atol=TOLERANCE)


def test_the_shared_step_api_conditions_on_one_history(model):
    """``initial_states`` / ``step_log_probs(history, prefixes)``: the names and argument order of ``Seq2Seq``'s."""
    states = model.initial_states(HISTORY)
    for state, expected in zip(states, model.decoder_states(model.context_vector(HISTORY))):
        np.testing.assert_allclose(to_numpy(state), to_numpy(expected), atol=TOLERANCE)
    logits = to_numpy(model.decoder_logits(states, RESPONSE_IN))
    got = model.step_log_probs(HISTORY[0], RESPONSE_IN[:1, :3])
    assert got.dtype == np.float32 and got.shape == (1, VOCAB)
    np.testing.assert_allclose(got[0], to_numpy(model.next_token_log_probs(logits[:1, 2]))[0], atol=TOLERANCE)


def test_shared_decoding_strategies_give_valid_sequences(model):
    fn, max_len = model.log_prob_fn(HISTORY[0]), 6
    hypotheses = [greedy(fn, BOS_ID, EOS_ID, max_len), *beam_search(fn, BOS_ID, EOS_ID, max_len, beam_size=3),
                  *sample(fn, BOS_ID, EOS_ID, max_len, top_k=5, top_p=0.9, temperature=0.8, seed=1, num_samples=4)]
    for h in hypotheses:
        assert 1 <= len(h.tokens) <= max_len and np.isfinite(h.log_prob)
        assert all(0 <= t < VOCAB and t not in (PAD_ID, BOS_ID) for t in h.tokens)
        assert h.finished == (h.tokens[-1] == EOS_ID) and EOS_ID not in h.tokens[:-1]
    again = sample(fn, BOS_ID, EOS_ID, max_len, top_k=5, seed=1, num_samples=4)
    assert [h.tokens for h in again] == [h.tokens for h in sample(fn, BOS_ID, EOS_ID, max_len, top_k=5, seed=1,
                                                                 num_samples=4)]


def test_bad_arguments_and_bad_dialogues_are_named():
    with pytest.raises(ValueError, match="cell"):
        HRED(vocab_size=10, cell="rnn")
    with pytest.raises(ValueError, match="word_dropout"):
        HRED(vocab_size=10, word_dropout=1.0)
    vocabulary = Vocabulary(["hello", "there"])
    with pytest.raises(ValueError, match="no history"):
        encode_history([], vocabulary)
    with pytest.raises(ValueError, match="turn 1 is empty"):
        encode_history(["hello", "  "], vocabulary)
    with pytest.raises(ValueError, match="empty response"):
        encode_dialogues([(["hello"], "")], vocabulary)
    ids, unknown = encode_history(["hello zebra", "there quokka zebra"], vocabulary)
    assert unknown == ["zebra", "quokka"] and ids[0, 1] == UNK_ID and ids.shape == (2, 3)


def test_encode_dialogues_pads_turns_words_and_responses():
    vocabulary = Vocabulary(["a", "b", "c"])
    inputs, out = encode_dialogues([(["a b", "c"], "a"), (["b"], "b c")], vocabulary)
    a, b, c = (vocabulary.token_to_id(w) for w in "abc")
    np.testing.assert_array_equal(inputs["history"], [[[a, b], [c, PAD_ID]], [[b, PAD_ID], [PAD_ID, PAD_ID]]])
    np.testing.assert_array_equal(inputs["response_in"], [[BOS_ID, a, PAD_ID], [BOS_ID, b, c]])
    np.testing.assert_array_equal(out, [[a, EOS_ID, PAD_ID], [b, c, EOS_ID]])


def test_the_model_directory_round_trips_and_refuses_the_wrong_kind_or_a_corrupt_file(tmp_path):
    """(Training itself is tested on VHRED in test_vhred.py and on HRED by the explorer's fixture: one training graph
    per file keeps the suite fast.)"""
    model = small_model()
    model.vocabulary = Vocabulary([f"w{i}" for i in range(VOCAB - 4)])
    model.config = DialogueConfig(embedding_dim=6, utterance_units=5, context_units=7, decoder_units=9)
    save_dialogue_model(model, tmp_path / "hred")
    loaded = load_dialogue_model(tmp_path / "hred", kind="hred")
    inputs = {"history": HISTORY, "response_in": RESPONSE_IN}
    np.testing.assert_array_equal(to_numpy(loaded(inputs)), to_numpy(model(inputs)))
    assert loaded.vocabulary == model.vocabulary and loaded.config == model.config
    with pytest.raises(ValueError, match="not a VHRED"):
        load_dialogue_model(tmp_path / "hred", kind="vhred")
    (tmp_path / "hred" / "model.keras").write_bytes(b"truncated")
    with pytest.raises(ValueError, match="corrupted"):
        load_dialogue_model(tmp_path / "hred")
