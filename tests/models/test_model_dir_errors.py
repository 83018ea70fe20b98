"""Broken model directories (``load_bilm`` / ``load_seq2seq``): every failure is an error naming the file and
the field, with a hint how to fix it; a ``training.json`` config that disagrees with ``model.keras`` is an error."""

import json
import re
import shutil
import zipfile

import pytest

from elmo_keras.models import get_size, load_bilm, load_seq2seq, save_seq2seq, train_bilm, train_seq2seq

CORPUS = ["I deposited money at the bank .", "We sat on the river bank .", "That answer is right ."]
PAIRS = [("a b".split(), "b a".split()), ("c d e".split(), "e d c".split())]


@pytest.fixture(scope="module")
def saved_models(tmp_path_factory):
    """A word biLM, a char biLM and a seq2seq model directory (read-only: ``_copy`` one to break it)."""
    root = tmp_path_factory.mktemp("model_dirs")
    train_bilm(CORPUS, size="tiny", epochs=1).save(root / "word")
    char_config = get_size("tiny").replace(token_input="char", embedding_dim=4, char_filters=((1, 4), (2, 4)))
    train_bilm(CORPUS, size=char_config, epochs=1).save(root / "char")
    save_seq2seq(train_seq2seq(PAIRS, config={"units": 8, "embedding_dim": 4, "epochs": 1}), root / "seq2seq")
    return root


def _copy(saved_models, tmp_path, name="word"):
    return shutil.copytree(saved_models / name, tmp_path / name)


def _edit_json(path, edit):
    data = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps(edit(data) or data), encoding="utf-8")


