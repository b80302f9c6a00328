"""Message channels to an exec-server: a child process's stdio, the same over SSH, a websocket.

Each channel knows why it closed, in words a status line can show: the exit status and the
last line the program wrote to stderr, the SSH connection that was lost, or the websocket
close code. Closing a channel always ends what it started: the child's whole process
group, the remote process and its SSH connection, the socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
from collections import deque
from collections.abc import Callable, Mapping, Sequence

import asyncssh
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as websocket_connect
from websockets.exceptions import ConnectionClosed, InvalidURI

from envtui.environments.jsonrpc import ChannelClosedError
from envtui.environments.processes import ProcessTree, group_alive
from envtui.environments.remote import PermanentError, RetryableError
from envtui.environments.ssh import SshSettings, close_connection, open_connection
from envtui.environments.stderr_lines import (
    STDERR_LINE_LENGTH,
    error_line,
    exit_reason,
    stderr_text,
)
from envtui.vocabulary.limits import MAX_LINE, TooLargeError, size_text
from envtui.vocabulary.stopping import cancel_and_wait, kill_group, kill_group_when_started, within

MAX_MESSAGE = MAX_LINE
"""The longest line or frame accepted from an exec-server or app-server."""

CHUNK = 64 * 1024
"""Bytes read from a child's output at a time."""
_STDERR_LINES = 20
TERM_GRACE = 2.0
"""Seconds a process has to exit after SIGTERM before it gets SIGKILL."""


class LineBuffer:
    """Whole lines out of chunks of output; a line longer than ``limit`` is refused."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._partial = bytearray()
        self._complete: deque[bytes] = deque()

    def feed(self, chunk: bytes) -> None:
        """Take ``chunk``; :class:`~envtui.vocabulary.limits.TooLargeError` once a line is too
        long."""
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            self._partial += chunk[start : end + 1]
            self._complete.append(bytes(self._partial))
            self._partial.clear()
            start = end + 1
        self._partial += chunk[start:]
        if len(self._partial) > self._limit:
            raise TooLargeError("a line", self._limit)

    def pop(self) -> bytes | None:
        """The oldest complete line (with its newline), or None."""
        return self._complete.popleft() if self._complete else None

    def rest(self) -> bytes:
        """What came after the last newline (at the end of output: the last line)."""
        rest = bytes(self._partial)
        self._partial.clear()
        return rest


def _group_exists(pgid: int) -> bool:
    """Whether a process of the group still runs: a cheap ``killpg(0)`` first, psutil only
    when the group has members (which may be zombies, exited but not yet reaped)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return group_alive(pgid)


def _signal_name(number: int) -> str:
    with contextlib.suppress(ValueError):
        return signal.Signals(number).name
    return f"signal {number}"


