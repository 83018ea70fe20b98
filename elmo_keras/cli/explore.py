"""``explore``: start the explorer, ``streamlit run`` on the frame shipped in the package, in this process.

Every option after ``explore`` goes to ``streamlit run`` unchanged (``elmo-keras explore --server.port 8502``).
The explorer needs the ``app`` extra (Streamlit, Plotly); without it the command says how to install it.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys

from elmo_keras.cli.stopping import EXIT_ERROR, EXIT_OK
from elmo_keras.explorer.app import MAIN_SCRIPT

APP_REQUIREMENTS = ("streamlit", "plotly")  # the ``app`` extra of pyproject.toml
INSTALL_APP_EXTRA = 'pip install "elmo_keras[app]"'


def add_explore_arguments(parser: argparse.ArgumentParser) -> None:
    """No options of its own: whatever follows ``explore`` is passed to ``streamlit run`` (``main`` collects it)."""
    parser.allow_abbrev = False  # ``--server.h`` must reach Streamlit, never match ``--help``
    parser.usage = "%(prog)s [-h] [STREAMLIT_OPTION ...]"
    parser.epilog = ("Options after `explore` go to `streamlit run` (see `streamlit run --help`), e.g. "
                     "--server.port 8502, --server.headless true, or --server.address 0.0.0.0 to share it on a "
                     "trusted network (it listens on localhost only by default).")


def missing_app_requirements() -> list[str]:
    """The packages of the ``app`` extra that cannot be imported here."""
    return [name for name in APP_REQUIREMENTS if importlib.util.find_spec(name) is None]


def streamlit_arguments(extra: list[str]) -> list[str]:
    """The ``streamlit`` command line that starts the explorer with ``extra`` options."""
    return ["run", str(MAIN_SCRIPT), *extra]


def run_explore(args: argparse.Namespace) -> int:
    """Serve the explorer until Streamlit stops (Ctrl-C); returns Streamlit's exit status."""
    missing = missing_app_requirements()
    if missing:
        print(f"error: the explorer needs {' and '.join(missing)}, which this Python lacks: {INSTALL_APP_EXTRA}",
              file=sys.stderr)
        return EXIT_ERROR
    from streamlit.web import cli as streamlit_cli  # optional dependency (the app extra): loaded on first use

    try:
        streamlit_cli.main(args=streamlit_arguments(list(args.extra)), prog_name="streamlit", standalone_mode=True)
    except SystemExit as stopped:  # Click ends every command with SystemExit
        code = stopped.code
        return code if isinstance(code, int) else (EXIT_OK if code is None else EXIT_ERROR)
    return EXIT_OK
