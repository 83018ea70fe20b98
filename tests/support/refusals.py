"""``assert_refused``: a reader refuses a file with one line that names it (and says what is wrong)."""

from __future__ import annotations

import pytest


def assert_refused(read, error: type[Exception], path, *fragments) -> str:
    """``read(path)`` raises ``error`` with a one-line message naming ``path`` and holding every fragment; returns
    the message."""
    with pytest.raises(error) as caught:
        read(path)
    message = str(caught.value)
    assert "\n" not in message and str(path) in message
    for fragment in fragments:
        assert fragment in message, message
    return message
