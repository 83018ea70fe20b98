"""Exhaustive search: brute-force agreement, the size of the search space, and the refusal message."""

import itertools

import numpy as np
import pytest

from elmo_keras.decoding import MAX_EXHAUSTIVE_SEQUENCES, NGramTable, count_sequences, exhaustive_search

BOS, EOS = 0, 1


def all_outputs(vocab_size, max_len):
    """Every output: ends at its first <eos>, or is max_len tokens without one."""
    outputs = []
    for length in range(1, max_len + 1):
        for body in itertools.product([t for t in range(vocab_size) if t != EOS], repeat=length - 1):
            outputs.append(body + (EOS,))
    outputs += list(itertools.product([t for t in range(vocab_size) if t != EOS], repeat=max_len))
    return outputs


@pytest.mark.parametrize("vocab_size, max_len", [(2, 1), (3, 3), (4, 2), (5, 3)])
def test_count_sequences_matches_enumeration(vocab_size, max_len):
    assert count_sequences(vocab_size, max_len) == len(all_outputs(vocab_size, max_len))


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_exhaustive_equals_brute_force(seed, alpha):
    table = NGramTable.random(4, 3, seed=seed)
    outputs = all_outputs(4, 3)

    def log_prob(tokens):
        return sum(table(np.array([(BOS,) + tokens[:i]]))[0, t] for i, t in enumerate(tokens))

    scores = [log_prob(o) / len(o) ** alpha for o in outputs]
    best = exhaustive_search(table, BOS, EOS, 3, length_penalty=alpha, num_return=3)
    assert [h.tokens for h in best] == [outputs[i] for i in np.argsort(scores, kind="stable")[::-1][:3]]
    assert best[0].score == pytest.approx(max(scores))
    probabilities = np.exp([log_prob(o) for o in outputs])
    assert probabilities.sum() == pytest.approx(1.0)  # the outputs partition the probability space


def test_refuses_large_searches_with_count_and_limit():
    table = NGramTable.random(50, 2, seed=0)
    with pytest.raises(ValueError) as error:
        exhaustive_search(table, BOS, EOS, 5)
    message = str(error.value)
    assert f"{count_sequences(50, 5):,} sequences" in message
    assert f"max_sequences={MAX_EXHAUSTIVE_SEQUENCES:,}" in message
    assert "vocab 50, max_len 5" in message


def test_limit_is_configurable():
    table = NGramTable.random(3, 2, seed=0)
    with pytest.raises(ValueError, match="would score 15 sequences"):
        exhaustive_search(table, BOS, EOS, 3, max_sequences=14)
    assert exhaustive_search(table, BOS, EOS, 3, max_sequences=15).log_prob <= 0
