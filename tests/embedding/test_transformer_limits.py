"""A transformer batch that cannot run is refused before the work, in one line: a sentence past ``max_length``
positions (boundaries included), or attention (``limits.attention_bytes``) larger than the available memory (patched
here, so nothing large is allocated). An LSTM biLM is never refused for attention."""

import numpy as np
import pytest

from elmo_keras import limits
from elmo_keras.embedding import jobs
from elmo_keras.embedding.embedder import ElmoEmbedder
from elmo_keras.layers import CharCNN
from elmo_keras.layers.bilm import BiLM
from elmo_keras.layers.transformer_bilm import TransformerBiLM

WORDS = "the cat sat on a mat by the river bank".split()


def tiny_transformer(max_length=5000):
    bilm = TransformerBiLM(CharCNN(embedding_dim=4, filters=((1, 8),), projection_dim=8), hidden_dim=8, num_layers=1,
                           num_heads=2, dropout=0.0, max_length=max_length)
    bilm.build(bilm.input_ids_shape)
    return bilm


@pytest.fixture
def memory(monkeypatch):
    """Set the available memory the checks see: ``memory(bytes)``."""
    return lambda available: monkeypatch.setattr(limits, "available_memory_bytes", lambda: available)


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if a batch reaches the biLM."""
    def refuse(*args, **kwargs):
        raise AssertionError("the batch was embedded before the check refused it")

    monkeypatch.setattr(jobs, "embed_token_lists", refuse)


def test_attention_bytes_is_rows_heads_positions_squared_float32_times_the_live_scores():
    assert limits.attention_bytes(8, 2002, 8) == 8 * 8 * 2002**2 * 4 * limits.ATTENTION_LIVE_SCORES


def test_a_batch_whose_attention_does_not_fit_is_refused_in_one_line(memory, no_work):
    # time_bucket=1: the batch's own length on every backend (where a path compiles per shape, as JAX's, the embedder
    # pads the time axis to a multiple of time_bucket, and the check counts the padded positions)
    embedder = ElmoEmbedder(bilm=tiny_transformer(), time_bucket=1)
    needed = limits.attention_bytes(3, 12, 2)  # 3 rows, the longest 10 tokens + <S> and </S>
    memory(needed - 1)
    with pytest.raises(ValueError, match=r"^a batch of 3 sentences × 12 positions needs about .* GiB for the "
                                         r"transformer's attention \(rows × 2 heads .*, but .* GiB is available: "
                                         r"embed fewer sentences per batch") as error:
        embedder.embed_batch([WORDS, WORDS[:3], ["a"]])
    assert "\n" not in str(error.value)
    memory(limits.attention_bytes(2, 12, 2) - 1)
    with pytest.raises(ValueError, match="^a batch of 2 sentences × 12 positions"):  # the job: its longest batch
        list(embedder.embed_sentences([["a"], WORDS, WORDS[:3], WORDS], batch_size=2))


def test_a_batch_that_fits_runs(memory):
    embedder = ElmoEmbedder(bilm=tiny_transformer(), time_bucket=1)  # 12 positions on every backend (above)
    memory(limits.attention_bytes(3, 12, 2))
    assert [v.shape for v in embedder.embed_batch([WORDS, WORDS[:3], ["a"]])] == [(2, 10, 16), (2, 3, 16), (2, 1, 16)]


def test_a_sentence_past_max_length_is_refused_naming_it(no_work):
    embedder = ElmoEmbedder(bilm=tiny_transformer(max_length=8))
    with pytest.raises(ValueError, match=r"^sentences\[1\] has 7 tokens, more than the limit of 6: the transformer "
                                         r"has 8 positions, 2 of them for <S> and </S>; split or shorten it$"):
        embedder.embed_batch([WORDS[:6], WORDS[:7]])
    with pytest.raises(ValueError, match=r"^sentences\[2\] has 10 tokens"):  # a job names it in the whole input
        list(embedder.embed_sentences([["a"], WORDS[:6], WORDS], batch_size=2))


def test_an_lstm_bilm_is_not_checked_for_attention(memory):
    bilm = BiLM(CharCNN(embedding_dim=4, filters=((1, 8),), projection_dim=8), units=8, projection_dim=8)
    bilm.build(bilm.input_ids_shape)
    memory(1)
    vectors = ElmoEmbedder(bilm=bilm).embed_batch([WORDS])
    assert vectors[0].shape == (3, 10, 16) and np.isfinite(vectors[0]).all()
