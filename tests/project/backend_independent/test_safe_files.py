"""safe_files: an output never replaces an input; a directory is replaced in one step or not at all."""

import os

import pytest

from elmo_keras import safe_files
from elmo_keras.safe_files import (
    OutputOverwritesInputError,
    is_inside,
    is_same_file,
    refuse_directory_holding,
    refuse_overwriting,
    replace_directory,
    staging_directory,
)


@pytest.fixture
def weights(tmp_path):
    path = tmp_path / "w" / "weights.hdf5"
    path.parent.mkdir()
    path.write_bytes(b"weights")
    return path


def test_same_file_through_symlinks_relative_paths_and_hard_links(tmp_path, weights, monkeypatch):
    link = tmp_path / "link.hdf5"
    link.symlink_to(weights)
    hard = tmp_path / "hard.hdf5"
    os.link(weights, hard)
    monkeypatch.chdir(tmp_path)
    assert is_same_file("w/../w/weights.hdf5", weights)
    assert is_same_file(link, weights) and is_same_file(hard, weights)
    assert not is_same_file(tmp_path / "other.hdf5", weights)


def test_inside_a_directory(tmp_path):
    assert is_inside(tmp_path / "a" / "b.txt", tmp_path / "a") and is_inside(tmp_path / "a", tmp_path / "a")
    assert not is_inside(tmp_path / "ab", tmp_path / "a")  # a prefix of the name is not a parent


def test_refuse_overwriting_names_both_paths(tmp_path, weights):
    with pytest.raises(OutputOverwritesInputError, match=r"output .*weights.hdf5 is the weights file .*destroy"):
        refuse_overwriting(str(weights), {"the weights file": weights, "the options file": None})
    with pytest.raises(OutputOverwritesInputError, match="lies inside the model directory"):
        refuse_overwriting(tmp_path / "w" / "out.hdf5", directories={"the model directory": tmp_path / "w"})
    refuse_overwriting(tmp_path / "out.hdf5", {"the weights file": weights}, {"the model directory": tmp_path / "w"})
    assert weights.read_bytes() == b"weights"


def test_refuse_a_directory_holding_an_input(tmp_path, weights):
    with pytest.raises(OutputOverwritesInputError, match="holds the corpus"):
        refuse_directory_holding(tmp_path, {"the corpus": weights})
    refuse_directory_holding(tmp_path / "elsewhere", {"the corpus": weights, "nothing": None})


def _directory_with(path, **files):
    path.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (path / name).write_text(text)
    return path


@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2", "rename-aside"])
def test_replace_directory_swaps_the_contents(tmp_path, monkeypatch, exchange):
    if not exchange:
        monkeypatch.setattr(safe_files, "_exchange", lambda first, second: False)
    target = _directory_with(tmp_path / "model", a="old", b="old")
    staging = _directory_with(staging_directory(target), a="new")
    assert staging.parent == tmp_path and staging.name.startswith(".model.saving-")
    replace_directory(staging, target)
    assert sorted(p.name for p in target.iterdir()) == ["a"] and (target / "a").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]  # no staging or old copy left


def test_replace_directory_creates_a_new_one_and_keeps_a_symlink(tmp_path):
    target = tmp_path / "new"
    replace_directory(_directory_with(staging_directory(target), a="1"), target)
    assert (target / "a").read_text() == "1"
    real = _directory_with(tmp_path / "real", a="old")
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    replace_directory(_directory_with(staging_directory(link), a="new"), link)
    assert link.is_symlink() and (real / "a").read_text() == "new"


def test_the_fallback_restores_the_old_directory_when_the_second_rename_fails(tmp_path, monkeypatch):
    monkeypatch.setattr(safe_files, "_exchange", lambda first, second: False)
    target = _directory_with(tmp_path / "model", a="old")
    staging = _directory_with(staging_directory(target), a="new")
    real_rename = os.rename
    calls = []

    def rename(source, destination):
        calls.append(source)
        if len(calls) == 2:  # moving the new directory in
            raise KeyboardInterrupt
        real_rename(source, destination)

    monkeypatch.setattr(safe_files.os, "rename", rename)
    with pytest.raises(KeyboardInterrupt):
        replace_directory(staging, target)
    assert (target / "a").read_text() == "old"


def test_staging_directories_get_the_default_permissions(tmp_path):
    old_umask = os.umask(0o022)
    try:
        staging = staging_directory(tmp_path / "model")
        assert staging.stat().st_mode & 0o777 == 0o755
    finally:
        os.umask(old_umask)


def test_small_json_files_are_replaced_whole_and_a_failed_write_leaves_nothing(tmp_path):
    from elmo_keras.safe_files import read_json_object, user_cache_directory, write_json_object

    path = tmp_path / "cache" / "values.json"
    assert read_json_object(path) is None
    assert write_json_object(path, {"a": 0.1 + 0.2}) and read_json_object(path) == {"a": 0.1 + 0.2}
    path.write_text("[1, 2]", encoding="utf-8")
    assert read_json_object(path) is None  # not an object
    assert not write_json_object(path.parent, {"a": 1})  # a directory is in the way: nothing written
    with pytest.raises(TypeError, match="not JSON serializable"):
        write_json_object(path, {"a": object()})  # not JSON: the old file stays, no temporary left
    assert path.read_text(encoding="utf-8") == "[1, 2]"
    assert sorted(p.name for p in path.parent.iterdir()) == ["values.json"]
    assert user_cache_directory({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "elmo_keras"
    assert user_cache_directory({"HOME": str(tmp_path)}) == tmp_path / ".cache" / "elmo_keras"
