"""ELMo's point (Peters et al. 2018), asserted: with the `toy` preset on the polysemy corpus (fixed seed), layer 0 of
the word-level model cannot tell senses apart (cosine 1.0 across contexts), while the top layer separates
the senses of bank, play and right on held-out sentences; held-out perplexity is far below a unigram model's.

The preset's ``training_precision="auto"`` picks float32 or mixed bfloat16 from a timing measured on the machine,
which can go either way on a noisy CPU; a test must not depend on a timing, so these train the recipe in float32,
the precision the shipped model was trained in. (At seed 0 in mixed bfloat16 on TensorFlow, the top layer separates
bank, play and right at 0.92, 0.92 and 0.88, against 0.92, 0.92 and 0.96 in float32, on an AVX-512 Xeon: the senses
split either way.)"""

import numpy as np
import pytest

from elmo_keras.analysis import cosine_similarity_matrices, sense_separation, word_occurrences
from elmo_keras.data import TARGET_WORDS, load_polysemy
from elmo_keras.explorer.shipped_models import shipped_model
from elmo_keras.models import get_size, load_bilm, train_bilm
from tests.support.backend_support import outcome, tensorflow_only

# What the recipe reaches is an outcome, checked on TensorFlow: from the same weights every backend takes the same
# training steps (tests/backend/test_backend_portability.py), and the shipped model gives the same vectors on every
# backend
# (tests/project/test_shipped_models.py); only a seed's draws (initial weights, dropout masks) are the backend's own.
pytestmark = [pytest.mark.slow, outcome("the biLM trains and embeds alike on every backend "
                                        "(test_backend_portability, test_every_shipped_model_gives_the_same_numbers_"
                                        "on_every_backend)")]

# A freshly trained model's separation depends on the seed and, through rounding, on the CPU: on TensorFlow, seeds
# 0-5 of the recipe separate bank, play and right at 0.875-1.0 on an AVX2 EPYC (seed 0 gives bank 0.875 there and
# 0.92 on an AVX-512 Xeon).
TOP_LAYER_SEPARATION = 0.85
# The shipped model is what the explorer shows: fixed weights, so its numbers hold on every CPU and backend.
SHIPPED_TOP_LAYER_SEPARATION = 0.9


@pytest.fixture(scope="module")
def toy_model():
    return train_bilm(size=get_size("toy").replace(training_precision="float32"), seed=0)


@pytest.fixture(scope="module")
def corpus():
    return load_polysemy()


def test_heldout_perplexity_far_below_unigram(toy_model):
    summary = toy_model.training_summary
    unigram = summary["heldout_unigram_perplexity"]
    for direction in ("forward_perplexity", "backward_perplexity"):
        assert summary["heldout"][direction] < 0.6 * unigram, (summary["heldout"], unigram)


@pytest.mark.parametrize("word", TARGET_WORDS)
def test_layer0_identical_top_layer_separates_senses(toy_model, corpus, word):
    occurrences = word_occurrences(toy_model, word, corpus[corpus.word == word])
    similarities = cosine_similarity_matrices(occurrences.embeddings)
    np.testing.assert_allclose(similarities[0], 1.0, atol=1e-5)  # layer 0: one vector for every context
    accuracy = sense_separation(occurrences)
    assert accuracy[0] == 0.0  # layer 0: every centroid ties, nothing is separated
    assert accuracy[-1] >= TOP_LAYER_SEPARATION, f"{word}: held-out sense separation per layer {accuracy}"


@pytest.mark.parametrize("word", TARGET_WORDS)
def test_the_shipped_model_separates_senses_in_its_top_layer(corpus, word):
    shipped = load_bilm(shipped_model("toy"))
    accuracy = sense_separation(word_occurrences(shipped, word, corpus[corpus.word == word]))
    assert accuracy[0] == 0.0
    assert accuracy[-1] >= SHIPPED_TOP_LAYER_SEPARATION, f"{word}: shipped model's separation per layer {accuracy}"


@tensorflow_only("the shipped model was trained on TensorFlow, whose random draws for a seed are its own")
def test_the_recipe_rebuilds_the_shipped_default_model(toy_model):
    """``tools/build_shipped_models.py`` trains this same recipe in float32 at seed 0, and the freshly trained model
    takes the same steps. Training is chaotic, so the check is on the epoch losses, where rounding has had little
    time to grow: the first ten agree to 1e-4 (relative) and every one to 0.5%, across CPUs (AVX-512 Xeon, AVX2
    EPYC); another seed is off by 3% at epoch 1. Held-out perplexity, the end of a long chaotic run, moves by 2%
    between those CPUs (and by 9% between seeds), so it is held to 5%."""
    assert toy_model.training_summary["training_precision"] == "float32"
    shipped = load_bilm(shipped_model("toy")).training_summary
    fresh_losses = toy_model.training_summary["history"]["loss"]
    shipped_losses = shipped["history"]["loss"]
    assert len(fresh_losses) == len(shipped_losses)
    np.testing.assert_allclose(fresh_losses[:10], shipped_losses[:10], rtol=1e-4)
    np.testing.assert_allclose(fresh_losses, shipped_losses, rtol=5e-3)
    fresh_heldout = toy_model.training_summary["heldout"]
    for direction in ("forward_perplexity", "backward_perplexity"):
        assert fresh_heldout[direction] == pytest.approx(shipped["heldout"][direction], rel=0.05)
