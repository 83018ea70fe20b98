"""export_pretrained writes the original ELMo layout: each inverse conversion undoes the loader's, and
load → export → load gives the same tensors in the HDF5 file and the same activations (both fixture models)."""

import json
import os

import h5py
import numpy as np
import pytest
from keras import ops

from elmo_keras.layers.bilm import BiLM
from elmo_keras.layers.char_cnn import CharCNN
from elmo_keras.layers.word_embedding import WordEmbedding
from elmo_keras.models.bilm.language_model import BiLanguageModel
from elmo_keras.pretrained import export
from elmo_keras.pretrained.export import (
    conv1d_kernel_to_conv2d,
    drop_padding_char_row,
    export_pretrained,
    join_lstm_kernel,
    keras_gates_to_tf_order,
    lstm_cell_to_tf,
    unfold_forget_bias,
)
from elmo_keras.pretrained.loader import load_pretrained_bilm
from elmo_keras.pretrained.options import ElmoOptions
from elmo_keras.pretrained.weights import (
    conv2d_kernel_to_conv1d,
    convert_lstm_cell,
    fold_forget_bias,
    prepend_padding_char_row,
    read_weight_file,
    split_lstm_kernel,
    tf_gates_to_keras_order,
)
from elmo_keras.safe_files import OutputOverwritesInputError
from elmo_keras.text.char_ids import BOS_TOKEN, EOS_TOKEN, batch_to_ids
from elmo_keras.text.vocabulary import Vocabulary
from elmo_keras.text.vocabulary_files import read_bilm_vocabulary

FIXTURE_MODELS = ("elmo_bilm_tf", "elmo_skip")
# TF's forget bias is folded in on loading (+1.0) and out on export (-1.0): float32 rounding of b + 1 - 1, at most
# half the float32 spacing at |b| + 1 (6e-8 for |b| < 1; measured on the fixtures: 6e-8); every other tensor is
# copied bit for bit


def assert_within_forget_bias_rounding(actual, expected):
    bound = np.spacing(np.abs(expected).astype(np.float32) + np.float32(1.0)) / 2
    assert np.all(np.abs(actual - expected) <= bound), float(np.abs(actual - expected).max())

OUTPUT_TOLERANCE = 1e-6  # measured: 0 (the reload folds the same +1.0 back in)
SENTENCES = [["The", "bank", "closed", "."], ["Hi", "!"]]


def activations(bilm, sentences=SENTENCES):
    ids = batch_to_ids([[BOS_TOKEN, *tokens, EOS_TOKEN] for tokens in sentences])
    return [ops.convert_to_numpy(layer) for layer in bilm(ids)["activations"]]


def max_difference(first, second):
    return max(float(np.abs(a - b).max()) for a, b in zip(first, second))


# -- each inverse conversion ------------------------------------------------------------------------------------


def test_gate_order_inverse_on_labelled_blocks():
    ours = np.repeat(np.arange(4.0), 2)  # [i i f f g g o o]
    np.testing.assert_array_equal(keras_gates_to_tf_order(ours), [0, 0, 2, 2, 1, 1, 3, 3])  # [i j f o], j = g
    rng = np.random.default_rng(0)
    tf_order = rng.normal(size=(3, 8))
    np.testing.assert_array_equal(keras_gates_to_tf_order(tf_gates_to_keras_order(tf_order)), tf_order)


def test_forget_bias_and_kernel_inverses():
    rng = np.random.default_rng(1)
    bias = rng.normal(size=(8,)).astype(np.float32)
    assert_within_forget_bias_rounding(unfold_forget_bias(fold_forget_bias(bias)), bias)
    np.testing.assert_array_equal(unfold_forget_bias(np.zeros(8)), [0, 0, -1, -1, 0, 0, 0, 0])  # the f block
    w_0 = rng.normal(size=(5 + 3, 8))
    np.testing.assert_array_equal(join_lstm_kernel(*split_lstm_kernel(w_0, 5)), w_0)
    kernel = rng.normal(size=(1, 3, 4, 6))
    np.testing.assert_array_equal(conv1d_kernel_to_conv2d(conv2d_kernel_to_conv1d(kernel)), kernel)
    with pytest.raises(ValueError, match="width, char_dim, count"):
        conv1d_kernel_to_conv2d(kernel)
    char_embed = rng.normal(size=(261, 4))
    np.testing.assert_array_equal(drop_padding_char_row(prepend_padding_char_row(char_embed)), char_embed)


