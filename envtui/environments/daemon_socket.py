"""A message channel to Codex's app-server daemon: a websocket over its Unix socket.

Since 0.171 interactive Codex runs in one background app-server per ``CODEX_HOME``; it
listens on ``CODEX_HOME/app-server-control/app-server-control.sock`` and speaks JSON-RPC
with one message per websocket frame. This channel is what :class:`JsonRpcClient` needs to
be one more client of it, as Codex's own TUI and ``codex agents`` are. envtui never starts
a daemon: a socket that does not answer is said as a reason, with how to start one.
"""

from __future__ import annotations

from pathlib import Path

from websockets.asyncio.client import ClientConnection, unix_connect

from envtui.environments.channels import MAX_MESSAGE, WebSocketChannel
from envtui.environments.remote import RetryableError

SOCKET = Path("app-server-control") / "app-server-control.sock"
"""Where the daemon listens, under ``CODEX_HOME``."""
START_HINT = "start one with `codex app-server daemon start`"
KEEPALIVE = 20.0
"""Seconds between pings; a daemon silent for twice this long is called gone."""


def daemon_socket(codex_home: Path) -> Path:
    """The daemon's socket for ``codex_home``."""
    return codex_home / SOCKET


def daemon_listens(codex_home: Path, timeout: float = 2.0) -> bool:
    """Whether something accepts connections on ``codex_home``'s daemon socket now (a
    plain connect, closed at once: no websocket, nothing said to the daemon)."""
    import socket

    path = daemon_socket(codex_home)
    if not path.exists():
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(timeout)
        try:
            probe.connect(str(path))
        except OSError:
            return False  # refused: a socket left behind by a daemon that was killed
    return True


class DaemonSocketChannel(WebSocketChannel):
    """One connection to the daemon's Unix socket; one JSON-RPC message per frame (sent,
    received and closed as any websocket channel; only the reasons name the daemon)."""

    def __init__(self, socket: ClientConnection, path: Path) -> None:
        super().__init__(socket, f"unix://{path}")
        self.path = path

    @classmethod
    async def connect(  # type: ignore[override]  # a path, not a url
        cls, path: Path, *, timeout: float = 10.0
    ) -> DaemonSocketChannel:
        """Connect, or :class:`RetryableError` saying why (no daemon, refused, timed out)."""
        if not path.exists():
            raise RetryableError(f"no codex app-server daemon at {path}; {START_HINT}")
        try:
            socket = await unix_connect(
                str(path),
                uri="ws://localhost/",
                open_timeout=timeout,
                max_size=MAX_MESSAGE,
                ping_interval=KEEPALIVE,
                ping_timeout=KEEPALIVE * 2,
            )
        except TimeoutError:
            raise RetryableError(f"the daemon at {path} did not answer in {timeout:g} s") from None
        except OSError as exc:  # refused: a socket left behind by a daemon that was killed
            reason = exc.strerror or str(exc)
            raise RetryableError(
                f"the codex app-server daemon at {path} does not answer ({reason}); {START_HINT}"
            ) from None
        except Exception as exc:  # websockets' handshake errors
            raise RetryableError(f"websocket handshake with the daemon failed: {exc}") from None
        return cls(socket, path)

    async def close_reason(self) -> str:
        code, reason = self.socket.close_code, self.socket.close_reason
        if code is None or code == 1006:
            return "the codex app-server daemon went away"
        said = f": {reason}" if reason else ""
        return f"the codex app-server daemon closed the connection ({code}{said})"
