"""Saved models: where they live, listing, names, loading — without Streamlit."""

from __future__ import annotations

import pathlib
import shutil

import pytest

from elmo_keras.explorer.model_store import (
    MODELS_DIR_ENV,
    SEQ2SEQ_DIR_NAME,
    ModelRef,
    ModelsUnloadableError,
    find_model,
    list_models,
    load_model,
    load_with_fallback,
    models_directory,
    preset_of,
    save_model,
    training_history,
    validate_model_name,
)
from elmo_keras.models.bilm.presets import PRESETS
from tests.support.explorer_fixtures import TINY_NAME


def test_models_directory_prefers_the_environment_variable(tmp_path):
    assert models_directory({MODELS_DIR_ENV: str(tmp_path), "XDG_CACHE_HOME": "/x"}) == tmp_path
    assert models_directory({"XDG_CACHE_HOME": "/x/cache"}) == pathlib.Path("/x/cache/elmo_keras/models")
    assert models_directory({"HOME": "/home/u"}) == pathlib.Path("/home/u/.cache/elmo_keras/models")
    assert models_directory({MODELS_DIR_ENV: "", "HOME": "/home/u"}) == pathlib.Path("/home/u/.cache/elmo_keras/models")


@pytest.mark.parametrize("name", ["toy", "my-model_2", "A" * 64])
def test_valid_names_pass(name, tmp_path):
    assert validate_model_name(f"  {name} ", tmp_path) == name


@pytest.mark.parametrize(("name", "message"), [
    ("", "Give the model a name"),
    ("   ", "Give the model a name"),
    ("my model", "' '"),
    ("../evil", "'.'"),
    ("ünïcode", "'ï'"),
    ("a" * 65, "at most 64"),
    (SEQ2SEQ_DIR_NAME, "reserved"),
])
def test_invalid_names_are_refused_with_the_reason(name, message, tmp_path):
    with pytest.raises(ValueError, match=message):
        validate_model_name(name, tmp_path)


def test_an_existing_name_needs_overwrite(tmp_path):
    (tmp_path / "taken").mkdir()
    with pytest.raises(ValueError, match="already exists"):
        validate_model_name("taken", tmp_path)
    assert validate_model_name("taken", tmp_path, overwrite=True) == "taken"


def test_preset_of_recognises_presets_whatever_the_training_settings():
    assert preset_of(PRESETS["tiny"].replace(epochs=2, learning_rate=0.5).to_dict()) == "tiny"
    assert preset_of(PRESETS["toy"].to_dict()) == "toy"
    assert preset_of(PRESETS["toy"].replace(units=7).to_dict()) == "custom"
    assert preset_of({}) == "unknown"


def test_list_and_find_read_the_summary_without_loading(tiny_models_dir):
    (info,) = list_models(tiny_models_dir)
    assert info.name == TINY_NAME and info.preset == "tiny" and info.token_input == "word"
    assert info.corpus == "built-in polysemy corpus" and info.epochs == 2
    assert info.num_sentences > 100 and info.vocab_size > 100
    assert len(info.train_perplexity) == 2 and len(info.heldout_perplexity) == 2
    assert find_model(tiny_models_dir, TINY_NAME) == info
    assert find_model(tiny_models_dir, "missing") is None and find_model(tiny_models_dir, None) is None
    assert list_models(tiny_models_dir / "absent") == []
    assert training_history(info.ref)["forward_perplexity"] and len(training_history(info.ref)["loss"]) == 2


def test_a_broken_directory_is_not_listed(tmp_path, tiny_models_dir):
    (tmp_path / "empty").mkdir()
    broken = tmp_path / "broken"
    shutil.copytree(tiny_models_dir / TINY_NAME, broken)
    (broken / "training.json").write_text("{not json", encoding="utf-8")
    assert list_models(tmp_path) == []


def test_save_then_load_round_trip_and_the_ref_changes(tmp_path, tiny_model):
    ref = save_model(tiny_model, tmp_path, "copy", preset="tiny", corpus="test corpus")
    assert ref == ModelRef(str(tmp_path), "copy", ref.stamp) and ref.path == tmp_path / "copy"
    loaded = load_model(ref)
    assert loaded.vocabulary == tiny_model.vocabulary
    assert find_model(tmp_path, "copy").corpus == "test corpus"
    with pytest.raises(ValueError, match="already exists"):
        save_model(tiny_model, tmp_path, "copy", overwrite=False)
    again = save_model(tiny_model, tmp_path, "copy")
    assert again.stamp >= ref.stamp and find_model(tmp_path, "copy").ref == again


def test_the_models_directory_lists_the_biLM_but_not_the_seq2seq_model(tiny_models_dir):
    assert [info.name for info in list_models(tiny_models_dir)] == [TINY_NAME]
    assert (tiny_models_dir / SEQ2SEQ_DIR_NAME / "model.keras").is_file()


def test_load_with_fallback_takes_the_first_model_that_loads():
    refs = [ModelRef("/m", name, 0) for name in ("a", "b", "c")]

    def load(ref):
        if ref.name != "c":
            raise ValueError(f"/m/{ref.name}/model.keras is corrupted:\n  not a zip")
        return "model c"

    loaded = load_with_fallback(refs[1], refs, load=load)
    assert loaded.ref == refs[2] and loaded.model == "model c"
    assert loaded.failures == (("b", "/m/b/model.keras is corrupted: not a zip"),
                               ("a", "/m/a/model.keras is corrupted: not a zip"))
    assert load_with_fallback(refs[2], refs, load=load).failures == ()
    with pytest.raises(ModelsUnloadableError, match="no saved model can be loaded: a: .*; b: .*") as info:
        load_with_fallback(refs[0], refs[:2], load=load)
    assert [name for name, _ in info.value.failures] == ["a", "b"]
