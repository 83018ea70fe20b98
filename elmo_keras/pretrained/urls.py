"""The ``http(s)://`` URLs a model file may be given as: checked, put in one normal form, and shown without secrets.

- **Checked before any work** (``checked_url``): the scheme is ``http`` or ``https``; there is a host; the port, if
  any, is 1–65535; there are no control characters; there are no credentials (``user:password@``): urllib sends
  none, so such a URL could only fail later, and its password would be printed with the failure. Each refusal is a
  ``URLError`` (a ``ValueError``) of one line naming the URL as ``shown_url`` prints it.
- **One normal form** (``normal_url``): the scheme and host lower-cased, a port equal to the scheme's default
  dropped, the fragment (never sent to a server) dropped, and characters a URL may not hold (spaces, non-ASCII
  letters) percent-encoded as a browser sends them; a non-ASCII host in its IDNA (``xn--``) form. Two URLs with one
  normal form name the same resource; the download cache keys its entries on it (``cache_layout.cache_path``).
- **Shown without secrets** (``shown_url``): everything from ``://`` up to the last ``@`` is replaced by ``***@``
  before a URL goes into a message. A password may hold ``/``, ``#`` or ``?`` left unencoded, which end the authority
  where urllib looks (``http://alice:s3/cr3t@host/x``), so no ``@`` is trusted to lie in a path; an ``@`` that does
  (``http://host/a@b``) costs the message its host, never a secret. urllib's own words about such a URL (which quote
  the start of the password as a port) are never shown either.
"""

from __future__ import annotations

import re
import urllib.parse

SCHEMES = ("http", "https")
DEFAULT_PORTS = {"http": 80, "https": 443}
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# what may stay as it is in a URL's path and query (RFC 3986 unreserved, sub-delims, ':', '@', '/', '?', and '%' of
# an escape already made); anything else is percent-encoded, as a browser does
_PATH_SAFE = "/%:@!$&'()*+,;=-._~"
_QUERY_SAFE = _PATH_SAFE + "?"


class URLError(ValueError):
    """A URL that cannot name a model file: not ``http(s)``, no host, a bad port, control characters, credentials."""


def is_url(path) -> bool:
    """Whether ``path`` is meant as an ``http://`` or ``https://`` URL (a str; a path object never is)."""
    return isinstance(path, str) and path.strip().lower().startswith(("http://", "https://"))


def shown_url(url: str) -> str:
    """``url`` fit for a message: everything from ``://`` (or the start, without one) up to the last ``@`` becomes
    ``***@`` (the module docstring says why the last); cut to 300 characters."""
    text = str(url).strip()
    scheme, separator, rest = text.partition("://")
    if not separator or "@" in scheme:  # no scheme before the first '@': mask from the start
        scheme, separator, rest = "", "", text
    if "@" in rest:
        text = f"{scheme}{separator}***@{rest.rpartition('@')[2]}"
    return text if len(text) <= 300 else text[:297] + "..."


def checked_url(url: str) -> urllib.parse.SplitResult:
    """``url`` split into its parts, in the normal form of the module docstring, after the checks there.

    Raises:
        URLError: naming the URL (``shown_url``) and what to change.
    """
    if not isinstance(url, str):
        raise URLError(f"a URL must be a str, received {type(url).__name__}")
    text = url.strip()
    shown = shown_url(text)
    if _CONTROL.search(text):
        raise URLError(f"URL {shown!r} holds a control character (a tab, a line break, NUL, ...); remove it")
    try:
        parts = urllib.parse.urlsplit(text)
        port = parts.port
    except ValueError as error:  # "Port out of range 0-65535", "Port could not be cast to integer value", bad IPv6
        # urllib quotes the "port", which may be the start of a password that holds a '/', '#' or '?'
        said = f"({error})" if "@" not in text else "(or it holds credentials, user:password@, which are never sent)"
        raise URLError(f"URL {shown} has a bad host or port {said}; a port is a whole number from 1 to "
                       "65535") from None
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise URLError(f"URL {shown} is not http:// or https://; download it yourself and pass the file's path")
    if parts.username is not None or parts.password is not None:
        raise URLError(f"URL {shown} holds credentials (user:password@), which are never sent; download the file "
                       "yourself (e.g. curl -u USER -o PATH URL) and pass its path")
    host = (parts.hostname or "").rstrip(".")  # "host." is "host"; ".", ".." and "..." are no host at all
    if not host:
        raise URLError(f"URL {shown} has no host name; write it as {scheme}://HOST/PATH")
    if port == 0:
        raise URLError(f"URL {shown} has port 0; a port is a whole number from 1 to 65535")
    try:
        host = host.encode("idna").decode("ascii") if not host.isascii() else host
    except UnicodeError:
        raise URLError(f"URL {shown} has a host that is not a valid domain name") from None
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and port != DEFAULT_PORTS[scheme]:
        netloc += f":{port}"
    path = urllib.parse.quote(parts.path, safe=_PATH_SAFE)
    query = urllib.parse.quote(parts.query, safe=_QUERY_SAFE)
    return urllib.parse.SplitResult(scheme, netloc, path, query, "")


def normal_url(url: str) -> str:
    """``url`` in its normal form (``checked_url``), as a str. Raises ``URLError`` as ``checked_url``."""
    return urllib.parse.urlunsplit(checked_url(url))
