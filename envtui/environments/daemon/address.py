"""Where Codex's app-server daemon listens, in the forms Codex's own ``--remote`` takes.

``unix://`` (the daemon of ``CODEX_HOME``), ``unix://PATH``, ``ws://HOST:PORT`` and
``wss://…``. A listening server that is not on loopback wants a bearer token; it is read
from a file or from an environment variable, never taken on the command line (where
``ps`` shows it), and never written to a log: :class:`DaemonAddress` shows it as
``(token)`` and :attr:`DaemonAddress.label` never includes it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from websockets.asyncio.client import connect as websocket_connect

from envtui.environments.channels import MAX_MESSAGE, WebSocketChannel
from envtui.environments.daemon_socket import KEEPALIVE, DaemonSocketChannel, daemon_socket
from envtui.environments.jsonrpc import MessageChannel
from envtui.environments.remote import RetryableError

SCHEMES = ("unix://", "ws://", "wss://")


@dataclass(frozen=True)
class DaemonAddress:
    """A daemon's socket (``path``) or a listening server's ``url``, with its token."""

    path: Path | None = None
    url: str | None = None
    token: str | None = field(default=None, repr=False)

    @property
    def label(self) -> str:
        """The address in words for the header and the log (never the token)."""
        return f"unix://{self.path}" if self.path is not None else str(self.url)


def parse_remote(text: str, codex_home: Path, token: str | None = None) -> DaemonAddress:
    """``text`` in one of Codex's forms; :class:`ValueError` saying why it is none."""
    if text.startswith("unix://"):
        rest = text.removeprefix("unix://")
        return DaemonAddress(path=Path(rest) if rest else daemon_socket(codex_home), token=token)
    if text.startswith(("ws://", "wss://")) and len(text.split("://", 1)[1]) > 0:
        return DaemonAddress(url=text, token=token)
    raise ValueError(
        f"{text!r}: not a server address (unix://, unix://PATH, ws://HOST:PORT, wss://…)"
    )


def read_token(file: str | None, variable: str | None) -> str | None:
    """The bearer token from ``file`` or the environment ``variable``; :class:`ValueError`
    saying which is missing or empty (the token itself is never part of a message)."""
    if file is not None:
        try:
            token = Path(file).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ValueError(f"--remote-token-file {file}: {exc.strerror or exc}") from None
        if not token:
            raise ValueError(f"--remote-token-file {file}: the file is empty")
        return token
    if variable is not None:
        token = os.environ.get(variable, "").strip()
        if not token:
            raise ValueError(f"--remote-auth-token-env {variable}: the variable is not set")
        return token
    return None


async def open_channel(address: DaemonAddress, *, timeout: float = 10.0) -> MessageChannel:
    """The channel to ``address``; :class:`RetryableError` saying why it cannot be had."""
    if address.path is not None:
        return await DaemonSocketChannel.connect(address.path, timeout=timeout)
    url = str(address.url)
    headers = {"Authorization": f"Bearer {address.token}"} if address.token else None
    try:
        socket = await websocket_connect(
            url,
            additional_headers=headers,
            open_timeout=timeout,
            max_size=MAX_MESSAGE,
            ping_interval=KEEPALIVE,
            ping_timeout=KEEPALIVE * 2,
            proxy=None,
        )
    except TimeoutError:
        raise RetryableError(f"{url} did not answer in {timeout:g} s") from None
    except OSError as exc:
        raise RetryableError(f"cannot connect to {url}: {exc.strerror or exc}") from None
    except Exception as exc:  # websockets' handshake errors (a refused token: HTTP 401)
        raise RetryableError(f"websocket handshake with {url} failed: {exc}") from None
    return WebSocketChannel(socket, url)
