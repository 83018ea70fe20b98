"""``explore`` checks the Streamlit options that Streamlit reports with a traceback (a port out of range, an address
this machine does not have, a certificate that cannot be loaded): one line, exit status 2, before Streamlit starts."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys

import pytest

from elmo_keras.cli import explore, main


@pytest.fixture
def streamlit_calls(monkeypatch):
    """The Streamlit command lines ``explore`` would run (Streamlit itself is not started)."""
    seen = []
    monkeypatch.setattr(explore, "missing_app_requirements", lambda: [])
    monkeypatch.setattr("streamlit.web.cli.main", lambda **kwargs: seen.append(kwargs["args"]))
    for name in ("PORT", "ADDRESS", "SSL_CERT_FILE", "SSL_KEY_FILE"):
        monkeypatch.delenv(f"STREAMLIT_SERVER_{name}", raising=False)
    return seen


def refused(argv, capsys) -> str:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[0].startswith("usage: ") and len(lines) == 2  # argparse's usage line and one error line
    return lines[1]


@pytest.mark.parametrize("argv", [["--server.port", "99999"], ["--server.port=65536"], ["--server.port", "0"],
                                  ["--server.port", "-1"], ["--server.port", "1_000_000"],
                                  ["--server.port", "8502", "--server.port", "99999"]])
def test_a_port_out_of_range_is_refused_in_one_line(argv, streamlit_calls, capsys):
    message = refused(["explore", *argv], capsys)
    bad = argv[-1].split("=")[-1]
    assert f"--server.port {bad}: a port is an integer from 1 to 65535" in message
    assert streamlit_calls == []


@pytest.mark.parametrize("port", ["1", "8502", "65535"])
def test_a_good_port_reaches_streamlit(port, streamlit_calls):
    assert main(["explore", "--server.port", port, "--server.headless=true"]) == 0
    assert streamlit_calls == [["run", str(explore.MAIN_SCRIPT), "--server.port", port, "--server.headless=true"]]


def test_the_port_variable_is_checked_where_no_option_overrides_it(streamlit_calls, capsys, monkeypatch):
    monkeypatch.setenv("STREAMLIT_SERVER_PORT", "70000")
    assert "STREAMLIT_SERVER_PORT=70000: a port is an integer from 1 to 65535" in refused(["explore"], capsys)
    assert main(["explore", "--server.port", "8502"]) == 0 and len(streamlit_calls) == 1


def test_an_address_of_no_machine_here_is_refused(streamlit_calls, capsys):
    message = refused(["explore", "--server.address", "192.0.2.123"], capsys)  # TEST-NET-1: never local
    assert message.endswith("--server.address 192.0.2.123: the explorer cannot listen there (Cannot assign "
                            "requested address): it is not an address of this machine; use e.g. --server.address "
                            "localhost, or 0.0.0.0 to listen on every interface")
    assert streamlit_calls == []


def test_an_address_that_cannot_be_looked_up_is_refused(streamlit_calls, capsys, monkeypatch):
    def no_such_host(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_such_host)
    message = refused(["explore", "--server.address=nosuch.invalid"], capsys)
    assert "--server.address nosuch.invalid: not a host name or address that can be looked up" in message
    assert streamlit_calls == []


@pytest.mark.parametrize("address", ["localhost", "127.0.0.1", "0.0.0.0"])
def test_a_local_address_reaches_streamlit(address, streamlit_calls):
    assert main(["explore", "--server.address", address]) == 0 and len(streamlit_calls) == 1


def test_missing_or_broken_certificate_files_are_refused(streamlit_calls, capsys, tmp_path):
    missing = refused(["explore", "--server.sslCertFile", str(tmp_path / "no.pem"),
                       "--server.sslKeyFile", str(tmp_path / "no.key")], capsys)
    assert f"--server.sslCertFile {tmp_path / 'no.pem'}: no such file" in missing
    junk = tmp_path / "junk.pem"
    junk.write_text("junk\n")
    broken = refused(["explore", "--server.sslCertFile", str(junk), "--server.sslKeyFile", str(junk)], capsys)
    assert f"--server.sslCertFile {junk} and --server.sslKeyFile {junk}: not a PEM certificate" in broken
    assert streamlit_calls == []


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command to make a certificate")
@pytest.mark.parametrize("encrypted", [False, True])
def test_a_real_certificate_reaches_streamlit_and_an_encrypted_key_asks_nothing(encrypted, streamlit_calls,
                                                                               tmp_path):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    protection = ["-passout", "pass:secret"] if encrypted else ["-noenc"]
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=localhost", *protection], check=True, capture_output=True,
                   stdin=subprocess.DEVNULL, timeout=60)
    assert main(["explore", "--server.sslCertFile", str(cert), "--server.sslKeyFile", str(key)]) == 0
    assert len(streamlit_calls) == 1


def test_a_refused_port_imports_neither_streamlit_nor_a_backend():
    check = ("import contextlib, io, sys\n"
             "from elmo_keras.cli import main\n"
             "with contextlib.redirect_stderr(io.StringIO()), contextlib.suppress(SystemExit):\n"
             "    main(['explore', '--server.port', '99999'])\n"
             "print(','.join(n for n in ('streamlit', 'keras', 'tensorflow', 'jax', 'torch') if n in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == ""
