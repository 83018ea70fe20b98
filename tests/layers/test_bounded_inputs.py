"""Issue #25 for decoding, seq2seq, dialogue and the text classifiers: sizes, ids, empty histories, batch sizes and
over-long inputs are refused with one line naming the argument and the value, before any work (the models here
raise if they are run too early); the batched and bounded paths give the same numbers as before."""

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.decoding import NGramTable, beam_search, beam_search_batch, count_sequences, exhaustive_search, greedy
from elmo_keras.decoding import sample as sample_tokens
from elmo_keras.models.classifiers import CNNTextClassifier, class_probabilities, train_text_classifier
from elmo_keras.models.classifiers import training as classifier_training
from elmo_keras.models.dialogue import (
    HRED,
    VHRED,
    beam_responses,
    encode_history,
    evaluate_dialogue_model,
    greedy_response,
    latent_responses,
    sampled_responses,
    train_dialogue_model,
)
from elmo_keras.models.dialogue import training as dialogue_training
from elmo_keras.models.seq2seq import Seq2Seq, train_seq2seq
from elmo_keras.models.seq2seq import training as seq2seq_training
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID, Vocabulary
from tests.support.backend_support import to_numpy

VOCAB = 16
WORDS = Vocabulary([f"w{i}" for i in range(VOCAB - 4)])  # 4 specials + 12 words = VOCAB ids
HISTORY = np.array([[5, 6, 7], [8, 9, 0]], dtype=np.int32)
LONG = " ".join(["w1"] * 50_000)  # the 50,000-token line


def never_called(prefixes):
    raise AssertionError("the model was called although an argument was refused")


class Declared:
    """A ``next_log_probs`` declaring a huge vocabulary; calling it fails the test."""

    vocab_size = 2**22

    def __call__(self, prefixes):
        never_called(prefixes)


def raises(message, fn, *args, **kwargs):
    with pytest.raises(ValueError) as raised:
        fn(*args, **kwargs)
    assert message in str(raised.value), str(raised.value)
    assert "\n" not in str(raised.value)


@pytest.fixture(scope="module")
def hred():
    keras.utils.set_random_seed(0)
    model = HRED(VOCAB, embedding_dim=4, utterance_units=4, context_units=4, decoder_units=4)
    model({"history": HISTORY[None], "response_in": np.array([[BOS_ID, 5]])})
    model.vocabulary = WORDS
    return model


@pytest.fixture(scope="module")
def vhred():
    keras.utils.set_random_seed(0)
    model = VHRED(VOCAB, embedding_dim=4, utterance_units=4, context_units=4, decoder_units=4, latent_dim=2,
                  latent_hidden=4)
    model({"history": HISTORY[None], "response_in": np.array([[BOS_ID, 5]])})
    model.vocabulary = WORDS
    return model


@pytest.fixture(scope="module")
def seq2seq():
    keras.utils.set_random_seed(0)
    model = Seq2Seq(VOCAB, embedding_dim=4, units=4)
    model((np.array([[5, 6]]), np.array([[BOS_ID, 7]])))
    return model


# -- sizes --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("call, message", [
    (lambda: greedy(never_called, BOS_ID, EOS_ID, 10**7), "max_len = 10,000,000 is longer than any output"),
    (lambda: beam_search(never_called, BOS_ID, EOS_ID, 12, 10**7),
     "beam_size = 10,000,000 with max_len = 12 would decode 120,000,000 tokens, more than 1,048,576"),
    (lambda: sample_tokens(never_called, BOS_ID, EOS_ID, 12, seed=0, num_samples=10**7),
     "num_samples = 10,000,000 with max_len = 12 would decode"),
    (lambda: beam_search(Declared(), BOS_ID, EOS_ID, 12, 8), "beam_size = 8 × a vocabulary of 4,194,304 would score"),
    (lambda: sample_tokens(Declared(), BOS_ID, EOS_ID, 12, num_samples=8), "num_samples = 8 × a vocabulary of"),
    (lambda: exhaustive_search(never_called, BOS_ID, EOS_ID, 3, max_sequences=10**9), "max_sequences = 1,000,000,000"),
    (lambda: exhaustive_search(Declared(), BOS_ID, EOS_ID, 4), "exhaustive search would score about 10^26 sequences"),
    (lambda: count_sequences(5, 10**7), "max_len = 10,000,000 is longer"),
    (lambda: NGramTable.random(10**4, 3), "vocab_size = 10,000 and order = 3 make a table of 1,000,000,000,000"),
    (lambda: greedy(Declared(), 2**23, EOS_ID, 5), "bos_id must be a token id in [0, vocab size 4194304)"),
])
def test_decoding_sizes_are_refused_before_the_model_is_called(call, message):
    raises(message, call)


