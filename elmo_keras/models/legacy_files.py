"""Reading ``.keras`` files written by earlier versions of elmo_keras, whose weight paths have since changed.

Keras stores a layer's weights under the names of the attributes that hold its sublayers. ``tagging.BiLSTM``
held its two directions as ``forward`` and ``backward``, which the PyTorch backend cannot use (a layer there is a
``torch.nn.Module``, whose ``forward`` method hides such an attribute); they are now ``forward_lstm`` and
``backward_lstm``. No other layer of the package ever had an attribute of either old name, so a weight group
named exactly ``forward`` or ``backward`` comes from an old ``BiLSTM``.
"""

from __future__ import annotations

import contextlib
import io
import pathlib
import tempfile
import zipfile

import h5py

WEIGHTS_ENTRY = "model.weights.h5"
RENAMED_GROUPS = {"forward": "forward_lstm", "backward": "backward_lstm"}
# a model holding a BiLSTM names one of these in its config (the taggers hold theirs without listing it)
CLASSES_WITH_A_BILSTM = (b"BiLSTM", b"MultiTaskTagger", b"TagLM")


def _old_groups(weights) -> list[str]:
    """The paths of the groups in an open HDF5 file that carry an old name, deepest first."""
    found = []
    weights.visititems(lambda name, item: found.append(name) if isinstance(item, h5py.Group)
                       and name.rsplit("/", 1)[-1] in RENAMED_GROUPS else None)
    return sorted(found, key=lambda name: -name.count("/"))


@contextlib.contextmanager
def loadable_keras_file(path: pathlib.Path):
    """Yield ``path`` itself, or, for a file of an earlier version, an upgraded copy (deleted afterwards).

    The file is only read; the copy lives in a temporary directory.

    Args:
        path: a ``.keras`` archive (its validity is the caller's to check).
    """
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        config = archive.read("config.json") if "config.json" in names else b""
        if WEIGHTS_ENTRY not in names or not any(name in config for name in CLASSES_WITH_A_BILSTM):
            yield path
            return
        with archive.open(WEIGHTS_ENTRY) as stream, h5py.File(stream, "r") as weights:  # read in place, not copied
            old = _old_groups(weights)
        if not old:
            yield path
            return
        weights_bytes = io.BytesIO(archive.read(WEIGHTS_ENTRY))
        with h5py.File(weights_bytes, "r+") as weights:
            for name in old:
                parent, _, leaf = name.rpartition("/")
                weights.move(name, f"{parent}/{RENAMED_GROUPS[leaf]}" if parent else RENAMED_GROUPS[leaf])
        with tempfile.TemporaryDirectory(prefix="elmo_keras_upgrade_") as directory:
            upgraded = pathlib.Path(directory) / pathlib.Path(path).name
            with zipfile.ZipFile(upgraded, "w") as copy:
                for item in archive.infolist():
                    data = weights_bytes.getvalue() if item.filename == WEIGHTS_ENTRY else archive.read(item)
                    copy.writestr(item, data)
            yield upgraded