def _edit_keras_config(model_file, edit):
    """Rewrite ``config.json`` inside a ``.keras`` archive with ``edit(config)``."""
    with zipfile.ZipFile(model_file) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    config = json.loads(members["config.json"])
    edit(config)
    members["config.json"] = json.dumps(config).encode()
    with zipfile.ZipFile(model_file, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def test_intact_directories_load(saved_models):
    assert load_bilm(saved_models / "word").config.token_input == "word"
    assert load_bilm(saved_models / "char").config.char_filters == ((1, 4), (2, 4))  # tuples vs saved lists
    assert load_seq2seq(saved_models / "seq2seq").config.units == 8


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_model_file_not_a_zip(saved_models, tmp_path, damage):
    directory = _copy(saved_models, tmp_path)
    model_file = directory / "model.keras"
    data = model_file.read_bytes()
    model_file.write_bytes(b"\x00garbage" * 100 if damage == "garbage" else data[: len(data) // 2])
    message = rf"{re.escape(str(model_file))} is corrupted or not an elmo_keras model: it is not a \.keras \(zip\)"
    with pytest.raises(ValueError, match=message + ".*retrain the model"):
        load_bilm(directory)


def test_model_file_is_a_directory(saved_models, tmp_path):
    directory = _copy(saved_models, tmp_path)
    (directory / "model.keras").unlink()
    (directory / "model.keras").mkdir()
    with pytest.raises(FileNotFoundError, match=r"model\.keras is a directory, not a file"):
        load_bilm(directory)


def test_keras_deserialization_error_names_file_and_field(saved_models, tmp_path):
    directory = _copy(saved_models, tmp_path)
    _edit_keras_config(directory / "model.keras", lambda config: config["config"].pop("vocab_size"))
    with pytest.raises(ValueError) as info:  # Keras raises a TypeError with the whole config here
        load_bilm(directory)
    message = str(info.value)
    assert message.startswith(f"{directory / 'model.keras'} is corrupted or not an elmo_keras model: ")
    assert "'vocab_size'" in message and "retrain the model" in message and "config=" not in message


def test_unknown_model_class(saved_models, tmp_path):
    directory = _copy(saved_models, tmp_path)

    def rename(config):
        config["class_name"], config["registered_name"] = "Nope", "elmo_keras>Nope"

    _edit_keras_config(directory / "model.keras", rename)
    with pytest.raises(ValueError, match=r"model\.keras is corrupted .*Could not locate class 'Nope'") as info:
        load_bilm(directory)
    assert "Full object config" not in str(info.value)


@pytest.mark.parametrize(
    "edit, problem",
    [
        (lambda data: data["tokens"].__setitem__(-1, data["tokens"][0]), "duplicate vocabulary token"),
        (lambda data: data["tokens"].__setitem__(0, 5), "vocabulary tokens must be non-empty str, received 5"),
    ],
    ids=["duplicate", "not_str"],
)
def test_bad_vocabulary_tokens_name_the_file(saved_models, tmp_path, edit, problem):
    directory = _copy(saved_models, tmp_path)
    _edit_json(directory / "vocabulary.json", edit)
    message = rf"^{re.escape(str(directory / 'vocabulary.json'))}: {re.escape(problem)}.*restore the vocabulary\.json"
    with pytest.raises(ValueError, match=message):
        load_bilm(directory)


def test_vocabulary_of_another_model(saved_models, tmp_path):
    directory = _copy(saved_models, tmp_path)
    _edit_json(directory / "vocabulary.json", lambda data: data["tokens"].append("zzz"))
    with pytest.raises(ValueError, match=r"vocabulary\.json has \d+ tokens but the model predicts .*different models"):
        load_bilm(directory)


def test_training_json_not_an_object(saved_models, tmp_path):
    directory = _copy(saved_models, tmp_path)
    (directory / "training.json").write_text("[1]")
    path = re.escape(str(directory / "training.json"))
    with pytest.raises(ValueError, match=rf"^{path} must hold a JSON object .*found a list; .*delete training\.json"):
        load_bilm(directory)


@pytest.mark.parametrize(
    "field, value, problem",
    [("units", -3, "units must be a positive int, received -3"), ("foo", 1, "unknown BiLMConfig fields: ['foo']")],
)
def test_invalid_training_config_names_file_and_field(saved_models, tmp_path, field, value, problem):
    directory = _copy(saved_models, tmp_path)
    _edit_json(directory / "training.json", lambda data: data["config"].__setitem__(field, value))
    path = re.escape(str(directory / "training.json"))
    with pytest.raises(ValueError, match=rf"^{path}: 'config' is not a valid BiLMConfig: {re.escape(problem)}; fix"):
        load_bilm(directory)


def test_training_config_disagreeing_with_the_model(saved_models, tmp_path):
    directory = _copy(saved_models, tmp_path)
    _edit_json(directory / "training.json", lambda data: data["config"].update(units=999, num_layers=3))
    with pytest.raises(ValueError) as info:
        load_bilm(directory)
    message = str(info.value)
    assert message.startswith(f"{directory / 'training.json'}: 'config' does not describe the model in ")
    assert "units = 999 in training.json but 16 in model.keras" in message
    assert "num_layers = 3 in training.json but 2 in model.keras" in message and "save the model again" in message
    _edit_json(directory / "training.json", lambda data: data.pop("config"))  # the hint: drop it and it loads
    assert load_bilm(directory).config is None


def test_training_fields_may_differ(saved_models, tmp_path):
    """Fields that do not shape the weights (epochs, learning rate, ...) are the training record: not checked."""
    directory = _copy(saved_models, tmp_path)
    _edit_json(directory / "training.json", lambda data: data["config"].update(epochs=7, learning_rate=0.5))
    assert load_bilm(directory).config.epochs == 7


def test_directories_saved_with_the_old_field_name_still_load(saved_models, tmp_path):
    """``token_input`` was called ``encoder`` in training.json before; such directories keep loading."""
    directory = _copy(saved_models, tmp_path, "char")

    def rename(data):
        data["config"]["encoder"] = data["config"].pop("token_input")

    _edit_json(directory / "training.json", rename)
    assert load_bilm(directory).config.token_input == "char"


def test_char_config_disagreeing_with_the_model(saved_models, tmp_path):
    directory = _copy(saved_models, tmp_path, "char")
    _edit_json(directory / "training.json", lambda data: data["config"].update(char_filters=[[1, 4], [3, 4]]))
    with pytest.raises(ValueError, match=r"char_filters = \(\(1, 4\), \(3, 4\)\) in training\.json but "):
        load_bilm(directory)
    _edit_json(directory / "training.json", lambda data: data["config"].update(token_input="word"))
    with pytest.raises(ValueError, match="token_input = 'word' in training.json but 'char' in model.keras"):
        load_bilm(directory)


def test_seq2seq_config_disagreeing_with_the_model(saved_models, tmp_path):
    directory = _copy(saved_models, tmp_path, "seq2seq")
    _edit_json(directory / "training.json", lambda data: data["config"].update(cell="lstm"))
    with pytest.raises(ValueError, match=r"training\.json: 'config' does not describe .*cell = 'lstm' in training"):
        load_seq2seq(directory)
