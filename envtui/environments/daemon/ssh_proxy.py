"""The daemon of an SSH host, reached through ``codex app-server proxy`` on it.

``codex app-server proxy`` relays the bytes of the host's daemon socket over its standard
input and output: the pipe carries the websocket itself (a handshake, then frames), so
envtui speaks websocket over it with the ``websockets`` protocol object, which does no I/O
of its own. The SSH connection follows envtui's host-key rules (:mod:`~envtui.environments.ssh`);
the proxy ends with the channel, so nothing envtui started outlives it.
"""

from __future__ import annotations

import asyncio
import contextlib
import shlex
from pathlib import Path

import asyncssh
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import parse_uri

from envtui.environments.channels import MAX_MESSAGE, remote_command
from envtui.environments.jsonrpc import ChannelClosedError
from envtui.environments.remote import RetryableError
from envtui.environments.ssh import SshSettings, close_connection, open_connection
from envtui.vocabulary.stopping import within

CHUNK = 1 << 16
ROLE = "codex app-server proxy"


def proxy_command(codex: str, codex_home: Path | None) -> str:
    """The command run on the host (every word quoted, as an exec-server's is; a home under
    ``~/`` is the login directory's, as the host's shell says it)."""
    home = str(codex_home) if codex_home is not None else None
    if home is not None and home.startswith("~/"):
        command = shlex.join([codex, "app-server", "proxy"])
        return f'env CODEX_HOME="$HOME"/{shlex.quote(home[2:])} {command}'
    env = {"CODEX_HOME": home} if home is not None else None
    return remote_command(codex, ["app-server", "proxy"], env)


class SshProxyChannel:
    """One websocket to the host's daemon, over ``codex app-server proxy``'s pipe."""

    def __init__(
        self,
        connection: asyncssh.SSHClientConnection,
        process: asyncssh.SSHClientProcess[bytes],
        lost: asyncio.Future[str],
        host: str,
    ) -> None:
        self.connection = connection
        self.process = process
        self._lost = lost
        self.host = host
        self.protocol = ClientProtocol(parse_uri("ws://localhost/"), max_size=MAX_MESSAGE)
        self._messages: asyncio.Queue[str | None] = asyncio.Queue()
        self._parts: list[bytes] = []
        self._reader: asyncio.Task[None] | None = None
        self._opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.owns_connection = True
        """False when the connection is another's (:meth:`over`): closing leaves it open."""

    @classmethod
    async def open(
        cls, settings: SshSettings, codex: str, codex_home: Path | None, *, timeout: float = 30.0
    ) -> SshProxyChannel:
        """Connect, start the proxy, shake hands; :class:`RetryableError` saying why not."""
        lost: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        try:
            connection, _ = await open_connection(settings, lost)
        except (OSError, asyncssh.Error) as exc:
            raise RetryableError(f"ssh {settings.host}: {exc}") from None
        try:
            return await cls._start(connection, lost, settings.host, codex, codex_home, timeout)
        except BaseException:
            await close_connection(connection)
            raise

    @classmethod
    async def over(
        cls,
        connection: asyncssh.SSHClientConnection,
        host: str,
        codex: str,
        codex_home: Path | None,
        *,
        timeout: float = 30.0,
    ) -> SshProxyChannel:
        """The proxy on a connection envtui already holds to ``host`` (its sessions tree's):
        closing the channel ends the proxy and leaves the connection open."""
        lost: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        channel = await cls._start(connection, lost, host, codex, codex_home, timeout)
        channel.owns_connection = False
        return channel

    @classmethod
    async def _start(
        cls,
        connection: asyncssh.SSHClientConnection,
        lost: asyncio.Future[str],
        host: str,
        codex: str,
        codex_home: Path | None,
        timeout: float,
    ) -> SshProxyChannel:
        process: asyncssh.SSHClientProcess[bytes] | None = None
        try:
            process = await connection.create_process(
                proxy_command(codex, codex_home), encoding=None
            )
            channel = cls(connection, process, lost, host)
            await within(timeout, channel._handshake())
        except BaseException as exc:
            if process is not None:
                process.close()
            if isinstance(exc, TimeoutError | asyncssh.Error | OSError | ChannelClosedError):
                raise RetryableError(
                    f"{ROLE} on {host}: no daemon answered ({exc or 'timed out'})"
                ) from None
            raise
        return channel

    async def _handshake(self) -> None:
        self.protocol.send_request(self.protocol.connect())
        await self._flush()
        self._reader = asyncio.get_running_loop().create_task(self._read())
        await self._opened

    async def _flush(self) -> None:
        for data in self.protocol.data_to_send():
            if data:
                self.process.stdin.write(data)
        await self.process.stdin.drain()

    async def _read(self) -> None:
        """Feed the pipe to the protocol; hand on each whole text message."""
        try:
            while True:
                chunk = await self.process.stdout.read(CHUNK)
                if not chunk:
                    self.protocol.receive_eof()
                    break
                self.protocol.receive_data(chunk)
                for event in self.protocol.events_received():
                    self._take(event)
                await self._flush()  # pongs, the closing handshake
                if self.protocol.state is State.CLOSED:
                    break
        except (asyncssh.Error, ConnectionError, BrokenPipeError):
            pass
        finally:
            if not self._opened.done():
                self._opened.set_exception(ChannelClosedError(await self.close_reason()))
            self._messages.put_nowait(None)

    def _take(self, event: Response | Frame | object) -> None:
        if isinstance(event, Response):
            if self.protocol.handshake_exc is not None:
                self._opened.set_exception(ChannelClosedError(str(self.protocol.handshake_exc)))
            else:
                self._opened.set_result(None)
            return
        if not isinstance(event, Frame) or event.opcode not in (
            Opcode.TEXT,
            Opcode.BINARY,
            Opcode.CONT,
        ):
            return
        self._parts.append(bytes(event.data))
        if event.fin:
            text = b"".join(self._parts).decode("utf-8", errors="replace")
            self._parts = []
            self._messages.put_nowait(text)

    async def send(self, text: str) -> None:
        try:
            self.protocol.send_text(text.encode("utf-8"))
            await self._flush()
        except Exception as exc:
            raise ChannelClosedError(await self.close_reason()) from exc

    async def receive(self) -> str | None:
        message = await self._messages.get()
        if message is None:
            self._messages.put_nowait(None)  # every later call hears the end too
        return message

    async def close_reason(self) -> str:
        if self._lost.done():
            return f"connection to {self.host} lost: {self._lost.result()}"
        status = self.process.exit_status
        if status is None:
            return f"{ROLE} on {self.host} closed its channel"
        return f"{ROLE} on {self.host} exited with status {status}"

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(BaseException):
                await self._reader
        self.process.close()
        if self.owns_connection:
            await close_connection(self.connection)
