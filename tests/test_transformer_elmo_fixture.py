"""AllenNLP's own transformer-ELMo test model reproduced: for the 5 sentences of
``../shared/fixtures/transformer_elmo/``, the char CNN output, every layer and the
``BidirectionalLanguageModelTokenEmbedder`` mix (char layer tiled, ``<S>``/``</S>`` added and stripped) match AllenNLP's
outputs at 1e-5, alone and in one padded batch; batch-mates and padding change nothing; inference is deterministic
(the seed issue's loop)."""

import json

import numpy as np
import pytest

from elmo_keras._quiet import ops
from elmo_keras.layers.scalar_mix import ScalarMix
from elmo_keras.layers.sequence_ops import add_sentence_boundaries, remove_sentence_boundaries
from elmo_keras.pretrained.transformer_loader import transformer_elmo_from_archive
from elmo_keras.text.char_ids import BEGIN_OF_SENTENCE_ROW, END_OF_SENTENCE_ROW, batch_to_ids
from tests.backend_support import to_numpy

pytestmark = pytest.mark.fixtures
TOLERANCE = dict(rtol=1e-5, atol=1e-5)  # the fixture README: AllenNLP's float32 and float64 runs differ by 1.2e-6


@pytest.fixture(scope="module")
def fixture_dir(shared_fixtures):
    folder = shared_fixtures / "transformer_elmo"
    if not (folder / "expected_outputs.npz").exists():
        pytest.skip(f"the transformer ELMo fixture is not at {folder} (it lives in ../shared/fixtures)")
    return folder


@pytest.fixture(scope="module")
def model(fixture_dir):
    return transformer_elmo_from_archive(fixture_dir / "model.tar.gz")


@pytest.fixture(scope="module")
def expected(fixture_dir):
    return dict(np.load(fixture_dir / "expected_outputs.npz", allow_pickle=False))


@pytest.fixture(scope="module")
def sentences(fixture_dir):
    return json.loads((fixture_dir / "expected_sentences.json").read_text())


def embed(model, sentences):
    """What AllenNLP's ``BidirectionalLanguageModelTokenEmbedder`` computes, from our layers: ``<S>``/``</S>`` added,
    the char CNN, every layer, the default mix of ``[char layer tiled; layer 1; …; layer L]``, boundaries removed."""
    ids = batch_to_ids(sentences)
    ids_with_boundaries, mask = add_sentence_boundaries(ids, ids.any(-1), BEGIN_OF_SENTENCE_ROW, END_OF_SENTENCE_ROW)
    char_cnn = model.char_cnn(ids_with_boundaries)  # (B, T + 2, dim)
    layers = model.contextualizer(char_cnn, mask=mask)  # L × (B, T + 2, 2 * dim)
    tiled = ops.concatenate([char_cnn] * (model.contextualizer.output_dim // model.char_cnn.projection_dim), axis=-1)
    tiled = ops.where(mask[:, :, None], tiled, ops.zeros_like(tiled))
    mix = ScalarMix(1 + len(layers))([tiled, *layers], mask=mask)  # fresh: weights 1 / (L + 1), gamma 1

    def strip(tensor):
        return to_numpy(remove_sentence_boundaries(tensor, mask)[0])

    return {"char_ids": ids, "mask": ids.any(-1), "char_ids_with_bos_eos": to_numpy(ids_with_boundaries),
            "mask_with_bos_eos": to_numpy(mask), "char_cnn_with_bos_eos": to_numpy(char_cnn),
            "layers_with_bos_eos": np.stack([to_numpy(layer) for layer in layers]), "char_cnn": strip(char_cnn),
            "layers": np.stack([strip(layer) for layer in layers]), "mix": strip(mix)}


def test_our_char_ids_are_allennlps(sentences, expected):
    for i, sentence in enumerate(sentences):
        ids = batch_to_ids([sentence])
        np.testing.assert_array_equal(ids[0], expected[f"s{i:02d}_char_ids"])
        with_boundaries, _ = add_sentence_boundaries(ids, ids.any(-1), BEGIN_OF_SENTENCE_ROW, END_OF_SENTENCE_ROW)
        np.testing.assert_array_equal(to_numpy(with_boundaries)[0], expected[f"s{i:02d}_char_ids_with_bos_eos"])


@pytest.mark.parametrize("index", range(5))
def test_each_sentence_alone(model, sentences, expected, index):
    got = embed(model, [sentences[index]])
    for name in ("char_cnn", "mix", "char_cnn_with_bos_eos"):
        np.testing.assert_allclose(got[name][0], expected[f"s{index:02d}_{name}"], err_msg=name, **TOLERANCE)
    for name in ("layers", "layers_with_bos_eos"):
        np.testing.assert_allclose(got[name][:, 0], expected[f"s{index:02d}_{name}"], err_msg=name, **TOLERANCE)


def test_all_sentences_in_one_padded_batch(model, sentences, expected):
    got = embed(model, sentences)
    for name in ("char_ids", "char_ids_with_bos_eos", "mask", "mask_with_bos_eos"):
        np.testing.assert_array_equal(got[name], expected[f"batch_{name}"], err_msg=name)
    for name in ("char_cnn", "layers", "mix"):
        np.testing.assert_allclose(got[name], expected[f"batch_{name}"], err_msg=name, **TOLERANCE)


def test_batch_mates_and_padding_change_nothing(model, sentences):
    alone = embed(model, [sentences[4]])
    batch = embed(model, [sentences[3], sentences[4], sentences[0]])  # the short sentence padded to 15 tokens
    length = len(sentences[4])
    np.testing.assert_allclose(batch["layers"][:, 1, :length], alone["layers"][:, 0], rtol=0, atol=1e-6)
    np.testing.assert_allclose(batch["mix"][1, :length], alone["mix"][0], rtol=0, atol=1e-6)
    np.testing.assert_array_equal(batch["mix"][1, length:], 0.0)


def test_ten_calls_give_bit_identical_sums(model):
    """The seed issue's loop: its user saw a different vector at every call (dropout left on in AllenNLP)."""
    sums = [float(embed(model, [["this", "is", "a", "test"]])["mix"].sum()) for _ in range(10)]
    assert len(set(sums)) == 1, sums
