"""Who may use ``envtui serve``: its own origin and host names, a token, a bounded size.

A served dashboard reads the environments and types into them, so the server answers only
a browser that is at its own address and holds its token:

- the **Origin** of a websocket upgrade must be the server's own origin, else any page the
  user has open (another port on 127.0.0.1 is another origin, but the same *site*, so what
  a browser sends by itself goes along) could open the dashboard's websocket and drive it;
- the **Host** of every request must be one of the server's names, else a page whose name
  the attacker rebinds to 127.0.0.1 (DNS rebinding) is same-origin with the server;
- a random **token**, printed once in the URL the command shows, must come with every
  dashboard's websocket, so other users and processes of this machine, which can reach a
  loopback port too, get nothing without it. It travels in the URL's fragment (never sent
  to a server), the page keeps it in ``sessionStorage`` (one origin's, port included) and
  offers it as a websocket subprotocol (:func:`token_protocol`). No cookie: a browser
  sends a cookie of 127.0.0.1 to every port of it (RFC 6265 §8.5), so another account's
  server on another port would get it, and could replay it;
- the **terminal size** a client asks for is clamped, since a dashboard's memory grows with
  its cells.

Only the standard library here: the rules are checked without aiohttp, and the command
line that builds them loads no web server. :mod:`envtui.commands.serve.web_guard` applies them.
"""

from __future__ import annotations

import hmac
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
"""The names a browser on this machine uses for a server on loopback."""
DEFAULT_PORTS = {"http": 80, "https": 443}
MIN_SIZE = (20, 5)
MAX_SIZE = (500, 200)
"""The terminal sizes (columns, rows) a client may ask for; beyond them it is clamped.
500x200 is more than a 4K screen shows at a readable font."""
DEFAULT_SIZE = (80, 24)
"""What textual-serve assumes when a size is missing or not a number."""
TOKEN_FILE_LIMIT = 4096
"""Characters read from ``--token-file``: a token, not a document."""
TOKEN_MIN_LENGTH = 32
"""The shortest token ``--token-file`` takes: too many to guess (a new one has 43)."""
SHARED_BITS = stat.S_IRGRP | stat.S_IWGRP | stat.S_IROTH | stat.S_IWOTH
"""Mode bits that let another account read or change the token file."""
PAGE_PROTOCOL = "envtui-serve"
"""The websocket subprotocol the server answers with: the page offers it beside the token."""
TOKEN_PROTOCOL_PREFIX = "envtui-token."
"""The subprotocol that carries the token, hex-encoded (a subprotocol is an HTTP token:
letters, digits and a few marks; a ``--token-file`` token may hold any character)."""


class TokenFileError(ValueError):
    """``--token-file`` gave no token; the message says why, in one line."""


@dataclass(frozen=True)
class Access:
    """What a request must carry to be answered (see the module's doc)."""

    token: str
    hosts: frozenset[str]
    """Every ``Host`` header value answered, lower case, port included (and without it on
    the scheme's default port, as browsers send it then)."""
    origins: frozenset[str]
    """Every ``Origin`` a websocket may come from, lower case."""
    secure: bool
    """Whether the page is reached over https."""
    canonical: str | None
    """The one ``Host`` the page is served at when envtui chose the address (loopback, no
    ``--public-url``), as a browser writes it (no port on port 80); a page asked for by
    another loopback name is sent there, since the token is kept per origin and the
    page's websocket goes to this one."""

    def host_allowed(self, host: str | None) -> bool:
        return host is not None and host.lower() in self.hosts

    def origin_allowed(self, origin: str | None) -> bool:
        return origin is not None and origin.lower().rstrip("/") in self.origins

    def token_matches(self, given: str) -> bool:
        return hmac.compare_digest(given.encode(), self.token.encode())

    def offered_token(self, protocols: str | None) -> bool | None:
        """Whether a websocket's ``Sec-WebSocket-Protocol`` offers this token beside
        :data:`PAGE_PROTOCOL` (None: it offers no token at all)."""
        offered = [p.strip() for p in (protocols or "").split(",")]
        tokens = [p for p in offered if p.startswith(TOKEN_PROTOCOL_PREFIX)]
        if not tokens:
            return None
        given = tokens[0].removeprefix(TOKEN_PROTOCOL_PREFIX)
        expected = token_protocol(self.token).removeprefix(TOKEN_PROTOCOL_PREFIX)
        same = hmac.compare_digest(given.lower().encode(), expected.encode())
        return same and len(tokens) == 1 and PAGE_PROTOCOL in offered


