"""Compiled batched beam search == the generic function beam search, on a table-backed step model."""

import numpy as np
import pytest

from elmo_keras._quiet import keras  # noqa: F401
from elmo_keras.decoding import beam_search
from elmo_keras.decoding.batched_beam import BatchedBeamSearch, beam_search_batch
from keras import ops

BOS, EOS, VOCAB, NUM_SOURCES = 0, 1, 6, 5


class TableStepModel:
    """A step model over a source-conditioned bigram table ``P[source, last token, next token]``.

    ``encode`` puts the source id (first source token) in the state; ``decode_step`` looks the row up.
    """

    def __init__(self, probs):
        self.probs = probs
        with np.errstate(divide="ignore"):
            self.log_probs = np.log(probs).astype("float32")  # (S, V, V)

    def encode(self, source_ids):
        return [ops.cast(source_ids[:, :1], "float32")]  # (B, 1)

    def decode_step(self, states, last_token_ids):
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
    ({"beam_size": 0}, "beam_size must be an int >= 1, received 0"),
    ({"num_return": 6}, "num_return must be <= beam_size (5), received 6"),
    ({"max_len": -1}, "max_len must be an int >= 1, received -1"),
])
def test_argument_errors(kwargs, error):
    args = {"bos_id": BOS, "eos_id": EOS, "max_len": 4, "beam_size": 5, **kwargs}
    with pytest.raises(ValueError) as raised:
        BatchedBeamSearch(random_step_model(0), **args)
    assert error in str(raised.value)


def test_step_model_and_sources_are_checked():
    with pytest.raises(TypeError, match="step_model must have a callable encode"):
        BatchedBeamSearch(object(), BOS, EOS, 4, 2)
    search = BatchedBeamSearch(random_step_model(0), BOS, EOS, 4, 2)
    with pytest.raises(ValueError, match="sources must be int \\(batch, source_len\\)"):
        search(np.array([1, 2, 3]))
