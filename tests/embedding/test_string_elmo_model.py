"""A ``keras.Model`` from token strings (``ElmoCharacterIds`` → ``Elmo`` → pooled → ``Dense``): trains with ``fit``
on strings, round-trips through ``.keras`` in a fresh process, and exports (``model.export``) a SavedModel whose
``serve`` answers text, per-token vectors and class probabilities alike, in a process without ``elmo_keras``."""

import json
import subprocess
import sys

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.layers.elmo_character_ids import ElmoCharacterIds
from elmo_keras.pretrained.loader import load_pretrained_elmo
from elmo_keras.text.char_ids import batch_to_ids
from tests.support.backend_support import tensorflow_only, to_numpy
from tests.support.paths import REPO_ROOT

SENTENCES = [["The", "bank", "was", "closed", "."], ["Hello", "wörld", "😀"], ["<S>", "x" * 60]]
LABELS = np.array([0, 1, 1])
TOLERANCE = 1e-6  # float32 outputs of the same graph, reloaded

# runs in a fresh interpreter: the SavedModel first, with TensorFlow alone, then the .keras file with elmo_keras
FRESH_PROCESS = """
import json, sys
import numpy as np
import tensorflow as tf

paths = json.loads(sys.argv[1])
expected = np.load(paths["expected"])
tokens = tf.constant(json.loads(paths["tokens"]))
exported = tf.saved_model.load(paths["export"])  # held: its functions need its variables alive
served = exported.serve(tokens)
assert "elmo_keras" not in sys.modules, "the SavedModel needed elmo_keras"
vectors_error = float(np.abs(served["vectors"].numpy() - expected["vectors"]).max())
probabilities_error = float(np.abs(served["probabilities"].numpy() - expected["probabilities"]).max())

import elmo_keras  # noqa: E402  (its load_model registers the layers)

reloaded = elmo_keras.load_model(paths["keras"])
keras_error = float(np.abs(reloaded.predict(tokens, verbose=0) - expected["probabilities"]).max())
print(json.dumps({"vectors": vectors_error, "probabilities": probabilities_error, "keras": keras_error,
                  "trainable_weights": len(reloaded.trainable_weights)}))
"""


def padded_tokens(sentences):
    longest = max(len(sentence) for sentence in sentences)
    return [sentence + [""] * (longest - len(sentence)) for sentence in sentences]


@pytest.mark.fixtures
@tensorflow_only("string tensors in a trained, saved and exported graph (tf.io.decode_raw, SavedModel)")
def test_a_string_model_trains_saves_and_exports(model_dir, tmp_path):
    import tensorflow as tf  # here: the test runs on TensorFlow only (the other backends may lack it)

    keras.utils.set_random_seed(0)
    elmo = load_pretrained_elmo(model_dir / "options.json", model_dir / "lm_weights.hdf5",
                                num_output_representations=1, dropout=0.0)
    tokens = keras.Input(shape=(None,), dtype="string", name="tokens")
    outputs = elmo(ElmoCharacterIds(name="char_ids")(tokens))
    vectors = outputs["elmo_representations"][0]  # (batch, time, 32)
    pooled = keras.layers.GlobalAveragePooling1D(name="mean")(vectors, mask=outputs["mask"])  # (batch, 32)
    probabilities = keras.layers.Dense(2, activation="softmax", name="classifier")(pooled)  # (batch, 2)
    classifier = keras.Model(tokens, probabilities)
    classifier.compile(optimizer=keras.optimizers.Adam(0.05), loss="sparse_categorical_crossentropy")
    text = tf.constant(padded_tokens(SENTENCES))
    before = [to_numpy(w) for w in classifier.trainable_weights]
    history = classifier.fit(text, LABELS, batch_size=3, epochs=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    assert all(not np.array_equal(b, to_numpy(w)) for b, w in zip(before, classifier.trainable_weights))
    assert len(classifier.trainable_weights) == 4  # the scalar mix (w, gamma) and the head: the biLM stays frozen

    python_path = to_numpy(elmo(batch_to_ids(SENTENCES))["elmo_representations"][0])  # ids made in Python
    expected = {"vectors": python_path, "probabilities": classifier.predict(text, verbose=0)}
    np.savez(tmp_path / "expected.npz", **expected)
    classifier.save(tmp_path / "classifier.keras")
    keras.Model(tokens, {"vectors": vectors, "probabilities": probabilities}).export(tmp_path / "export",
                                                                                     verbose=False)

    paths = {"expected": str(tmp_path / "expected.npz"), "keras": str(tmp_path / "classifier.keras"),
             "export": str(tmp_path / "export"), "tokens": json.dumps(padded_tokens(SENTENCES))}
    done = subprocess.run([sys.executable, "-c", FRESH_PROCESS, json.dumps(paths)], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    errors = json.loads(done.stdout.strip().splitlines()[-1])
    assert errors["trainable_weights"] == 4
    assert max(errors["vectors"], errors["probabilities"], errors["keras"]) <= TOLERANCE, errors