def _netlocs(scheme: str, name: str, port: int) -> set[str]:
    names = {f"{name}:{port}"}
    if DEFAULT_PORTS.get(scheme) == port:
        names.add(name)
    return names


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def access_for(
    *, host: str, port: int, public_url: str, token: str, loopback: bool, chosen_url: bool
) -> Access:
    """The rules for a server listening on ``host:port`` that browsers reach at
    ``public_url``; ``loopback`` when ``host`` is, ``chosen_url`` when envtui made the URL
    from the address (no ``--public-url``)."""
    url = urlsplit(public_url)
    scheme = url.scheme.lower() or "http"
    public_name = _bracketed((url.hostname or host).lower())
    public_port = url.port or DEFAULT_PORTS.get(scheme, port)
    hosts = _netlocs(scheme, public_name, public_port)
    origins = set(_origins(scheme, public_name, public_port))
    names = {_bracketed(host.lower())}
    if loopback:
        names.update(LOOPBACK_NAMES)
    for name in names:  # the address itself, as a local proxy or a browser here names it
        hosts |= _netlocs("http", name, port)
        if loopback:
            origins |= set(_origins("http", name, port))
    return Access(
        token=token,
        hosts=frozenset(hosts),
        origins=frozenset(origins),
        secure=scheme == "https",
        canonical=min(_netlocs(scheme, public_name, public_port), key=len) if chosen_url else None,
    )


def _origins(scheme: str, name: str, port: int) -> list[str]:
    """How a browser writes the origin: the port left out when it is the scheme's default."""
    if DEFAULT_PORTS.get(scheme) == port:
        return [f"{scheme}://{name}"]
    return [f"{scheme}://{name}:{port}"]


def new_token() -> str:
    """A fresh random token for one run of the server."""
    return secrets.token_urlsafe(32)


def read_token_file(path: Path) -> str:
    """The token in ``path``, stripped; :class:`TokenFileError` if there is none, if others
    may read or change the file (they could drive every dashboard), or if it is too short
    to guess at."""
    try:
        with path.open(encoding="utf-8", errors="strict") as file:
            check_private(path, os.fstat(file.fileno()).st_mode)
            text = file.read(TOKEN_FILE_LIMIT + 1)
    except FileNotFoundError:
        raise TokenFileError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise TokenFileError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise TokenFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(text) > TOKEN_FILE_LIMIT:
        raise TokenFileError(f"{path}: longer than {TOKEN_FILE_LIMIT} characters")
    token = text.strip()
    if not token:
        raise TokenFileError(f"{path}: empty (it should hold the token)")
    if len(token) < TOKEN_MIN_LENGTH:
        raise TokenFileError(
            f"{path}: the token has {len(token)} characters; use at least {TOKEN_MIN_LENGTH}"
        )
    return token


def check_private(path: Path, mode: int) -> None:
    """:class:`TokenFileError` when the group or others may read or write ``path``."""
    if mode & SHARED_BITS:
        raise TokenFileError(
            f"{path}: others may read or change it (mode {stat.S_IMODE(mode):o}); "
            f"run chmod 600 {path}"
        )


def url_with_token(public_url: str, token: str) -> str:
    """The address to open: the page, with the token in the fragment, which a browser
    never sends to a server (the page's script takes it from there)."""
    return f"{public_url.rstrip('/')}/#token={quote(token, safe='')}"


def token_protocol(token: str) -> str:
    """The websocket subprotocol that carries ``token`` (what the page's script offers)."""
    return TOKEN_PROTOCOL_PREFIX + token.encode().hex()


def clamp_size(width: object, height: object) -> tuple[int, int]:
    """The terminal size to use for the one a client asked for: within
    :data:`MIN_SIZE` and :data:`MAX_SIZE`, the default for what is not a number."""
    columns = _number(width, DEFAULT_SIZE[0])
    rows = _number(height, DEFAULT_SIZE[1])
    return (
        min(max(columns, MIN_SIZE[0]), MAX_SIZE[0]),
        min(max(rows, MIN_SIZE[1]), MAX_SIZE[1]),
    )


def _number(value: object, default: int) -> int:
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, str) and len(value) <= 12:  # int() of a huge digit string is slow
        try:
            return int(value)
        except ValueError:
            return default
    return default
