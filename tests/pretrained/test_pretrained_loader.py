"""load_pretrained_bilm reproduces the original bilm-tf numbers, loads the skip-connection model, and
rejects bad files with errors naming the file and the tensor or field.

Expected embeddings (``../shared/fixtures/elmo_bilm_tf``): batch ``i`` holds ``sentences[k][i]`` for
``k = 0, 1, 2``, run through a stateful LSTM; the value is the top layer ``[forward; backward]`` without
``<S>``/``</S>``.
"""

import dataclasses
import json
import re
import shutil

import h5py
import numpy as np
import pytest
from keras import ops

from elmo_keras.layers.bilm import BiLM
from elmo_keras.pretrained.loader import bilm_from_options, load_pretrained_bilm, set_pretrained_weights
from elmo_keras.pretrained.options import ElmoOptions, OptionsError
from elmo_keras.pretrained.weights import WeightFileError, read_weight_file
from elmo_keras.text.char_ids import BOS_TOKEN, EOS_TOKEN, batch_to_ids
from tests.support.elmo_fixture_data import NUM_BATCHES

pytestmark = pytest.mark.fixtures

TOLERANCE = 1e-5


def _top_layer(bilm, batch):
    """Run ``bilm`` on token lists (boundaries added); the top layer per sentence without boundaries."""
    ids = batch_to_ids([[BOS_TOKEN, *tokens, EOS_TOKEN] for tokens in batch])
    top = ops.convert_to_numpy(bilm(ids)["activations"][-1])
    return [top[row, 1 : len(tokens) + 1] for row, tokens in enumerate(batch)]


def _max_error(bilm, sentences, expected, batch_index, rows=(0, 1, 2)):
    batch = [sentences[k][batch_index] for k in rows]
    outputs = _top_layer(bilm, batch)
    return max(float(np.abs(out - expected[k][batch_index]).max()) for out, k in zip(outputs, rows))


def test_stateless_matches_batch_0(model_dir, sentences, expected):
    bilm = load_pretrained_bilm(model_dir / "options.json", model_dir / "lm_weights.hdf5")
    assert not bilm.stateful
    assert _max_error(bilm, sentences, expected, 0) <= TOLERANCE
    assert _max_error(bilm, sentences, expected, 0) <= TOLERANCE  # again: no state carried


def test_stateful_matches_all_batches_and_resets(model_dir, sentences, expected):
    bilm = load_pretrained_bilm(model_dir / "options.json", model_dir / "lm_weights.hdf5", stateful=True)
    errors = [_max_error(bilm, sentences, expected, i) for i in range(NUM_BATCHES)]
    assert max(errors) <= TOLERANCE, errors
    bilm.reset_states()
    assert _max_error(bilm, sentences, expected, 0) <= TOLERANCE


def test_stateful_smaller_batch_updates_only_its_rows(model_dir, sentences, expected):
    options, weights = model_dir / "options.json", model_dir / "lm_weights.hdf5"
    carried = load_pretrained_bilm(options, weights, stateful=True)
    _top_layer(carried, [sentences[k][0] for k in range(3)])
    _top_layer(carried, [sentences[k][1] for k in range(2)])  # rows 0, 1 only
    result = _top_layer(carried, [sentences[k][2] for k in range(3)])
    for k in range(2):  # rows 0 and 1 saw batches 0, 1, 2 like the original
        assert np.abs(result[k] - expected[k][2]).max() <= TOLERANCE
    reference = load_pretrained_bilm(options, weights, stateful=True)  # row 2 skipped batch 1 in both
    _top_layer(reference, [sentences[k][0] for k in range(3)])
    reference_row_2 = _top_layer(reference, [sentences[k][2] for k in range(3)])[2]
    np.testing.assert_allclose(result[2], reference_row_2, atol=TOLERANCE)


def test_stateful_larger_batch_starts_extra_rows_from_zero(model_dir, sentences, expected):
    bilm = load_pretrained_bilm(model_dir / "options.json", model_dir / "lm_weights.hdf5", stateful=True)
    _top_layer(bilm, [sentences[0][5]])
    result = _top_layer(bilm, [sentences[k][0] for k in range(3)])
    for k in (1, 2):  # fresh rows = batch 0 of the original
        assert np.abs(result[k] - expected[k][0]).max() <= TOLERANCE
    assert np.abs(result[0] - expected[0][0]).max() > 1e-3  # row 0 continued sentence 5's state


