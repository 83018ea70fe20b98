"""``export_onnx`` + ``OnnxEmbedder``: the exported graph, run by onnxruntime, gives the default embedding path's
vectors (``ElmoEmbedder``'s defaults: for models this small, float32 on the graph) to 1e-5 absolute (float32 rounding
of two runtimes) on both original test models, on hard inputs (Unicode, tokens past 50 bytes, one-token sentences,
lengths 1 to 45 in one batch), and its raw output equals ``bilm_activations`` with padding steps and all-padding rows
(zero there); a word-level biLM exports too; bad models and files are clear errors; ``OnnxEmbedder`` imports no Keras.

Export runs on the TensorFlow backend (tf2onnx); elsewhere ``export_onnx`` refuses with a reason (tested there) and
the export tests are skipped. Skipped where onnxruntime, onnx or tf2onnx (``requirements-test.txt``) or
../shared/fixtures are absent.
"""

import subprocess
import sys

import numpy as np
import pytest

from elmo_keras.embedding.embedder import ElmoEmbedder
from elmo_keras.embedding.inference import bilm_activations
from elmo_keras.embedding.onnx_embedder import OnnxEmbedder
from elmo_keras.embedding.onnx_export import export_onnx
from elmo_keras.layers import CharCNN, WordEmbedding
from elmo_keras.layers.bilm import BiLM
from elmo_keras.safe_files import OutputOverwritesInputError
from elmo_keras.text.batching import WordIds, char_ids_with_boundaries
from elmo_keras.text.vocabulary import Vocabulary
from tests.support.backend_support import BACKEND, tensorflow_only

TOLERANCE = 1e-5
WORDS = "the cat sat on a mat by the river bank".split()
# 26 sentences, 1 to 45 tokens, embedded as one batch: what character ids and padding make hard
HARD_SENTENCES = [
    ["Hi"],
    ["."],
    ["x" * 60],  # past the 50 characters of a token: cut to 48 bytes
    ["€" * 20],  # 60 UTF-8 bytes, cut inside a character
    ["naïve", "café", "résumé", "Ångström"],
    ["日本語", "の", "文", "です", "。"],
    ["🙂", "👍🏽", "🇫🇷", "👨‍👩‍👧"],  # emoji, a skin tone, a flag, a joined family
    ["مرحبا", "بالعالم", "!"],
    ["e\u0301", "a\u0308", "n\u0303o"],  # combining marks
    ["<S>", "</S>", "<UNK>", "<pad>"],  # the boundary tokens inside a sentence
    ["\ud800a", "b\udfff"],  # lone surrogates beside a letter
    ["a" * 48, "b" * 49, "c" * 50, "d"],  # around the cut
    ["3.14", "1,000", "-7", "1e-5", "0x1F"],
    ["ALLCAPS", "MiXeD", "lower", "Title"],
    ["don't", "can't", "o'clock", "rock'n'roll"],
    ["\t", "\x00", "\x7f"],  # a tab, NUL and DEL as tokens of their own
    ["Straße", "İstanbul", "ǅ", "ﬁ"],  # case oddities and a ligature
    ["Привет", "мир", "Γειά", "σου"],
    WORDS * 4 + WORDS[:5],  # 45 tokens: the longest
    WORDS * 2,
    WORDS[:3],
    ["a"],
    ["I", "sat", "by", "the", "bank", "."],
    ["—", "…", "«", "»", "“", "”"],
    ["http://example.com/a?b=c&d=e", "user@example.org"],
    ["z"] * 30,
]


@pytest.fixture(scope="module", params=["elmo_bilm_tf", "elmo_skip"])
def exported(request, shared_fixtures, tmp_path_factory):
    """``(ElmoEmbedder, OnnxEmbedder, path)`` for one original test model (without / with skip connections)."""
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tf2onnx")
    if BACKEND != "tensorflow":
        pytest.skip(f"TensorFlow only: ONNX export needs the tensorflow backend (this run: {BACKEND})")
    directory = shared_fixtures / request.param
    embedder = ElmoEmbedder(directory / "options.json", directory / "lm_weights.hdf5")
    path = export_onnx(embedder, tmp_path_factory.mktemp("onnx") / f"{request.param}.onnx")
    return embedder, OnnxEmbedder(path), path


def max_difference(ours, theirs):
    assert [a.shape for a in ours] == [b.shape for b in theirs]
    return max(float(np.abs(a - b).max(initial=0.0)) for a, b in zip(ours, theirs))


@pytest.mark.fixtures
def test_hard_inputs_in_one_batch_and_alone_equal_the_embedder(exported):
    embedder, onnx_embedder, _ = exported
    assert len(HARD_SENTENCES) == 26
    expected = embedder.embed_batch(HARD_SENTENCES)
    assert max_difference(onnx_embedder.embed_batch(HARD_SENTENCES), expected) <= TOLERANCE
    for index in (0, 3, 18):  # alone: a batch of one, other lengths
        assert max_difference([onnx_embedder.embed_sentence(HARD_SENTENCES[index])], [expected[index]]) <= TOLERANCE
    assert expected[0].shape == (3, 1, 32)


@pytest.mark.fixtures
def test_the_original_outputs_and_an_empty_sentence(exported, sentences, expected, request):
    embedder, onnx_embedder, _ = exported
    batch = [sentences[k][0] for k in range(len(sentences))] + [[]]
    vectors = onnx_embedder.embed_batch(batch)
    assert vectors[-1].shape == (3, 0, 32)
    assert max_difference(vectors, embedder.embed_batch(batch)) <= TOLERANCE
    if "elmo_bilm_tf" in request.node.callspec.id:  # the stateless rows of bilm-tf's own outputs (top layer)
        assert max_difference([v[-1] for v in vectors[:-1]], [expected[k][0] for k in range(3)]) <= TOLERANCE