class ProcessChannel:
    """An exec-server (or the ``role`` named) started as a local child speaking over stdio."""

    def __init__(
        self, process: asyncio.subprocess.Process, program: str, role: str = "exec-server"
    ) -> None:
        self.process = process
        self.program = program
        self.role = role
        """What the program is, in messages: ``exec-server`` or ``codex app-server``."""
        self.tree = ProcessTree(process.pid)
        self._stderr: deque[str] = deque(maxlen=_STDERR_LINES)
        self._error_line: str | None = None  # the first "Error: " line, kept however much follows
        self._lines = LineBuffer(MAX_MESSAGE)
        loop = asyncio.get_running_loop()
        self._stderr_task = loop.create_task(self._drain_stderr())
        self._exited = loop.create_task(self._watch_exit())

    @classmethod
    async def spawn(
        cls,
        program: str,
        args: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        role: str = "exec-server",
    ) -> ProcessChannel:
        if cwd is not None and not os.path.isdir(cwd):
            raise PermanentError(f"{role} working directory does not exist: {cwd}")
        starting = asyncio.ensure_future(
            asyncio.create_subprocess_exec(
                program,
                *args,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env={**os.environ, **(env or {})},
                cwd=cwd,
                start_new_session=True,  # its own process group, so closing ends all of it
                limit=CHUNK,  # the pipe's buffer; lines are cut by LineBuffer
            )
        )
        try:
            # Shielded: cancelled while it connects the pipes, asyncio would close the new
            # transport itself, and that close reaps a child that has just exited before
            # asyncio's child watcher does (which then prints "Unknown child process pid"
            # on stderr). The start finishes instead, and the process is ended below.
            process = await asyncio.shield(starting)
        except asyncio.CancelledError:
            await cls._end_once_started(starting, program, role)
            raise
        except FileNotFoundError:
            raise PermanentError(f"{role} program not found: {program}") from None
        except PermissionError:
            raise PermanentError(f"{role} program is not executable: {program}") from None
        return cls(process, program, role)

    @classmethod
    async def _end_once_started(
        cls, starting: asyncio.Future[asyncio.subprocess.Process], program: str, role: str
    ) -> None:
        """End a process whose start was cancelled, as every channel is ended, once it runs.

        Cancelled again meanwhile, the process is killed the moment it has started."""
        try:
            process = await asyncio.shield(starting)
        except asyncio.CancelledError:
            starting.add_done_callback(kill_group_when_started)
            raise
        except Exception:  # it never started: nothing to end
            return
        await cls(process, program, role).close()

    @property
    def pid(self) -> int:
        return self.process.pid

    async def _watch_exit(self) -> None:
        """Completes when the process has exited.

        ``Process.wait()`` also waits for every pipe to close, which never happens while a
        child of the exec-server holds them; the return code is set as soon as it exits.
        """
        while self.process.returncode is None:
            await asyncio.sleep(0.05)

    async def _all_gone(self) -> None:
        await asyncio.shield(self._exited)
        while _group_exists(self.process.pid) or self.tree.alive():
            await asyncio.sleep(0.05)

    async def _drain_stderr(self) -> None:
        """Keep the last lines of stderr, each cut to a bounded length, however much comes."""
        assert self.process.stderr is not None
        partial = b""
        with contextlib.suppress(Exception):
            while chunk := await self.process.stderr.read(65536):
                *lines, partial = (partial + chunk).split(b"\n")
                partial = partial[-STDERR_LINE_LENGTH:]
                if self._error_line is None:
                    self._error_line = error_line(lines)
                for line in lines[-_STDERR_LINES:]:
                    self._stderr.append(stderr_text(line))
            if partial:
                self._error_line = self._error_line or error_line([partial])
                self._stderr.append(stderr_text(partial))

    async def send(self, text: str) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(text.encode("utf-8") + b"\n")
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise ChannelClosedError(await self.close_reason()) from exc

    async def receive(self) -> str | None:
        """The next line; None at end of output or once the process has exited.

        A child the exec-server started may still hold the pipe open after the exec-server
        itself died, so the end of the process counts as the end of the channel too. Output
        is read in chunks of :data:`CHUNK` bytes and cut into lines here, so a program that
        floods makes envtui hold one chunk and one unfinished line, never a deep buffer.
        """
        while (line := self._lines.pop()) is None:
            chunk = await self._next_chunk()
            if not chunk:  # the end: what is left is the last line, without its newline
                rest = self._lines.rest()
                return rest.decode("utf-8", errors="replace") if rest else None
            try:
                self._lines.feed(chunk)
            except TooLargeError:
                raise ChannelClosedError(
                    f"{self.role} sent a line over {size_text(MAX_MESSAGE)}"
                ) from None
        return line.decode("utf-8", errors="replace")

    async def _next_chunk(self) -> bytes:
        """What the process wrote next; empty at end of output or once it has exited."""
        stdout = self.process.stdout
        assert stdout is not None
        read = asyncio.ensure_future(stdout.read(CHUNK))
        try:
            await asyncio.wait({read, self._exited}, return_when=asyncio.FIRST_COMPLETED)
            if not read.done():  # exited: take what it wrote before, if anything
                await asyncio.wait({read}, timeout=0.2)
            return read.result() if read.done() else b""
        finally:
            if not read.done():
                read.cancel()

    async def close_reason(self) -> str:
        await within(2, asyncio.shield(self._exited))
        await within(0.5, asyncio.shield(self._stderr_task))
        code = self.process.returncode
        if code is not None and code < 0:
            return f"{self.role} was killed by {_signal_name(-code)}"
        reason = (
            f"{self.role} closed its output"
            if code is None
            else f"{self.role} exited with status {code}"
        )
        # What it said is the likely cause of an exit (not of a kill from outside).
        said = self._error_line or exit_reason(list(self._stderr))
        return f"{reason}: {said}" if said else reason

    def _signal_all(self, sig: int) -> None:
        kill_group(self.process.pid, sig)
        self.tree.end(sig)

    async def close(self) -> None:
        """End the exec-server and everything it started: its process group, and every
        descendant seen since it started (also those that moved to a session of their own).
        Cancelled on the way (a dashboard that quits gives its source a bounded time), it
        kills them at once rather than leave them running."""
        self.tree.remember()
        try:
            for sig, grace in ((signal.SIGTERM, TERM_GRACE), (signal.SIGKILL, 5.0)):
                self._signal_all(sig)
                if await within(grace, self._all_gone()):
                    break
        except asyncio.CancelledError:  # a quit that cannot wait out the grace: kill, now
            self._signal_all(signal.SIGKILL)  # (the tree stays known: the last sweep waits)
            raise
        self.tree.forget()
        await within(5, asyncio.shield(self._exited))
        # The pipes may still hold output nobody will read (a flood): close the transport now,
        # or asyncio closes it when it is collected, after the loop is gone, and says so.
        # Only once its exit was seen: before that, closing would reap it behind the back of
        # asyncio's child watcher.
        transport = getattr(self.process, "_transport", None)
        if transport is not None and self.process.returncode is not None:
            with contextlib.suppress(Exception):
                transport.close()
        await cancel_and_wait(self._exited, self._stderr_task)