@pytest.mark.parametrize("fixture_name", ["elmo_bilm_tf", "elmo_skip"])
def test_loading_skips_random_initialisation_yet_sets_every_weight(shared_fixtures, fixture_name):
    """load_pretrained_bilm builds with zero-filled weights (random_initialisation_skipped): every weight must still
    come from the file — equal to a randomly initialised build filled by set_pretrained_weights — and the config
    (initialisers included) must be the one a plain build has."""
    directory = shared_fixtures / fixture_name
    options_file, weight_file = directory / "options.json", directory / "lm_weights.hdf5"
    loaded = load_pretrained_bilm(options_file, weight_file)
    options = ElmoOptions.load(options_file)
    reference = bilm_from_options(options)
    reference.build((None, None, 50))
    set_pretrained_weights(reference, options, read_weight_file(weight_file), str(weight_file))
    assert [w.path for w in loaded.weights] == [w.path for w in reference.weights]
    for ours, theirs in zip(loaded.weights, reference.weights):
        np.testing.assert_array_equal(ops.convert_to_numpy(ours), ops.convert_to_numpy(theirs), err_msg=ours.path)
    assert loaded.get_config() == reference.get_config()


def test_skip_connection_model_loads_and_skips(shared_fixtures, sentences):
    skip_dir = shared_fixtures / "elmo_skip"
    bilm = load_pretrained_bilm(skip_dir / "options.json", skip_dir / "lm_weights.hdf5")
    assert bilm.use_skip_connections
    ids = batch_to_ids([[BOS_TOKEN, *sentences[k][0], EOS_TOKEN] for k in range(3)])
    with_skip = [ops.convert_to_numpy(a) for a in bilm(ids)["activations"]]
    assert all(np.isfinite(layer).all() for layer in with_skip)

    options = ElmoOptions.load(skip_dir / "options.json")
    plain_options = ElmoOptions(options.char_cnn, dataclasses.replace(options.lstm, use_skip_connections=False))
    plain = bilm_from_options(plain_options)
    plain.build((None, None, 50))
    set_pretrained_weights(plain, plain_options, read_weight_file(skip_dir / "lm_weights.hdf5"), "skip")
    without_skip = [ops.convert_to_numpy(a) for a in plain(ids)["activations"]]
    np.testing.assert_allclose(with_skip[1], without_skip[1], atol=1e-6)  # no skip into the first layer
    assert np.abs(with_skip[2] - without_skip[2]).max() > 1e-2
    # the skip adds layer 1's output to layer 2's: undo it and the LSTM outputs agree
    mask = ops.convert_to_numpy(bilm(ids)["mask"])[..., None]
    np.testing.assert_allclose((with_skip[2] - with_skip[1]) * mask, without_skip[2], atol=1e-5)


def _copy_weights(model_dir, tmp_path):
    path = tmp_path / "weights.hdf5"
    shutil.copy(model_dir / "lm_weights.hdf5", path)
    return path


def test_missing_files(model_dir, tmp_path):
    with pytest.raises(FileNotFoundError, match="nope_options.json"):
        load_pretrained_bilm(tmp_path / "nope_options.json", model_dir / "lm_weights.hdf5")
    with pytest.raises(FileNotFoundError, match="nope_weights.hdf5"):
        load_pretrained_bilm(model_dir / "options.json", tmp_path / "nope_weights.hdf5")


def test_weights_not_hdf5(model_dir, tmp_path):
    path = tmp_path / "weights.hdf5"
    path.write_text("these are not weights\n")
    with pytest.raises(WeightFileError, match=f"{re.escape(str(path))}: is not an HDF5 file"):
        load_pretrained_bilm(model_dir / "options.json", path)


def test_missing_tensor(model_dir, tmp_path):
    path = _copy_weights(model_dir, tmp_path)
    name = "RNN_1/RNN/MultiRNNCell/Cell1/LSTMCell/B"
    with h5py.File(path, "a") as handle:
        del handle[name]
    message = rf"{re.escape(str(path))}: '{name}' is missing: expected a tensor of shape \(256,\)"
    with pytest.raises(WeightFileError, match=message) as info:
        load_pretrained_bilm(model_dir / "options.json", path)
    assert info.value.key == name and info.value.path == str(path)


def test_wrong_shape(model_dir, tmp_path):
    path = _copy_weights(model_dir, tmp_path)
    with h5py.File(path, "a") as handle:
        del handle["CNN/b_cnn_2"]
        handle.create_dataset("CNN/b_cnn_2", data=np.zeros(15, np.float32))
    message = r"'CNN/b_cnn_2' has shape \(15,\) but \(16,\) was expected \(from char_cnn.filters\[2\]"
    with pytest.raises(WeightFileError, match=message):
        load_pretrained_bilm(model_dir / "options.json", path)


