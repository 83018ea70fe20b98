"""Compiled batched beam search == the generic function beam search, on a table-backed step model."""

import numpy as np
import pytest
from keras import ops

from elmo_keras._quiet import keras  # noqa: F401
from elmo_keras.decoding import beam_search
from elmo_keras.decoding.batched_beam import BatchedBeamSearch, beam_search_batch

BOS, EOS, VOCAB, NUM_SOURCES = 0, 1, 6, 5


class TableStepModel:
    """A step model over a source-conditioned bigram table ``P[source, last token, next token]``.

    ``initial_states`` puts the source id (first source token) in the state; ``decoder_step`` looks the row up.
    """

    def __init__(self, probs):
        self.probs = probs
        with np.errstate(divide="ignore"):
            self.log_probs = np.log(probs).astype("float32")  # (S, V, V)

    def initial_states(self, source_ids):
        return [ops.cast(source_ids[:, :1], "float32")]  # (B, 1)

    def decoder_step(self, states, last_token_ids):
        source = ops.cast(states[0][:, 0], "int32")
        rows = source * VOCAB + ops.cast(last_token_ids, "int32")
        table = ops.reshape(ops.convert_to_tensor(self.log_probs), (-1, VOCAB))
        return ops.take(table, rows, axis=0), states

    def next_log_probs_fn(self, source):
        return lambda prefixes: self.log_probs[source, prefixes[:, -1]].astype(np.float64)


def random_step_model(seed):
    rng = np.random.default_rng(seed)
    probs = rng.dirichlet(np.full(VOCAB, 0.6), size=(NUM_SOURCES, VOCAB))
    probs[..., BOS] = 0.0  # never emitted: <bos> is a context of its own
    probs[..., 2] *= rng.random((NUM_SOURCES, VOCAB)) < 0.7  # some exact zeros (-inf) too
    return TableStepModel(probs / probs.sum(axis=-1, keepdims=True))


@pytest.mark.parametrize("seed, beam_size, max_len, alpha", [(0, 3, 6, 0.0), (1, 4, 4, 1.0), (2, 1, 7, 0.0)])
def test_batched_equals_function_beam_per_source(seed, beam_size, max_len, alpha):
    model = random_step_model(seed)
    sources = np.array([[s, 9, 9] for s in range(NUM_SOURCES)], dtype=np.int32)
    batched = beam_search_batch(model, sources, BOS, EOS, max_len, beam_size, length_penalty=alpha)
    assert len(batched) == NUM_SOURCES
    for source, got in enumerate(batched):
        expected = beam_search(model.next_log_probs_fn(source), BOS, EOS, max_len, beam_size, length_penalty=alpha)
        assert [h.tokens for h in got] == [h.tokens for h in expected]
        assert [h.log_prob for h in got] == pytest.approx([h.log_prob for h in expected], abs=1e-5)
        assert [h.finished for h in got] == [h.finished for h in expected]


def test_ties_and_reuse():
    """Uniform rows: every choice is a tie; both searches break them the same way. A search object is reusable."""
    model = TableStepModel(np.full((NUM_SOURCES, VOCAB, VOCAB), 1.0 / VOCAB))
    search = BatchedBeamSearch(model, BOS, EOS, max_len=3, beam_size=4, num_return=3)
    expected = beam_search(model.next_log_probs_fn(0), BOS, EOS, 3, 4, num_return=3)
    for _ in range(2):
        (got,) = search(np.array([[0]]))
        assert [h.tokens for h in got] == [h.tokens for h in expected]


@pytest.mark.parametrize("kwargs, error", [
    ({"beam_size": 0}, "beam_size must be a positive int, received 0"),
    ({"num_return": 6}, "num_return must be <= beam_size (5), received 6"),
    ({"max_len": -1}, "max_len must be a positive int, received -1"),
])
def test_argument_errors(kwargs, error):
    args = {"bos_id": BOS, "eos_id": EOS, "max_len": 4, "beam_size": 5, **kwargs}
    with pytest.raises(ValueError) as raised:
        BatchedBeamSearch(random_step_model(0), **args)
    assert error in str(raised.value)


