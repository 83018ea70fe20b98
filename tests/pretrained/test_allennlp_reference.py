"""benchmarks/allennlp_reference.py, the PyTorch rewrite of AllenNLP's ELMo that our inference is benchmarked
against, reproduces the original ELMo: to 1e-5 absolute (float32 rounding of two independent implementations),

(a) the bilm-tf test model's expected top layers for the stateless rows: batch 0 of each sentence list (the
    original ran stateful batches; only batch 0 starts from zero state), in one batch and each sentence alone;
(b) all three layers of our ``ElmoEmbedder`` on both original test models (without and with skip connections),
    in one batch of sentences of different lengths;

and its character ids are ours. Skipped where PyTorch or ../shared/fixtures is absent.
"""

import numpy as np
import pytest

pytest.importorskip("torch")

from benchmarks.allennlp_reference import (  # noqa: E402
    AllenNLPStyleElmo,
    elmo_options,
    random_tensors,
    token_char_ids,
    write_model_files,
)
from elmo_keras.embedding.embedder import ElmoEmbedder  # noqa: E402
from elmo_keras.text.char_ids import token_to_char_ids  # noqa: E402

TOLERANCE = 1e-5
SHORT = [["Hi"], ["The", "cat", "sat", "."], ["naïve", "café", "€", "x" * 60, "<S>", "</S>"]]


def max_difference(ours, theirs):
    assert len(ours) == len(theirs)
    for mine, other in zip(ours, theirs):
        assert mine.shape == other.shape
    return max(float(np.abs(mine - other).max()) for mine, other in zip(ours, theirs))


def test_character_ids_are_ours():
    for token in ("a", "The", "naïve", "€", "x" * 60, "<S>", "</S>", "\ud800a"):
        np.testing.assert_array_equal(token_char_ids(token), token_to_char_ids(token))


@pytest.mark.fixtures
def test_stateless_rows_of_the_original_outputs(model_dir, sentences, expected):
    reference = AllenNLPStyleElmo(model_dir / "options.json", model_dir / "lm_weights.hdf5")
    batch = [sentences[k][0] for k in range(len(sentences))]
    vectors = reference.embed_batch(batch)
    assert max_difference([v[-1] for v in vectors], [expected[k][0] for k in range(len(batch))]) <= TOLERANCE
    alone = [reference.embed_sentence(sentence) for sentence in batch]
    assert max_difference(alone, vectors) <= TOLERANCE
    assert vectors[0].shape == (3, len(batch[0]), 32) and vectors[0].dtype == np.float32


@pytest.mark.fixtures
@pytest.mark.parametrize("name", ["elmo_bilm_tf", "elmo_skip"])
def test_all_layers_equal_our_embedder(shared_fixtures, sentences, name):
    files = shared_fixtures / name / "options.json", shared_fixtures / name / "lm_weights.hdf5"
    batch = sentences[0] + SHORT  # 3 to 50 tokens
    ours = ElmoEmbedder(*files).embed_batch(batch)
    theirs = AllenNLPStyleElmo(*files).embed_batch(batch)
    assert max_difference(ours, theirs) <= TOLERANCE


def test_random_model_files_load_into_our_embedder_with_the_same_outputs(tmp_path):
    """What the benchmark compares at ELMo's sizes: both sides load the same untrained weights (here tiny)."""
    options = elmo_options(filters=((1, 4), (2, 8)), cells=16, projection=8, layers=3, n_highway=1, char_dim=4)
    files = write_model_files(tmp_path, options, random_tensors(options, seed=1))
    ours = ElmoEmbedder(*files).embed_batch(SHORT)
    theirs = AllenNLPStyleElmo(*files).embed_batch(SHORT)
    assert theirs[1].shape == (4, 4, 16)
    assert max_difference(ours, theirs) <= TOLERANCE
