"""Packaging promises: a silent import that does not pull in streamlit."""

import subprocess
import sys


def test_import_is_silent_and_does_not_import_streamlit():
    code = "import sys, elmo_keras; print('streamlit' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "False\n"
    assert result.stderr == ""