def test_the_vocabulary_bound_is_checked_on_one_row_when_the_model_does_not_declare_it():
    """A model without ``vocab_size``: beam search and sampling learn it from a one-row first call."""
    shapes = []

    def wide(prefixes):
        shapes.append(prefixes.shape)
        return np.full((len(prefixes), 2**20), -np.log(2**20))

    raises("num_samples = 100 × a vocabulary of 1,048,576", sample_tokens, wide, BOS_ID, EOS_ID, 5, num_samples=100)
    raises("beam_size = 32 × a vocabulary of 1,048,576", beam_search, wide, BOS_ID, EOS_ID, 5, 32)
    assert shapes == [(1, 1), (1, 1)]


def test_sampling_calls_the_first_step_on_one_row_and_draws_the_same_samples():
    table = NGramTable.random(6, 2, seed=3)
    rows = []

    def counting(prefixes):
        rows.append(len(prefixes))
        return table(prefixes)

    draws = sample_tokens(counting, 0, 1, 4, seed=5, num_samples=50)
    assert rows[0] == 1 and 1 < rows[1] <= 50  # step 1: the shared <bos> prefix once; then every live sample
    assert [h.tokens for h in draws] == [h.tokens for h in sample_tokens(table, 0, 1, 4, seed=5, num_samples=50)]