@pytest.mark.parametrize("damage, message", [
    ("text", r"'CNN/b_cnn_0' holds \|S4 data, not numbers"),
    ("nan", r"'CNN/b_cnn_0' holds 1 non-finite value\(s\) \(NaN or inf; the first at index \(2,\)\)"),
])
def test_damaged_tensor_is_named(model_dir, tmp_path, damage, message):
    path = _copy_weights(model_dir, tmp_path)
    with h5py.File(path, "a") as handle:
        values = handle["CNN/b_cnn_0"][...]
        del handle["CNN/b_cnn_0"]
        if damage == "text":
            values = np.array([b"abcd"] * len(values))
        else:
            values[2] = np.nan
        handle.create_dataset("CNN/b_cnn_0", data=values)
    with pytest.raises(WeightFileError, match=f"{re.escape(str(path))}: {message}"):
        load_pretrained_bilm(model_dir / "options.json", path)


@pytest.mark.parametrize("field, value", [
    ("lstm.dim", 10**9), ("lstm.n_layers", 10**8), ("char_cnn.filters", [[1, 10**6]]),
    ("char_cnn.embedding.dim", 10**10),
])
def test_options_too_large_for_memory_name_the_field_before_the_weights_are_read(model_dir, tmp_path, field, value):
    """lstm.dim = 1e9 used to end in a TensorFlow out-of-memory error."""
    data = json.loads((model_dir / "options.json").read_text())
    section, *rest = field.split(".")
    target = data[section]
    for part in rest[:-1]:
        target = target[part]
    target[rest[-1]] = value
    if field == "lstm.dim":
        data["lstm"]["projection_dim"] = 16
    options = tmp_path / "options.json"
    options.write_text(json.dumps(data))
    with pytest.raises(OptionsError, match=rf"'{re.escape(field)}' .* is too large for this machine: the model would "
                                           r"have [\d,]+ parameters, needing about [\d,.]+ GiB of memory") as info:
        load_pretrained_bilm(options, tmp_path / "weights are not even read.hdf5")
    assert info.value.key == field


def test_parameter_count_of_the_options_is_exact(model_dir):
    options = ElmoOptions.load(model_dir / "options.json")
    bilm = bilm_from_options(options)
    bilm.build((None, None, 50))
    assert options.parameter_count() == bilm.count_params()


def test_options_do_not_match_weights(model_dir, tmp_path):
    data = json.loads((model_dir / "options.json").read_text())
    data["lstm"]["projection_dim"] = 8
    options = tmp_path / "options.json"
    options.write_text(json.dumps(data))
    with pytest.raises(WeightFileError) as info:
        load_pretrained_bilm(options, model_dir / "lm_weights.hdf5")
    message = str(info.value)
    assert "lm_weights.hdf5" in message and "'CNN_proj/W_proj'" in message
    assert ("(124, 16) but (124, 8) was expected" in message and "lstm.projection_dim" in message
            and str(options) in message)


def test_invalid_options_file(model_dir, tmp_path):
    options = tmp_path / "options.json"
    options.write_text(json.dumps({"lstm": {"dim": 64}, "char_cnn": {}}))
    with pytest.raises(OptionsError, match=f"{re.escape(str(options))}: 'char_cnn.filters' is missing"):
        load_pretrained_bilm(options, model_dir / "lm_weights.hdf5")


def _write_fake_weights(path, options, seed=0):
    """Random tensors in the bilm-tf layout for ``options`` (no CNN_proj / W_P_0 where bilm-tf has none)."""
    rng = np.random.default_rng(seed)
    cnn, lstm = options.char_cnn, options.lstm
    with h5py.File(path, "w") as handle:
        handle["char_embed"] = rng.normal(size=(261, cnn.embedding_dim)).astype(np.float32)
        for i, (width, count) in enumerate(cnn.filters):
            handle[f"CNN/W_cnn_{i}"] = rng.normal(size=(1, width, cnn.embedding_dim, count)).astype(np.float32) * 0.3
            handle[f"CNN/b_cnn_{i}"] = np.zeros(count, np.float32)
        for i in range(cnn.n_highway):
            for part in ("W_carry", "W_transform"):
                handle[f"CNN_high_{i}/{part}"] = rng.normal(size=(cnn.n_filters,) * 2).astype(np.float32) * 0.1
            for part in ("b_carry", "b_transform"):
                handle[f"CNN_high_{i}/{part}"] = np.zeros(cnn.n_filters, np.float32)
        if cnn.n_filters != lstm.projection_dim:
            handle["CNN_proj/W_proj"] = rng.normal(size=(cnn.n_filters, lstm.projection_dim)).astype(np.float32) * 0.1
            handle["CNN_proj/b_proj"] = np.zeros(lstm.projection_dim, np.float32)
        for d in range(2):
            for layer in range(lstm.n_layers):
                prefix = f"RNN_{d}/RNN/MultiRNNCell/Cell{layer}/LSTMCell"
                handle[f"{prefix}/W_0"] = rng.normal(
                    size=(2 * lstm.projection_dim, 4 * lstm.dim)).astype(np.float32) * 0.1
                handle[f"{prefix}/B"] = np.zeros(4 * lstm.dim, np.float32)
                if lstm.has_projection:
                    handle[f"{prefix}/W_P_0"] = rng.normal(
                        size=(lstm.dim, lstm.projection_dim)).astype(np.float32) * 0.1