@pytest.mark.fixtures
def test_padding_steps_and_rows_as_the_default_path(exported):
    """The file's raw output on ids with extra padding steps and two all-padding rows: ``bilm_activations``'s values,
    zero at every padded step, and the same real rows as without the padding."""
    embedder, onnx_embedder, path = exported
    sentences = [["The", "cat", "sat", "."], ["Hi"], ["A", "longer", "sentence", "about", "the", "bank", "."]]
    ids = char_ids_with_boundaries(sentences, 12)  # (3, 12, 50): 9, 3 and 3 padding steps
    ids = np.concatenate([ids[:1], np.zeros_like(ids[:1]), ids[1:], np.zeros_like(ids[:1])])  # rows 1, 4: padding
    got = onnx_embedder.activations(ids)  # (B, layers, T, dim)
    want = np.moveaxis(bilm_activations(embedder.bilm, ids), 0, 1)
    assert got.shape == want.shape == (5, 3, 12, 32)
    assert np.abs(got - want).max() <= TOLERANCE
    real = np.any(ids > 0, axis=-1)  # (B, T)
    assert not np.any(got.transpose(0, 2, 1, 3)[~real])
    unpadded = onnx_embedder.activations(char_ids_with_boundaries(sentences))  # (3, layers, 9, dim)
    assert np.abs(got[[0, 2, 3], :, :9] - unpadded).max() <= TOLERANCE
    inputs, outputs = onnx_embedder.session.get_inputs(), onnx_embedder.session.get_outputs()
    assert (inputs[0].name, inputs[0].shape) == ("char_ids", ["batch", "time", 50])
    assert (outputs[0].name, outputs[0].shape) == ("activations", ["batch", 3, "time", 32])


@tensorflow_only("ONNX export runs on the tensorflow backend (tf2onnx)")
def test_a_word_level_bilm_exports_with_its_vocabulary(tmp_path):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tf2onnx")
    vocabulary = Vocabulary.from_corpus([WORDS])
    bilm = BiLM(WordEmbedding(len(vocabulary), 8), units=12, projection_dim=8, use_skip_connections=True)
    bilm(np.array([[2, 5, 3]], dtype=np.int32))
    onnx_embedder = OnnxEmbedder(export_onnx(bilm, tmp_path / "words.onnx"), vocabulary=vocabulary)
    embedder = ElmoEmbedder(bilm=bilm, sentence_ids=WordIds(vocabulary))
    batch = [WORDS, ["bank"], ["an", "unknown", "word"]]
    assert max_difference(onnx_embedder.embed_batch(batch), embedder.embed_batch(batch)) <= TOLERANCE
    assert onnx_embedder.session.get_inputs()[0].name == "word_ids"
    with pytest.raises(ValueError, match="vocabulary"):
        OnnxEmbedder(tmp_path / "words.onnx")


def _tiny_char_bilm(**kwargs):
    bilm = BiLM(CharCNN(embedding_dim=4, filters=((1, 8), (2, 8)), projection_dim=8), units=16, projection_dim=8,
                **kwargs)
    bilm(char_ids_with_boundaries([["build"]]))
    return bilm


def test_models_that_cannot_be_exported_are_named(tmp_path):
    with pytest.raises(ValueError, match="expected a BiLM or TransformerBiLM.*received str"):
        export_onnx("model", tmp_path / "m.onnx")
    unbuilt = BiLM(CharCNN(embedding_dim=4, filters=((1, 8),), projection_dim=8), units=16, projection_dim=8)
    with pytest.raises(ValueError, match="not built"):
        export_onnx(unbuilt, tmp_path / "m.onnx")
    with pytest.raises(ValueError, match="stateful.*copy\\(stateful=False\\)"):
        export_onnx(_tiny_char_bilm(stateful=True), tmp_path / "m.onnx")
    assert not (tmp_path / "m.onnx").exists()


@pytest.mark.skipif(BACKEND == "tensorflow", reason="on TensorFlow export_onnx runs (the tests above)")
def test_other_backends_refuse_export_with_the_reason(tmp_path):
    with pytest.raises(ValueError, match="needs the tensorflow backend.*KERAS_BACKEND=tensorflow"):
        export_onnx(_tiny_char_bilm(), tmp_path / "m.onnx")


@pytest.mark.fixtures
def test_export_never_writes_over_the_model_files(shared_fixtures):
    directory = shared_fixtures / "elmo_bilm_tf"
    embedder = ElmoEmbedder(directory / "options.json", directory / "lm_weights.hdf5")
    for name in ("options.json", "lm_weights.hdf5"):
        with pytest.raises(OutputOverwritesInputError, match="choose another output path"):
            export_onnx(embedder, directory / name)


def test_a_file_export_onnx_did_not_write_is_refused(tmp_path):
    onnx = pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "other",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)]), tmp_path / "other.onnx")
    with pytest.raises(ValueError, match="not an export_onnx file.*\\['x'\\]"):
        OnnxEmbedder(tmp_path / "other.onnx")


def test_the_onnx_embedder_imports_no_keras():
    code = ("import sys; import elmo_keras.embedding.onnx_embedder; "
            "print(sorted(m for m in ('keras', 'tensorflow', 'jax', 'torch') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert result.stdout.strip() == "[]"