def test_dialogue_sizes_are_refused_before_the_model_reads_the_history(hred, vhred, monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("the model ran although an argument was refused")

    monkeypatch.setattr(HRED, "context_vector", boom)
    raises("num_samples = 10,000,000 is more z draws than latent_responses decodes (at most 1,000",
           latent_responses, vhred, HISTORY, 10**7)
    raises("beam_size = 10,000,000 with max_len = 12", beam_responses, hred, HISTORY, 10**7)
    raises("num_samples = 10,000,000 with max_len = 12", sampled_responses, hred, HISTORY, 10**7)
    raises("max_len = 100,000 is longer", greedy_response, hred, HISTORY, max_len=10**5)
    raises("top_k must be a positive int or None, received 0", sampled_responses, hred, HISTORY, 3, top_k=0)
    raises("num_samples = 10,000,000 draws of z (2 values each) are more than 16,777,216", vhred.sample_prior, None,
           10**7)
    with pytest.raises(TypeError, match="latent_responses needs a VHRED"):
        latent_responses(hred, HISTORY, 3)


def test_batch_sizes_are_positive_ints(hred):
    raises("batch_size must be a positive int, received 0", evaluate_dialogue_model, hred, [(["w1"], "w2")],
           batch_size=0)
    raises("batch_size must be a positive int, received 0", class_probabilities, None, ["w1"], batch_size=0)


# -- ids and empty histories ---------------------------------------------------------------------------------------
def test_ids_outside_the_vocabulary_are_one_line_naming_the_argument(hred, vhred, seq2seq):
    bad_history = np.array([[5, 6], [7, 99]])
    for call in (lambda: greedy_response(hred, bad_history), lambda: latent_responses(vhred, bad_history, 2),
                 lambda: hred.log_prob_fn(bad_history), lambda: vhred.log_prob_fn(bad_history)):
        raises("history holds id 99 at [1, 1], outside the vocabulary [0, 16)", call)
    raises("prefixes holds id 77 at [0, 1], outside the vocabulary [0, 16)", hred.log_prob_fn(HISTORY),
           np.array([[BOS_ID, 77]]))
    raises("source holds id 99 at [1], outside the vocabulary [0, 16)", seq2seq.log_prob_fn, np.array([5, 99]))
    raises("prefixes holds id 40 at [0, 1], outside the vocabulary [0, 16)", seq2seq.step_log_probs,
           np.array([5, 6]), np.array([[BOS_ID, 40]]))
    raises("source holds id -1 at [0]", seq2seq.step_log_probs, np.array([-1, 6]), np.array([[BOS_ID]]))
    raises("sources holds id 99 at [1, 0], outside the vocabulary [0, 16)", beam_search_batch, seq2seq,
           np.array([[5, 6], [99, 6]]), BOS_ID, EOS_ID, 4, 2)
    raises("bos_id must be a token id in [0, vocab size 16) of next_log_probs, received 40", greedy,
           seq2seq.log_prob_fn(np.array([5, 6])), 40, EOS_ID, 4)
    keras.utils.set_random_seed(0)
    cnn = CNNTextClassifier(VOCAB, 2, embedding_dim=4, filter_heights=(2,), filters_per_height=2)
    raises("ids holds id 999 at [0, 1], outside the vocabulary [0, 16)", cnn.filter_responses, np.array([[5, 999]]))


def test_a_history_of_padding_or_with_an_empty_turn_is_refused(hred):
    raises("history holds only padding (id 0)", greedy_response, hred, np.zeros((2, 3), np.int32))
    raises("history turn 0 is only padding", greedy_response, hred, np.array([[0, 0], [5, 6]]))
    raises("history must be one dialogue's int ids (turns, words)", greedy_response, hred, HISTORY[0])
    padded = np.pad(HISTORY, ((0, 2), (0, 3)))  # trailing padded turns and words: the padding convention
    assert greedy_response(hred, padded) == greedy_response(hred, HISTORY)


def test_the_prefix_scorer_keeps_one_step_of_states(hred):
    fn = hred.log_prob_fn(HISTORY)
    results = beam_search(fn, BOS_ID, EOS_ID, 8, beam_size=4)
    assert len(fn._after) <= 4 + 1  # the last call's prefixes and the empty one, not the whole search
    again = hred.log_prob_fn(HISTORY)
    assert [h.tokens for h in beam_search(again, BOS_ID, EOS_ID, 8, beam_size=4)] == [h.tokens for h in results]


# -- over-long inputs ----------------------------------------------------------------------------------------------
def test_trainers_refuse_an_over_long_input_before_building_anything(monkeypatch):
    def no_model(*args, **kwargs):
        raise AssertionError("a model was built although an input was refused")

    monkeypatch.setattr(seq2seq_training, "Seq2Seq", no_model)
    monkeypatch.setattr(classifier_training, "build_classifier", no_model)
    monkeypatch.setitem(dialogue_training.MODEL_CLASSES, "hred", no_model)
    raises("pairs[1] source has 50,000 tokens, more than the limit of 512", train_seq2seq,
           [("a b", "c"), (LONG, "c")])
    raises("pairs[0] target has 50,000 tokens, more than the limit of 512", train_seq2seq, [("a b", LONG)])
    raises("sentences[1] has 50,000 tokens, more than the limit of 512", train_text_classifier,
           sentences=["a b", LONG], labels=["x", "y"])
    raises("dialogue 1 history turn 0 has 50,000 words, more than the limit of 128", train_dialogue_model,
           examples=[(["a b"], "c"), ([LONG], "c")])
    raises("dialogue 0 response has 50,000 words, more than the limit of 128", train_dialogue_model,
           examples=[(["a b"], LONG)])
    raises("dialogue 0 history has 40 turns, more than the limit of 32: keep only its latest turns",
           train_dialogue_model, examples=[(["a"] * 40, "c")])


def test_string_turns_are_words_in_the_dialogue_vocabulary():
    """Turns given as strings (documented) used to be read character by character: a vocabulary of letters."""
    vocabulary = dialogue_training.dialogue_vocabulary([(["i had sushi", "tell me more"], "was it tasty ?")])
    assert "sushi" in vocabulary and "tasty" in vocabulary and "s" not in vocabulary


def test_prediction_refuses_over_long_inputs(hred, seq2seq):
    raises("history turn 1 has 200 words, more than the limit of 128", encode_history, ["w1", ["w2"] * 200], WORDS)
    raises("history has 33 turns, more than the limit of 32", greedy_response, hred, np.full((33, 2), 5))
    raises("history turn 0 has 129 words, more than the limit of 128", greedy_response, hred, np.full((1, 129), 5))
    raises("source has 600 tokens, more than the limit of 512", seq2seq.log_prob_fn, np.full(600, 5))
    keras.utils.set_random_seed(0)
    cnn = CNNTextClassifier(VOCAB, 2, embedding_dim=4, filter_heights=(2,), filters_per_height=2)
    cnn.vocabulary = WORDS
    raises("sentences[1] has 50,000 tokens, more than the limit of 512", class_probabilities, cnn, ["w1", LONG])
    raises("ids has 600 tokens per sentence, more than the limit of 512", cnn.filter_responses, np.full((1, 600), 5))


def test_batched_prediction_gives_the_same_numbers(hred):
    keras.utils.set_random_seed(0)
    cnn = CNNTextClassifier(VOCAB, 2, embedding_dim=4, filter_heights=(2, 3), filters_per_height=2)
    cnn.vocabulary = WORDS
    sentences = ["w1 w2 w3", "w4", "w5 w6 w7 w8 w9", "w2 w2"]
    np.testing.assert_allclose(class_probabilities(cnn, sentences, batch_size=1), class_probabilities(cnn, sentences),
                               atol=1e-6)
    examples = [(["w1 w2", "w3"], "w4 w5"), (["w6"], "w7"), (["w8 w9 w1"], "w2 w3 w4")]
    whole, one_by_one = evaluate_dialogue_model(hred, examples), evaluate_dialogue_model(hred, examples, batch_size=1)
    assert whole["nll_per_token"] == pytest.approx(one_by_one["nll_per_token"], rel=1e-5)


def test_seq2seq_scores_prefixes_in_bounded_pieces(seq2seq, monkeypatch):
    from elmo_keras.models.seq2seq import model as seq2seq_model

    prefixes = np.array([[BOS_ID, 5, 6], [BOS_ID, 7, 8], [BOS_ID, 9, 9], [BOS_ID, 4, 5], [BOS_ID, 6, 6]])
    whole = seq2seq.step_log_probs(np.array([5, 6, 7]), prefixes)
    monkeypatch.setattr(seq2seq_model, "SCORE_TOKENS_PER_CALL", 12)  # two rows (3 source + 3 prefix tokens) a call
    np.testing.assert_allclose(seq2seq.step_log_probs(np.array([5, 6, 7]), prefixes), whole, atol=1e-6)
    assert to_numpy(whole).shape == (5, VOCAB)