def test_step_model_and_sources_are_checked():
    with pytest.raises(TypeError, match="step_model must have a callable initial_states"):
        BatchedBeamSearch(object(), BOS, EOS, 4, 2)
    search = BatchedBeamSearch(random_step_model(0), BOS, EOS, 4, 2)
    with pytest.raises(ValueError, match="sources must be int \\(batch, source_len\\)"):
        search(np.array([1, 2, 3]))


def model_with_log_probs(log_probs):
    """A ``TableStepModel`` whose table is ``log_probs (NUM_SOURCES, VOCAB, VOCAB)`` as given (NaN, > 0, ...)."""
    model = random_step_model(0)
    model.log_probs = np.asarray(log_probs, dtype="float32")
    return model


def with_rows(source, last_tokens, value):
    """``random_step_model(0)``'s table with ``[source, last_tokens, :]`` set to ``value``."""
    log_probs = random_step_model(0).log_probs.copy()
    log_probs[source, last_tokens] = value
    return log_probs


SOURCES = np.array([[s, 9, 9] for s in range(NUM_SOURCES)], dtype=np.int32)


@pytest.mark.parametrize("log_probs, message", [
    (np.full((NUM_SOURCES, VOCAB, VOCAB), np.nan), "decoder_step returned NaN for sources[0] at step 1"),
    (with_rows(3, BOS, np.nan), "decoder_step returned NaN for sources[3] at step 1"),
    (with_rows(1, slice(BOS + 1, None), np.nan), "decoder_step returned NaN for sources[1] at step 2"),
    (np.full((NUM_SOURCES, VOCAB, VOCAB), np.inf), "decoder_step returned +inf for sources[0]"),
    (with_rows(2, BOS, 5.0), "decoder_step returned 5 > 0 for sources[2]; it must return log-probabilities (<= 0): "
                             "apply log_softmax"),
    (np.full((NUM_SOURCES, VOCAB, VOCAB), -np.inf), "every token probability 0 (all -inf) for sources[0] at step 1"),
])
def test_bad_model_output_is_reported(log_probs, message):
    """What ``beam_search`` refuses in ``next_log_probs`` (NaN used to give ``[[]]``, +inf a hypothesis of inf)."""
    with pytest.raises(ValueError) as raised:
        beam_search_batch(model_with_log_probs(log_probs), SOURCES, BOS, EOS, 4, 3)
    assert message in str(raised.value)


def test_only_live_hypotheses_are_checked():
    """Dead slots (and the rows of tokens never kept) may hold anything, as ``beam_search`` never asks for them;
    a hair above 0 (float32 rounding in ``log_softmax``) is accepted."""
    probs = np.zeros((NUM_SOURCES, VOCAB, VOCAB))
    probs[..., EOS], probs[..., 2] = 0.3, 0.7  # only <eos> and 2 are ever kept
    model = TableStepModel(probs)
    model.log_probs[:, 3:] = np.nan  # the rows after tokens never kept (dead slots do get them)
    model.log_probs[:, :3, 2] = 5e-5
    for source, got in enumerate(beam_search_batch(model, SOURCES, BOS, EOS, 4, 4)):
        expected = beam_search(model.next_log_probs_fn(source), BOS, EOS, 4, 4)
        assert [h.tokens for h in got] == [h.tokens for h in expected] == [(2, 2, 2, 2), (2, 2, 1), (2, 1), (1,)]


def test_eos_outside_the_vocabulary_is_refused():
    search = BatchedBeamSearch(random_step_model(0), BOS, VOCAB, 4, 2)  # the vocabulary is known after the call
    with pytest.raises(ValueError, match=r"eos_id must be a token id in \[0, vocab size 6\) of what "
                                         r"step_model.decoder_step returns, received 6"):
        search(SOURCES)


def test_log_probs_summing_to_minus_inf_in_float32_are_reported():
    """Finite but absurd log-probabilities: two steps of -3e38 overflow float32, and no hypothesis is left."""
    model = model_with_log_probs(np.full((NUM_SOURCES, VOCAB, VOCAB), -3e38))
    with pytest.raises(ValueError, match=r"kept no hypothesis for sources\[0\]"):
        beam_search_batch(model, SOURCES[:1], BOS, EOS, 3, 1)
