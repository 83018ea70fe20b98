"""The command line answers ``--help`` (and argument errors) without importing Keras or a backend: a CLI's help should
come back in well under a second, and importing TensorFlow took 5-8 s of it. Keras is imported when a command runs."""

import subprocess
import sys

import pytest

CHECK = """
import contextlib, io, sys
from elmo_keras.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    main({argv!r})
heavy = sorted(name for name in ("keras", "tensorflow", "jax", "torch") if name in sys.modules)
print(",".join(heavy))
"""


@pytest.mark.parametrize("argv", [["--help"], ["embed", "--help"], ["merge-shards", "--help"], ["train", "--help"],
                                  ["embed", "in.txt", "out.hdf5", "--shard", "5/4", "--model-dir", "m"]])
def test_help_and_argument_errors_import_no_backend(argv):
    done = subprocess.run([sys.executable, "-c", CHECK.format(argv=argv)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "", f"python -m elmo_keras {' '.join(argv)} imported {done.stdout.strip()}"
