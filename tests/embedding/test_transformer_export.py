"""A ``TransformerBiLM`` exports as the LSTM does: ``export_onnx`` (character and word ids) run by onnxruntime gives
``ElmoEmbedder``'s vectors to 1e-5 (``test_onnx_export``'s tolerance), and a string-input SavedModel
(``ElmoCharacterIds`` → ``Elmo`` → ``model.export``), loaded by TensorFlow alone in a fresh process, gives the eager
layer's vectors to 1e-6 and the embedder's layers to 1e-5 (``test_string_elmo_model``'s tolerances). The bilm-tf
format (``export_pretrained``) refuses a transformer in one line."""

import json
import subprocess
import sys

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.embedding.embedder import ElmoEmbedder
from elmo_keras.embedding.onnx_embedder import OnnxEmbedder
from elmo_keras.embedding.onnx_export import export_onnx
from elmo_keras.layers import CharCNN, Elmo, WordEmbedding
from elmo_keras.layers.elmo_character_ids import ElmoCharacterIds
from elmo_keras.layers.transformer_bilm import TransformerBiLM
from elmo_keras.pretrained.export import export_pretrained
from elmo_keras.text.batching import WordIds, char_ids_with_boundaries
from elmo_keras.text.char_ids import batch_to_ids
from elmo_keras.text.vocabulary import Vocabulary
from tests.support.backend_support import tensorflow_only, to_numpy
from tests.support.paths import REPO_ROOT

ONNX_TOLERANCE = 1e-5  # test_onnx_export: float32 rounding of two runtimes
RELOADED_TOLERANCE = 1e-6  # test_string_elmo_model: the same graph, reloaded
WORDS = "the cat sat on a mat by the river bank".split()
SENTENCES = [["The", "bank", "was", "closed", "."], ["Hello", "wörld", "😀"], ["x" * 60], WORDS * 3]

# runs in a fresh interpreter with TensorFlow alone: the SavedModel answers text without elmo_keras
SERVE = """
import json, sys
import numpy as np
import tensorflow as tf

paths = json.loads(sys.argv[1])
exported = tf.saved_model.load(paths["export"])  # held: its functions need its variables alive
served = exported.serve(tf.constant(json.loads(paths["tokens"])))
assert "elmo_keras" not in sys.modules, "the SavedModel needed elmo_keras"
np.savez(paths["served"], **{name: value.numpy() for name, value in served.items()})
"""


def tiny_transformer(token_encoder):
    bilm = TransformerBiLM(token_encoder, hidden_dim=16, num_layers=2, num_heads=2, dropout=0.0)
    bilm.build(bilm.input_ids_shape)
    return bilm


def tiny_char_transformer():
    keras.utils.set_random_seed(0)
    return tiny_transformer(CharCNN(embedding_dim=4, filters=((1, 8), (2, 8)), n_highway=1, projection_dim=8))


def max_difference(ours, theirs):
    assert [a.shape for a in ours] == [b.shape for b in theirs]
    return max(float(np.abs(a - b).max(initial=0.0)) for a, b in zip(ours, theirs))


@tensorflow_only("ONNX export runs on the tensorflow backend (tf2onnx)")
def test_a_char_transformer_exports_to_onnx_with_the_embedders_numbers(tmp_path):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tf2onnx")
    bilm = tiny_char_transformer()
    onnx_embedder = OnnxEmbedder(export_onnx(bilm, tmp_path / "transformer.onnx"))
    embedder = ElmoEmbedder(bilm=bilm)
    batch = SENTENCES + [["a"]]
    assert max_difference(onnx_embedder.embed_batch(batch), embedder.embed_batch(batch)) <= ONNX_TOLERANCE
    ids = char_ids_with_boundaries(SENTENCES[:2], 9)  # padding steps: zero, and the real steps as without them
    padded = onnx_embedder.activations(ids)  # (2, 3, 9, 16)
    unpadded = onnx_embedder.activations(char_ids_with_boundaries(SENTENCES[:2]))  # (2, 3, 7, 16)
    assert np.abs(padded[:, :, :7] - unpadded).max() <= ONNX_TOLERANCE
    assert not np.any(padded[1, :, 5:])  # "Hello wörld 😀" with boundaries is 5 steps
    assert onnx_embedder.session.get_outputs()[0].shape == ["batch", 3, "time", 16]


@tensorflow_only("ONNX export runs on the tensorflow backend (tf2onnx)")
def test_a_word_transformer_exports_to_onnx_with_its_vocabulary(tmp_path):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tf2onnx")
    keras.utils.set_random_seed(0)
    vocabulary = Vocabulary.from_corpus([WORDS])
    bilm = tiny_transformer(WordEmbedding(len(vocabulary), 8))
    onnx_embedder = OnnxEmbedder(export_onnx(bilm, tmp_path / "words.onnx"), vocabulary=vocabulary)
    embedder = ElmoEmbedder(bilm=bilm, sentence_ids=WordIds(vocabulary))
    batch = [WORDS, ["bank"], ["an", "unknown", "word"]]
    assert max_difference(onnx_embedder.embed_batch(batch), embedder.embed_batch(batch)) <= ONNX_TOLERANCE
    assert onnx_embedder.session.get_inputs()[0].name == "word_ids"


@tensorflow_only("string tensors in an exported graph (tf.io.decode_raw, SavedModel)")
def test_a_string_input_savedmodel_of_a_transformer_answers_text(tmp_path):
    bilm = tiny_char_transformer()
    elmo = Elmo(bilm, num_output_representations=1, dropout=0.0)
    tokens = keras.Input(shape=(None,), dtype="string", name="tokens")
    outputs = elmo(ElmoCharacterIds(name="char_ids")(tokens))
    layers = keras.ops.stack(outputs["activations"], axis=1)  # (batch, 3, time, 16)
    keras.Model(tokens, {"vectors": outputs["elmo_representations"][0], "layers": layers}).export(
        tmp_path / "export", verbose=False)
    longest = max(len(sentence) for sentence in SENTENCES)
    text = [sentence + [""] * (longest - len(sentence)) for sentence in SENTENCES]
    paths = {"export": str(tmp_path / "export"), "tokens": json.dumps(text), "served": str(tmp_path / "served.npz")}
    done = subprocess.run([sys.executable, "-c", SERVE, json.dumps(paths)], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    served = np.load(tmp_path / "served.npz")
    eager = to_numpy(elmo(batch_to_ids(SENTENCES))["elmo_representations"][0])
    assert np.abs(served["vectors"] - eager).max() <= RELOADED_TOLERANCE
    per_sentence = [served["layers"][k, :, :len(sentence)] for k, sentence in enumerate(SENTENCES)]
    assert max_difference(per_sentence, ElmoEmbedder(bilm=bilm).embed_batch(SENTENCES)) <= ONNX_TOLERANCE


def test_the_bilm_tf_format_refuses_a_transformer(tmp_path):
    with pytest.raises(ValueError, match="^the bilm-tf format .* holds only LSTM biLMs, not a TransformerBiLM"):
        export_pretrained(tiny_char_transformer(), tmp_path / "options.json", tmp_path / "weights.hdf5")
    assert not list(tmp_path.iterdir())
