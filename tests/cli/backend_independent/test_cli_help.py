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
                                  ["explore", "--help"],
                                  ["embed", "in.txt", "out.hdf5", "--shard", "5/4", "--model-dir", "m"]])
def test_help_and_argument_errors_import_no_backend(argv):
    done = subprocess.run([sys.executable, "-c", CHECK.format(argv=argv)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "", f"python -m elmo_keras {' '.join(argv)} imported {done.stdout.strip()}"


def test_explore_passes_streamlit_options_through_and_other_commands_refuse_them(monkeypatch, capsys):
    from elmo_keras.cli import explore, main

    seen = []
    monkeypatch.setattr(explore, "missing_app_requirements", lambda: [])
    monkeypatch.setattr("streamlit.web.cli.main", lambda **kwargs: seen.append(kwargs["args"]))
    assert main(["explore", "--server.port", "8502", "--server.headless=true"]) == 0
    assert seen == [["run", str(explore.MAIN_SCRIPT), "--server.port", "8502", "--server.headless=true"]]
    assert explore.MAIN_SCRIPT.is_file() and (explore.MAIN_SCRIPT.parent / ".streamlit" / "config.toml").is_file()
    with pytest.raises(SystemExit):
        main(["embed", "in.txt", "out.hdf5", "--model-dir", "m", "--server.port=8502"])
    assert "unrecognized arguments: --server.port=8502" in capsys.readouterr().err


def test_explore_without_the_app_extra_says_how_to_install_it(monkeypatch, capsys):
    from elmo_keras.cli import explore, main

    monkeypatch.setattr(explore.importlib.util, "find_spec", lambda name: None)
    assert main(["explore"]) == 1
    assert capsys.readouterr().err == ("error: the explorer needs streamlit and plotly, which this Python lacks: "
                                       'pip install "elmo_keras[app]"\n')
