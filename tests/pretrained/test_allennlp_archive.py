"""AllenNLP archives read without extraction: ``.tar.gz``, plain tar and folders alike; unsafe, damaged, oversized or
incomplete archives refused in one line naming the archive and the member; the softmax left unread."""

import io
import json
import tarfile

import numpy as np
import pytest
import torch

from elmo_keras.pretrained import allennlp_archive
from elmo_keras.pretrained.allennlp_archive import member_problem, open_allennlp_archive, read_allennlp_archive
from elmo_keras.pretrained.allennlp_config import ArchiveError
from elmo_keras.pretrained.allennlp_weights import is_embedding_key
from tests.support.allennlp_archive_files import transformer_elmo_config, write_archive
from tests.support.paths import SHARED_FIXTURES
from tests.support.refusals import assert_refused

FIXTURE = SHARED_FIXTURES / "transformer_elmo"
STATE = {"_contextualizer.weight": torch.arange(6.0).reshape(2, 3), "_softmax_loss.softmax_w.weight": torch.ones(4, 2)}


def _weights(**save_kwargs) -> bytes:
    buffer = io.BytesIO()
    torch.save(STATE, buffer, **save_kwargs)
    return buffer.getvalue()


def _refused(path, *fragments):
    return assert_refused(read_allennlp_archive, ArchiveError, path, *fragments)


@pytest.mark.parametrize("mode", ["w:gz", "w", "w:xz", "folder"])
@pytest.mark.parametrize("save", [{}, {"_use_new_zipfile_serialization": False}], ids=["zip", "legacy"])
def test_archives_and_folders_read_alike(mode, save, tmp_path):
    config = transformer_elmo_config()
    path = write_archive(tmp_path / "model", config, _weights(**save), mode=mode)
    read_config, tensors, name = read_allennlp_archive(path)
    assert read_config == config and "weights.th" in name
    assert set(tensors) == set(STATE)
    np.testing.assert_array_equal(tensors["_contextualizer.weight"], STATE["_contextualizer.weight"].numpy())


def test_the_softmax_is_skipped_unless_kept(tmp_path):
    path = write_archive(tmp_path / "model.tar.gz", transformer_elmo_config(), _weights())
    _, tensors, _ = read_allennlp_archive(path, keep=is_embedding_key)
    assert list(tensors) == ["_contextualizer.weight"]


def test_members_with_a_leading_dot_slash(tmp_path):
    path = write_archive(tmp_path / "model.tar.gz", transformer_elmo_config(), _weights(), prefix="./")
    assert read_allennlp_archive(path)[0] == transformer_elmo_config()


def test_the_weights_are_read_from_the_stream_without_extraction(tmp_path):
    path = write_archive(tmp_path / "model.tar.gz", transformer_elmo_config(), _weights())
    before = sorted(p.name for p in tmp_path.iterdir())
    with open_allennlp_archive(path) as files:
        assert files.weights.read(4) == b"PK\x03\x04" and files.config["model"]["type"] == "language_model"
    assert sorted(p.name for p in tmp_path.iterdir()) == before


@pytest.mark.fixtures
def test_the_fixture_archive_and_its_folder_agree():
    if not (FIXTURE / "model.tar.gz").exists():
        pytest.skip(f"the transformer ELMo fixture is not at {FIXTURE} (it lives in ../shared/fixtures)")
    archived = read_allennlp_archive(FIXTURE / "model.tar.gz")
    folder = read_allennlp_archive(FIXTURE)
    assert archived[0] == folder[0] == json.loads((FIXTURE / "config.json").read_text())
    assert len(archived[1]) == 121 and all(np.array_equal(archived[1][k], folder[1][k]) for k in folder[1])


def _member(name, kind=tarfile.REGTYPE, size=1, target=""):
    info = tarfile.TarInfo(name)
    info.type, info.size, info.linkname = kind, size if kind == tarfile.REGTYPE else 0, target
    return info


@pytest.mark.parametrize("member, fragment", [
    (_member("/etc/evil"), "absolute path"),
    (_member("vocabulary/../../evil"), "'..'"),
    (_member("vocabulary/link", tarfile.SYMTYPE, target="/etc/passwd"), "is a link"),
    (_member("vocabulary/hard", tarfile.LNKTYPE, target="config.json"), "is a link"),
    (_member("vocabulary/fifo", tarfile.FIFOTYPE), "special file"),
    (_member("vocabulary/device", tarfile.CHRTYPE), "special file"),
    (_member("config.json"), "appears twice"),
])
def test_unsafe_or_ambiguous_members_are_refused(member, fragment, tmp_path):
    path = write_archive(tmp_path / "model.tar.gz", transformer_elmo_config(), _weights(), extra=(member,))
    _refused(path, fragment, member.name)


def test_member_problem_passes_plain_files_and_folders():
    assert member_problem(_member("vocabulary/tokens.txt")) is None
    assert member_problem(_member("vocabulary", tarfile.DIRTYPE)) is None


def test_missing_members_oversized_members_and_too_many_members(tmp_path, monkeypatch):
    path = tmp_path / "model.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        info = tarfile.TarInfo("config.json")
        info.size = 2
        archive.addfile(info, io.BytesIO(b"{}"))
    _refused(path, "'weights.th' is missing")
    path = write_archive(tmp_path / "big.tar.gz", transformer_elmo_config(), _weights())
    monkeypatch.setattr(allennlp_archive, "MAX_CONFIG_BYTES", 100)
    _refused(path, "'config.json' has", "more than the 100")
    monkeypatch.setattr(allennlp_archive, "MAX_CONFIG_BYTES", 1 << 20)
    monkeypatch.setattr(allennlp_archive, "MAX_MEMBERS", 2)
    _refused(path, "more than 2 members")


def test_damaged_archives_are_refused(tmp_path):
    path = write_archive(tmp_path / "model.tar.gz", transformer_elmo_config(), _weights())
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    _refused(cut, "cannot be read")
    noise = tmp_path / "noise.tar.gz"
    noise.write_bytes(np.random.default_rng(0).bytes(5000))
    _refused(noise, "not a readable tar archive")
    not_json = write_archive(tmp_path / "bad.tar.gz", b"{not json", _weights())
    _refused(not_json, "config.json", "is not JSON")
    folder = write_archive(tmp_path / "folder", transformer_elmo_config(), _weights(), mode="folder")
    (folder / "weights.th").unlink()
    _refused(folder, "'weights.th' is missing")
    with pytest.raises(FileNotFoundError, match="no_such.tar.gz"):
        read_allennlp_archive(tmp_path / "no_such.tar.gz")