def _small_options(dim, activation, n_characters):
    """options.json data: 1 LSTM layer of ``dim`` cells projected to 12, 12 CNN filters (so no CNN projection)."""
    return {
        "lstm": {"dim": dim, "projection_dim": 12, "n_layers": 1, "cell_clip": 3, "proj_clip": 3},
        "char_cnn": {"embedding": {"dim": 4}, "filters": [[1, 4], [2, 8]], "n_highway": 1, "activation": activation,
                     "n_characters": n_characters, "max_characters_per_token": 50},
    }


def _fake_model(tmp_path, data):
    """``options.json`` from ``data`` and random weights of that shape in ``tmp_path``: their two paths."""
    options_path, weights_path = tmp_path / "options.json", tmp_path / "weights.hdf5"
    options_path.write_text(json.dumps(data))
    _write_fake_weights(weights_path, ElmoOptions.from_dict(data))
    return options_path, weights_path


def test_model_without_lstm_or_cnn_projection(tmp_path):
    """bilm-tf omits W_P_0 when projection_dim == dim, and CNN_proj when the filters already have that width."""
    options_path, weights_path = _fake_model(tmp_path, _small_options(dim=12, activation="tanh", n_characters=261))
    bilm = load_pretrained_bilm(options_path, weights_path)
    assert isinstance(bilm, BiLM) and bilm.projection_dim is None
    outputs = bilm(batch_to_ids([["<S>", "a", "b", "</S>"]]))
    assert [tuple(a.shape) for a in outputs["activations"]] == [(1, 4, 24)] * 2
    np.testing.assert_array_equal(ops.convert_to_numpy(bilm.token_encoder.projection.kernel), np.eye(12))


def _options_with(model_dir, tmp_path, **lstm_and_cnn):
    """The fixture's options.json with ``lstm`` / ``char_cnn`` fields replaced, written to ``tmp_path``."""
    data = json.loads((model_dir / "options.json").read_text())
    for block, fields in lstm_and_cnn.items():
        data[block].update(fields)
    path = tmp_path / "options.json"
    path.write_text(json.dumps(data))
    return path


def test_fewer_layers_than_the_weights_is_an_error(model_dir, tmp_path):
    options = _options_with(model_dir, tmp_path, lstm={"n_layers": 1}, char_cnn={"n_highway": 1})
    weights = model_dir / "lm_weights.hdf5"
    with pytest.raises(WeightFileError) as info:
        load_pretrained_bilm(options, weights)
    message = str(info.value)
    assert message.startswith(f"{weights}: has 10 biLM tensor(s) not used by the options ({options}): ")
    assert "'CNN_high_1/W_carry'" in message and "'RNN_0/RNN/MultiRNNCell/Cell1/LSTMCell/B'" in message
    assert "'CNN_high_0/W_carry'" not in message and "probably belong to different models" in message
    assert info.value.path == str(weights)


def test_unused_cnn_projection_is_an_error(tmp_path):
    """Options whose filters already have the LSTM width need no CNN_proj; a file that has one is another model."""
    options_path, weights_path = _fake_model(tmp_path, _small_options(dim=24, activation="relu", n_characters=262))
    load_pretrained_bilm(options_path, weights_path)  # as bilm-tf writes it: no CNN_proj
    with h5py.File(weights_path, "a") as handle:
        handle["CNN_proj/W_proj"] = np.zeros((12, 12), np.float32)
        handle["CNN_proj/b_proj"] = np.zeros(12, np.float32)
    with pytest.raises(WeightFileError,
                       match=r"has 2 biLM tensor\(s\) not used .*'CNN_proj/W_proj', 'CNN_proj/b_proj'"):
        load_pretrained_bilm(options_path, weights_path)


def test_other_top_level_groups_are_ignored(model_dir, sentences, expected, tmp_path):
    """A file may carry weights the biLM does not use (the softmax): it loads and reproduces the numbers."""
    path = _copy_weights(model_dir, tmp_path)
    with h5py.File(path, "a") as handle:
        handle["softmax/W"] = np.zeros((10, 16), np.float32)
        handle["softmax/b"] = np.zeros(10, np.float32)
    bilm = load_pretrained_bilm(model_dir / "options.json", path)
    assert _max_error(bilm, sentences, expected, 0) <= TOLERANCE


def test_truncated_weight_file(model_dir, tmp_path):
    path = tmp_path / "weights.hdf5"
    path.write_bytes((model_dir / "lm_weights.hdf5").read_bytes()[:200_000])
    with pytest.raises(WeightFileError, match=rf"{re.escape(str(path))}: cannot be read: .*truncated or corrupted"):
        load_pretrained_bilm(model_dir / "options.json", path)
