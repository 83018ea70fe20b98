"""AllenNLP's own transformer-ELMo test model reproduced: for the 5 sentences of
``../shared/fixtures/transformer_elmo/``, the char CNN output, every layer and the
``BidirectionalLanguageModelTokenEmbedder`` mix (char layer tiled, ``<S>``/``</S>`` added and stripped) match AllenNLP's
outputs at 1e-5, alone and in one padded batch; batch-mates and padding change nothing; inference is deterministic
(the seed issue's loop)."""

import json

import numpy as np
import pytest

from elmo_keras._quiet import ops
from elmo_keras.layers.elmo import Elmo
from elmo_keras.layers.scalar_mix import ScalarMix
from elmo_keras.layers.sequence_ops import add_sentence_boundaries, remove_sentence_boundaries
from elmo_keras.pretrained.transformer_loader import transformer_elmo_from_archive
from elmo_keras.text.char_ids import BEGIN_OF_SENTENCE_ROW, END_OF_SENTENCE_ROW, batch_to_ids
from tests.support.backend_support import to_numpy

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
    ids = batch_to_ids(sentences)
    with_boundaries, _ = add_sentence_boundaries(ids, ids.any(-1), BEGIN_OF_SENTENCE_ROW, END_OF_SENTENCE_ROW)
    with_boundaries = to_numpy(with_boundaries)
    for i, sentence in enumerate(sentences):
        n = len(sentence)
        np.testing.assert_array_equal(ids[i, :n], expected[f"s{i:02d}_char_ids"])
        np.testing.assert_array_equal(with_boundaries[i, : n + 2], expected[f"s{i:02d}_char_ids_with_bos_eos"])


@pytest.fixture(scope="module")
def batch(model, sentences):
    """All five sentences as one right-padded batch (one shape: each new shape compiles again on JAX)."""
    return embed(model, sentences)


def test_all_sentences_in_one_padded_batch(batch, expected):
    for name in ("char_ids", "char_ids_with_bos_eos", "mask", "mask_with_bos_eos"):
        np.testing.assert_array_equal(batch[name], expected[f"batch_{name}"], err_msg=name)
    for name in ("char_cnn", "layers", "mix"):
        np.testing.assert_allclose(batch[name], expected[f"batch_{name}"], err_msg=name, **TOLERANCE)


@pytest.mark.parametrize("index", range(5))
def test_each_sentence_as_allennlp_embeds_it_alone(batch, expected, sentences, index):
    """AllenNLP's outputs for the sentence alone (batch of 1) against its row of our padded batch."""
    n = len(sentences[index])
    for name in ("char_cnn", "mix", "char_cnn_with_bos_eos"):
        length = n + 2 if name.endswith("bos_eos") else n
        np.testing.assert_allclose(batch[name][index, :length], expected[f"s{index:02d}_{name}"], err_msg=name,
                                   **TOLERANCE)
    for name in ("layers", "layers_with_bos_eos"):
        length = n + 2 if name.endswith("bos_eos") else n
        np.testing.assert_allclose(batch[name][:, index, :length], expected[f"s{index:02d}_{name}"], err_msg=name,
                                   **TOLERANCE)


def test_a_sentence_alone_and_in_the_batch(model, sentences, expected, batch):
    """Run alone (no padding), the short sentence gives AllenNLP's numbers and its batch row's (batch-mates and
    padding change nothing)."""
    alone = embed(model, [sentences[4]])
    length = len(sentences[4])
    for name in ("char_cnn", "mix"):
        np.testing.assert_allclose(alone[name][0], expected[f"s04_{name}"], err_msg=name, **TOLERANCE)
    np.testing.assert_allclose(alone["layers"][:, 0], expected["s04_layers"], **TOLERANCE)
    np.testing.assert_allclose(batch["layers"][:, 4, :length], alone["layers"][:, 0], rtol=0, atol=1e-6)
    np.testing.assert_allclose(batch["mix"][4, :length], alone["mix"][0], rtol=0, atol=1e-6)
    np.testing.assert_array_equal(batch["mix"][4, length:], 0.0)


def test_ten_calls_give_bit_identical_sums(model):
    """The seed issue's loop: its user saw a different vector at every call (dropout left on in AllenNLP)."""
    sums = [float(embed(model, [["this", "is", "a", "test"]])["mix"].sum()) for _ in range(10)]
    assert len(set(sums)) == 1, sums


def test_the_bilm_in_elmo_gives_allennlps_layers_and_mix(model, sentences, expected):
    """Through the biLM seam: ``Elmo`` over the loaded ``TransformerBiLM`` adds and strips the boundaries, and its
    default mix (weights 1 / (L + 1), gamma 1) over ``[[x; x], layer 1, …]`` is the embedder's mix with its char
    layer tiled (``contextual_dim // char_dim`` = 2 copies)."""
    outputs = Elmo(model.bilm, 1, dropout=0.0)(batch_to_ids(sentences))
    mask = to_numpy(outputs["mask"])
    np.testing.assert_array_equal(mask, expected["batch_mask"])
    layers = np.stack([to_numpy(layer) for layer in outputs["activations"]])
    assert len(layers) == model.bilm.num_activation_layers == 1 + model.contextualizer.num_layers
    tiled = np.concatenate([expected["batch_char_cnn"]] * 2, axis=-1) * mask[:, :, None]
    np.testing.assert_allclose(layers[0], tiled, **TOLERANCE)
    np.testing.assert_allclose(layers[1:], expected["batch_layers"] * mask[None, :, :, None], **TOLERANCE)
    np.testing.assert_allclose(to_numpy(outputs["elmo_representations"][0]), expected["batch_mix"], **TOLERANCE)
