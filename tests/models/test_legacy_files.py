"""Files written by earlier versions still load: a ``BiLSTM`` saved with its directions under ``forward`` and
``backward`` (before they became ``forward_lstm`` / ``backward_lstm``) gives the same outputs."""

import io
import zipfile

import h5py
import numpy as np

from elmo_keras._quiet import keras
from elmo_keras.models.legacy_files import WEIGHTS_ENTRY, loadable_keras_file
from elmo_keras.models.persistence import _load_keras_model
from elmo_keras.tagging.layers import BiLSTM
from tests.support.backend_support import to_numpy


def _with_old_names(path, old_path):
    """A copy of the ``.keras`` file at ``path`` with the BiLSTM's groups under their old names."""
    with zipfile.ZipFile(path) as archive, zipfile.ZipFile(old_path, "w") as copy:
        weights = io.BytesIO(archive.read(WEIGHTS_ENTRY))
        with h5py.File(weights, "r+") as store:
            moved = []
            store.visit(lambda name: moved.append(name) if name.endswith(("forward_lstm", "backward_lstm")) else None)
            for name in moved:
                store.move(name, name.removesuffix("_lstm"))
        for item in archive.infolist():
            copy.writestr(item, weights.getvalue() if item.filename == WEIGHTS_ENTRY else archive.read(item))
    return moved


def test_a_bilstm_saved_under_the_old_names_loads_with_the_same_outputs(tmp_path):
    inputs = np.random.default_rng(0).normal(size=(2, 5, 4)).astype("float32")
    model = keras.Sequential([keras.Input((5, 4)), BiLSTM(3, name="bilstm")])
    expected = to_numpy(model(inputs))
    model.save(tmp_path / "new.keras")
    moved = _with_old_names(tmp_path / "new.keras", tmp_path / "old.keras")
    assert sorted(name.rsplit("/", 1)[-1] for name in moved) == ["backward_lstm", "forward_lstm"]
    with loadable_keras_file(tmp_path / "new.keras") as same:
        assert same == tmp_path / "new.keras"  # a current file is read as it is
    before = (tmp_path / "old.keras").read_bytes()
    loaded = _load_keras_model(tmp_path / "old.keras")
    np.testing.assert_array_equal(to_numpy(loaded(inputs)), expected)
    assert (tmp_path / "old.keras").read_bytes() == before  # the user's file is never rewritten