def remote_command(program: str, args: Sequence[str], env: Mapping[str, str] | None) -> str:
    """The exec-server command line for a remote shell, every word quoted."""
    words = [program, *args]
    if env:
        words = ["env", *(f"{key}={value}" for key, value in env.items()), *words]
    return shlex.join(words)


class SshProcessChannel:
    """The same stdio protocol, carried over an SSH channel to a process on the host."""

    def __init__(
        self,
        connection: asyncssh.SSHClientConnection,
        process: asyncssh.SSHClientProcess[str],
        lost: asyncio.Future[str],
        host: str,
        role: str = "exec-server",
    ) -> None:
        self.connection = connection
        self.process = process
        self._lost = lost
        self._host = host
        self.role = role

    @classmethod
    async def open(
        cls,
        settings: SshSettings,
        program: str,
        args: Sequence[str],
        env: Mapping[str, str] | None = None,
        *,
        client_keys: Sequence[asyncssh.SSHKey] | None = None,
        on_note: Callable[[str], None] | None = None,
        role: str = "exec-server",
    ) -> SshProcessChannel:
        """Connect to the host (with envtui's host-key rules) and start ``program`` there.

        ``on_note`` hears about a host key that was accepted on the way. The connection is
        closed again if the program cannot be started.
        """
        lost: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        connection, accepted = await open_connection(settings, lost, client_keys=client_keys)
        if accepted and on_note is not None:
            on_note(accepted)
        try:
            process = await connection.create_process(
                remote_command(program, args, env), encoding="utf-8"
            )
        except BaseException:
            await close_connection(connection)
            raise
        return cls(connection, process, lost, settings.host, role)

    async def send(self, text: str) -> None:
        try:
            self.process.stdin.write(text + "\n")
            await self.process.stdin.drain()
        except (asyncssh.Error, BrokenPipeError, ConnectionError) as exc:
            raise ChannelClosedError(await self.close_reason()) from exc

    async def receive(self) -> str | None:
        try:
            line = await self.process.stdout.readline()
        except (asyncssh.Error, ConnectionError):
            return None
        return line or None

    async def close_reason(self) -> str:
        if self._lost.done():
            return f"connection lost: {self._lost.result()}"
        with contextlib.suppress(asyncssh.Error):
            await within(2, self.process.wait_closed())
        if self._lost.done():
            return f"connection lost: {self._lost.result()}"
        status = self.process.exit_status
        if status is None:
            return f"{self.role} on {self._host} closed its channel"
        return f"{self.role} on {self._host} exited with status {status}"

    async def close(self) -> None:
        self.process.close()
        await close_connection(self.connection)


class WebSocketChannel:
    """An exec-server listening on ``ws://`` or ``wss://``; one JSON-RPC message per frame."""

    def __init__(self, socket: ClientConnection, url: str) -> None:
        self.socket = socket
        self.url = url

    @classmethod
    async def connect(cls, url: str, *, timeout: float, keepalive: float) -> WebSocketChannel:
        try:
            socket = await websocket_connect(
                url,
                open_timeout=timeout,
                max_size=MAX_MESSAGE,
                ping_interval=keepalive,
                ping_timeout=keepalive * 2,
                proxy=None,
            )
        except (InvalidURI, ValueError) as exc:  # ValueError: a port out of range, a bad host
            raise PermanentError(f"invalid exec-server url {url!r}: {exc}") from None
        except TimeoutError:
            raise RetryableError(f"connecting to {url} timed out after {timeout:g} s") from None
        except OSError as exc:
            raise RetryableError(f"cannot connect to {url}: {exc.strerror or exc}") from None
        except Exception as exc:  # websockets' handshake errors
            raise RetryableError(f"websocket handshake with {url} failed: {exc}") from None
        return cls(socket, url)

    async def send(self, text: str) -> None:
        try:
            await self.socket.send(text)
        except ConnectionClosed as exc:
            raise ChannelClosedError(await self.close_reason()) from exc

    async def receive(self) -> str | None:
        try:
            message = await self.socket.recv()
        except ConnectionClosed:
            return None
        return message if isinstance(message, str) else message.decode("utf-8", errors="replace")

    async def close_reason(self) -> str:
        code, reason = self.socket.close_code, self.socket.close_reason
        if code is None or code == 1006:
            return f"websocket to {self.url} was lost"
        return f"websocket to {self.url} closed ({code}{': ' + reason if reason else ''})"

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await within(5, self.socket.close())