def test_lstm_cell_inverse_restores_every_tensor():
    rng = np.random.default_rng(2)
    w_0, b, w_p = rng.normal(size=(6 + 2, 16)), rng.normal(size=(16,)), rng.normal(size=(4, 2))
    back = lstm_cell_to_tf(**convert_lstm_cell(w_0, b, w_p, input_dim=6))
    np.testing.assert_array_equal(back["W_0"], w_0)
    np.testing.assert_allclose(back["B"], b, atol=1e-12)
    np.testing.assert_array_equal(back["W_P_0"], w_p)
    assert "W_P_0" not in lstm_cell_to_tf(**convert_lstm_cell(w_0[:, :], b, None, input_dim=6))


# -- the whole model ----------------------------------------------------------------------------------------------


@pytest.mark.fixtures
@pytest.mark.parametrize("name", FIXTURE_MODELS)
def test_round_trip_of_the_original_models(shared_fixtures, tmp_path, name):
    options_file, weight_file = shared_fixtures / name / "options.json", shared_fixtures / name / "lm_weights.hdf5"
    bilm = load_pretrained_bilm(options_file, weight_file)
    written = export_pretrained(bilm, tmp_path / "options.json", tmp_path / "weights.hdf5")

    original, exported = read_weight_file(weight_file), read_weight_file(tmp_path / "weights.hdf5")
    assert sorted(exported) == sorted(original)
    for tensor, value in original.items():
        assert exported[tensor].shape == value.shape and exported[tensor].dtype == np.float32, tensor
        if tensor.endswith("/B"):
            assert_within_forget_bias_rounding(exported[tensor], value)
        else:
            np.testing.assert_array_equal(exported[tensor], value, err_msg=tensor)
    reread, original_options = ElmoOptions.load(tmp_path / "options.json"), ElmoOptions.load(options_file)
    assert (reread.char_cnn, reread.lstm) == (original_options.char_cnn, original_options.lstm)
    assert (written.char_cnn, written.lstm) == (reread.char_cnn, reread.lstm)

    reloaded = load_pretrained_bilm(tmp_path / "options.json", tmp_path / "weights.hdf5")
    assert max_difference(activations(bilm), activations(reloaded)) <= OUTPUT_TOLERANCE


def tiny_char_bilm(filters=((1, 4), (2, 4)), units=8, projection_dim=None):
    """A built character biLM; with the default filters (8 in all) = the LSTM width: no CNN_proj in the file."""
    encoder = CharCNN(embedding_dim=4, filters=filters, n_highway=1, projection_dim=projection_dim or units)
    bilm = BiLM(encoder, units=units, num_layers=1, projection_dim=projection_dim, cell_clip=3.0)
    bilm.build((None, None, 50))
    return bilm


def test_model_without_projections_round_trips_with_identity_token_projection(tmp_path):
    bilm = tiny_char_bilm()
    with pytest.raises(ValueError, match="projection must stay the identity"):
        export_pretrained(bilm, tmp_path / "options.json", tmp_path / "weights.hdf5")
    assert not list(tmp_path.iterdir())  # nothing written when a check fails
    bilm.token_encoder.projection.kernel.assign(np.eye(8, dtype="float32"))
    bilm.token_encoder.projection.bias.assign(np.zeros(8, dtype="float32"))
    options = export_pretrained(bilm, tmp_path / "options.json", tmp_path / "weights.hdf5")
    assert (options.lstm.dim, options.lstm.projection_dim, options.lstm.proj_clip) == (8, 8, None)
    tensors = read_weight_file(tmp_path / "weights.hdf5")
    assert "CNN_proj/W_proj" not in tensors and not any(name.endswith("W_P_0") for name in tensors)
    reloaded = load_pretrained_bilm(tmp_path / "options.json", tmp_path / "weights.hdf5")
    assert max_difference(activations(bilm), activations(reloaded)) <= OUTPUT_TOLERANCE


