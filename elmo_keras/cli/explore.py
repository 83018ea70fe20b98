"""``explore``: start the explorer, ``streamlit run`` on the frame shipped in the package, in this process.

Every option after ``explore`` goes to ``streamlit run`` unchanged (``elmo-keras explore --server.port 8502``).
The explorer needs the ``app`` extra (Streamlit, Plotly); without it the command says how to install it.

The options whose bad values Streamlit reports with a traceback (it binds the socket, or loads the certificate,
inside its server task) are checked first, and a bad one is refused in one line with exit status 2, as argparse
refuses the other commands' arguments: ``--server.port`` (an integer from 1 to 65535), ``--server.address`` (a host
name or address of this machine), ``--server.sslCertFile`` and ``--server.sslKeyFile`` (a PEM certificate and its
key). The environment variables Streamlit reads for them (``STREAMLIT_SERVER_PORT``, ...) are checked where the
option is not given. Options Streamlit checks itself (``--server.port abc``, an unknown option) are left to it.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from collections.abc import Mapping, Sequence

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


PORT_OPTION, ADDRESS_OPTION = "--server.port", "--server.address"
CERT_OPTION, KEY_OPTION = "--server.sslCertFile", "--server.sslKeyFile"
MAX_PORT = 65535


def environment_variable(option: str) -> str:
    """The variable Streamlit reads for ``option``: ``--server.sslCertFile`` -> ``STREAMLIT_SERVER_SSL_CERT_FILE``."""
    words = "".join(f"_{c}" if c.isupper() else c for c in option.lstrip("-").replace(".", "_"))
    return "STREAMLIT_" + words.upper()


def option_values(extra: Sequence[str], option: str) -> list[str]:
    """Every value given to ``option`` in ``extra`` (``--option VALUE`` or ``--option=VALUE``), in order."""
    values = []
    for i, argument in enumerate(extra):
        if argument == option and i + 1 < len(extra):
            values.append(extra[i + 1])
        elif argument.startswith(option + "="):
            values.append(argument[len(option) + 1:])
    return values


def _given(extra: Sequence[str], environ: Mapping[str, str], option: str) -> list[tuple[str, str]]:
    """``(where, value)`` for each value of ``option``, or for its environment variable when no option gives one;
    ``where`` is what a message writes before a value: ``"--server.port "`` or ``"STREAMLIT_SERVER_PORT="``."""
    values = option_values(extra, option)
    if values:
        return [(option + " ", value) for value in values]
    variable = environment_variable(option)
    return [(variable + "=", environ[variable])] if environ.get(variable) else []


def _port_problem(where: str, value: str) -> str | None:
    try:
        port = int(value)  # as Click reads it
    except ValueError:
        return None  # not an integer: Streamlit refuses it in one line itself
    if not 1 <= port <= MAX_PORT:
        return f"{where}{value}: a port is an integer from 1 to {MAX_PORT}; use e.g. {where}8502"
    return None


def _address_problem(where: str, value: str) -> str | None:
    import socket  # here: only when the option is given (``--help`` stays light)

    if not value.strip():
        return None
    try:
        family, kind, protocol, _, address = socket.getaddrinfo(value, None, type=socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError, ValueError) as error:
        return (f"{where}{value}: not a host name or address that can be looked up ({error}); use e.g. "
                f"{where}localhost, or 0.0.0.0 to listen on every interface")
    try:
        with socket.socket(family, kind, protocol) as probe:
            probe.bind((address[0], 0, *address[2:]))  # port 0: any free one, only to test the address
    except OSError as error:
        return (f"{where}{value}: the explorer cannot listen there ({error.strerror or error}): it is not an "
                f"address of this machine; use e.g. {where}localhost, or 0.0.0.0 to listen on every interface")
    return None


class _NeedsPassword(Exception):
    """The key is encrypted: Streamlit asks for its passphrase itself, so it is not checked here."""


def _certificate_problem(certificates: list[tuple[str, str]], keys: list[tuple[str, str]]) -> str | None:
    if not certificates or not keys:
        return None  # Streamlit refuses one without the other in one line itself
    (cert_where, cert), (key_where, key) = certificates[-1], keys[-1]
    for where, path, what in ((cert_where, cert, "certificate"), (key_where, key, "private key")):
        if not os.path.isfile(path):
            return f"{where}{path}: no such file; give the path of the PEM {what} file"
    import ssl  # here: only when the options are given (``--help`` stays light)

    def refuse_password():
        raise _NeedsPassword

    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(cert, key, password=refuse_password)
    except _NeedsPassword:
        return None
    except (ssl.SSLError, OSError) as error:
        return (f"{cert_where}{cert} and {key_where}{key}: not a PEM certificate and its private key "
                f"({error}); give the files of one certificate")
    return None


def explore_argument_problem(extra: Sequence[str], environ: Mapping[str, str] | None = None) -> str | None:
    """The first bad value among the options Streamlit would crash on (see the module docstring), as one line
    naming the option (or environment variable) and how to fix it; None when they are fine."""
    environ = os.environ if environ is None else environ
    for where, value in _given(extra, environ, PORT_OPTION):
        problem = _port_problem(where, value)
        if problem:
            return problem
    addresses = _given(extra, environ, ADDRESS_OPTION)
    problem = _address_problem(*addresses[-1]) if addresses else None  # the last one given is the one used
    return problem or _certificate_problem(_given(extra, environ, CERT_OPTION), _given(extra, environ, KEY_OPTION))


def check_explore_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``parser.error`` (exit status 2) naming the first bad option in ``args.extra``; see
    ``explore_argument_problem``."""
    problem = explore_argument_problem(list(args.extra))
    if problem:
        parser.error(problem)


def run_explore(args: argparse.Namespace) -> int:
    """Serve the explorer until Streamlit stops (Ctrl-C); returns Streamlit's exit status.

    A bad option (``check_explore_arguments``) exits with status 2 before Streamlit is imported.
    """
    parser = getattr(args, "command_parser", None)
    if parser is not None:
        check_explore_arguments(parser, args)
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