def test_softmax_is_written_only_with_a_vocabulary_file(tmp_path):
    bilm = tiny_char_bilm(filters=((1, 4), (2, 8)), units=16, projection_dim=8)
    model = BiLanguageModel(bilm, vocab_size=6)
    model.build((None, None, 50))
    model.vocabulary = Vocabulary(["bank", "river"])
    export_pretrained(model, tmp_path / "options.json", tmp_path / "plain.hdf5")
    assert not any(name.startswith("softmax") for name in read_weight_file(tmp_path / "plain.hdf5"))

    export_pretrained(model, tmp_path / "options.json", tmp_path / "weights.hdf5", tmp_path / "vocab.txt")
    assert read_bilm_vocabulary(tmp_path / "vocab.txt") == model.vocabulary
    lines = (tmp_path / "vocab.txt").read_text(encoding="utf-8").split()
    assert lines == ["<S>", "</S>", "<UNK>", "bank", "river"]
    tensors = read_weight_file(tmp_path / "weights.hdf5")
    kernel, bias = ops.convert_to_numpy(model.softmax.kernel), ops.convert_to_numpy(model.softmax.bias)
    rows = [2, 3, 1, 4, 5]  # our ids of the lines; <pad> (0) has no row
    np.testing.assert_array_equal(tensors["softmax/W"], kernel.T[rows])  # (vocab - 1, dim)
    np.testing.assert_array_equal(tensors["softmax/b"], bias[rows])
    reloaded = load_pretrained_bilm(tmp_path / "options.json", tmp_path / "weights.hdf5")  # ignores the softmax
    assert max_difference(activations(bilm), activations(reloaded)) <= OUTPUT_TOLERANCE
    with pytest.raises(ValueError, match="only be exported from a BiLanguageModel"):
        export_pretrained(bilm, tmp_path / "o.json", tmp_path / "w.hdf5", tmp_path / "v.txt")


def test_word_level_models_are_refused(tmp_path):
    bilm = BiLM(WordEmbedding(20, 8), units=8, num_layers=1)
    with pytest.raises(ValueError, match="original ELMo format describes a character CNN"):
        export_pretrained(BiLanguageModel(bilm, vocab_size=20), tmp_path / "options.json", tmp_path / "w.hdf5")


def test_a_directory_as_a_target_is_refused_before_any_file_is_replaced(tmp_path):
    bilm = tiny_char_bilm(filters=((1, 4), (2, 8)), units=16, projection_dim=8)
    (tmp_path / "weights.hdf5").write_bytes(b"previous weights")
    (tmp_path / "options.json").mkdir()
    with pytest.raises(IsADirectoryError, match="options.json: it is a directory"):
        export_pretrained(bilm, tmp_path / "options.json", tmp_path / "weights.hdf5")
    assert (tmp_path / "weights.hdf5").read_bytes() == b"previous weights"


def test_never_overwrites_the_files_the_model_came_from(tmp_path):
    bilm = tiny_char_bilm(filters=((1, 4), (2, 8)), units=16, projection_dim=8)
    model = BiLanguageModel(bilm, vocab_size=5)
    source = tmp_path / "source.hdf5"
    source.write_bytes(b"original weights")
    model.training_summary = {"pretrained": {"options_file": str(tmp_path / "o.json"), "weight_file": str(source)}}
    with pytest.raises(OutputOverwritesInputError, match="fine-tuned from"):
        export_pretrained(model, tmp_path / "options.json", source)
    with pytest.raises(OutputOverwritesInputError, match="the options file"):
        export_pretrained(model, tmp_path / "same", tmp_path / "same")
    assert source.read_bytes() == b"original weights"


def test_a_failed_write_keeps_the_previous_file(tmp_path, monkeypatch):
    bilm = tiny_char_bilm(filters=((1, 4), (2, 8)), units=16, projection_dim=8)
    export_pretrained(bilm, tmp_path / "options.json", tmp_path / "weights.hdf5")
    before = read_weight_file(tmp_path / "weights.hdf5")
    options_inode = (tmp_path / "options.json").stat().st_ino

    def broken_write(path, tensors):
        with h5py.File(path, "w") as handle:
            handle.create_dataset("char_embed", data=np.zeros(3))
        raise OSError("disk full")

    monkeypatch.setattr(export, "_write_hdf5", broken_write)
    bilm.token_encoder.char_embedding.embeddings.assign(np.zeros((262, 4), dtype="float32"))
    with pytest.raises(OSError, match="disk full"):
        export_pretrained(bilm, tmp_path / "options.json", tmp_path / "weights.hdf5")
    after = read_weight_file(tmp_path / "weights.hdf5")
    assert sorted(after) == sorted(before) and all(np.array_equal(after[k], before[k]) for k in before)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["options.json", "weights.hdf5"]  # no temporary left
    assert (tmp_path / "options.json").stat().st_ino == options_inode  # not replaced either: the pair stays matched
    assert json.loads((tmp_path / "options.json").read_text())["lstm"]["dim"] == 16


# -- issue #25 item 2: a released model's files are never written over, and no tensor is ever lost ----------------


def with_softmax(weight_file, vocab_size=7, dim=16):
    """Add bilm-tf's training-checkpoint softmax to a weight file (the loader ignores it)."""
    with h5py.File(weight_file, "a") as handle:
        handle.create_dataset("softmax/W", data=np.ones((vocab_size, dim), np.float32))
        handle.create_dataset("softmax/b", data=np.zeros(vocab_size, np.float32))


@pytest.mark.fixtures
def test_a_loaded_model_never_writes_over_the_files_it_was_loaded_from(shared_fixtures, tmp_path):
    """``load_pretrained_bilm`` then ``export_pretrained`` onto the same files replaced the weight file, dropping
    its softmax; now the model knows its files, through any path naming them (a symlink, a hard link), and so do
    its copies and a language model built over it."""
    from elmo_keras.pretrained.fine_tuning import pretrained_language_model

    released = tmp_path / "released"
    released.mkdir()
    options_file, weight_file = released / "options.json", released / "weights.hdf5"
    options_file.write_bytes((shared_fixtures / "elmo_bilm_tf" / "options.json").read_bytes())
    weight_file.write_bytes((shared_fixtures / "elmo_bilm_tf" / "lm_weights.hdf5").read_bytes())
    with_softmax(weight_file)
    before = (options_file.read_bytes(), weight_file.read_bytes())
    (tmp_path / "link.hdf5").symlink_to(weight_file)
    os.link(weight_file, tmp_path / "hard.hdf5")
    (tmp_path / "link.json").symlink_to(options_file)

    bilm = load_pretrained_bilm(options_file, weight_file)
    language_model = pretrained_language_model(options_file, weight_file, Vocabulary(["bank"]), dropout=0.1)
    outputs = [(tmp_path / "o.json", weight_file), (options_file, tmp_path / "w.hdf5"),
               (tmp_path / "o.json", tmp_path / "link.hdf5"), (tmp_path / "o.json", tmp_path / "hard.hdf5"),
               (tmp_path / "link.json", tmp_path / "w.hdf5")]
    for model in (bilm, bilm.copy(stateful=True), language_model):
        for options_output, weight_output in outputs:
            with pytest.raises(OutputOverwritesInputError, match=r"is the (options|weight) file the model was "
                                                                  r"loaded from \(.*released/"):
                export_pretrained(model, options_output, weight_output)
    assert (options_file.read_bytes(), weight_file.read_bytes()) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hard.hdf5", "link.hdf5", "link.json", "released"]


def test_an_export_never_loses_a_tensor_of_the_file_it_replaces(tmp_path):
    bilm = tiny_char_bilm(filters=((1, 4), (2, 8)), units=16, projection_dim=8)
    model = BiLanguageModel(bilm, vocab_size=6)
    model.build((None, None, 50))
    model.vocabulary = Vocabulary(["bank", "river"])
    options_file, weight_file, vocab = tmp_path / "options.json", tmp_path / "weights.hdf5", tmp_path / "vocab.txt"
    export_pretrained(model, options_file, weight_file, vocab)
    before = weight_file.read_bytes()
    with pytest.raises(ValueError, match=r"weights.hdf5 holds 2 tensor\(s\) this export would not write \(softmax/W, "
                                         r"softmax/b\); replacing it would lose them: pass vocabulary_file to "
                                         r"export the softmax too, choose another path"):
        export_pretrained(model, tmp_path / "other.json", weight_file)
    assert weight_file.read_bytes() == before and not (tmp_path / "other.json").exists()
    export_pretrained(model, options_file, weight_file, vocab)  # every tensor written again: replaced
    assert sorted(read_weight_file(weight_file)) == sorted(read_weight_file(tmp_path / "weights.hdf5"))

    keras_weights = tmp_path / "keras.weights.h5"  # any HDF5 file: its datasets are tensors too
    with h5py.File(keras_weights, "w") as handle:
        handle.create_dataset("layers/dense/vars/0", data=np.ones(3))
    with pytest.raises(ValueError, match=r"holds 1 tensor\(s\) this export would not write \(layers/dense/vars/0\); "
                                         r"replacing it would lose them: choose another path"):
        export_pretrained(model, tmp_path / "other.json", keras_weights, tmp_path / "v.txt")
    assert sorted(read_weight_file(keras_weights)) == ["layers/dense/vars/0"]
