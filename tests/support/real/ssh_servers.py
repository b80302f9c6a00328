"""SSH servers for tests: in-process asyncssh servers, a TCP proxy that can go dead, OpenSSH."""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import json
import os
import shutil
import signal
import socket
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncssh
import psutil

from tests.support.waiting import DEFAULT_TIMEOUT

from envtui.environments.ssh import SshSettings, known_hosts_pattern
from envtui.sources.demo_ssh_server import DemoSshServer


class InProcessServer(DemoSshServer):
    """The demo's in-process server, with a fresh key pair, settings for it, and streaming.

    ``streaming`` pipes stdin and stdout while the command runs (an exec-server over SSH).
    """

    def __init__(
        self,
        *,
        shell: str = "/bin/zsh",
        auth_delay: float = 0.0,
        streaming: bool = False,
        sftp: bool = False,
    ) -> None:
        super().__init__(
            asyncssh.generate_private_key("ssh-ed25519"),
            shell=shell,
            auth_delay=auth_delay,
            sftp=sftp,
        )
        self.streaming = streaming

    async def start(self) -> InProcessServer:
        await super().start()
        return self

    async def _run_command(self, process: asyncssh.SSHServerProcess[str]) -> None:
        if not self.streaming:
            await super()._run_command(process)
            return
        command = process.command or "true"
        self.note_command(command)
        await self._stream(process, command)

    async def _stream(self, process: asyncssh.SSHServerProcess[str], command: str) -> None:
        proc = await asyncio.create_subprocess_shell(
            command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        child_in, child_out = proc.stdin, proc.stdout
        assert child_in is not None
        assert child_out is not None

        async def upstream() -> None:
            with contextlib.suppress(Exception):
                async for line in process.stdin:
                    child_in.write(line.encode())
                    await child_in.drain()
            child_in.close()

        async def downstream() -> None:
            while line := await child_out.readline():
                process.stdout.write(line.decode())

        pump = asyncio.ensure_future(upstream())
        try:
            await downstream()
            await proc.wait()
        finally:
            pump.cancel()
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                await proc.wait()
            child_in.close()  # cancelled mid-pump, or asyncio closes it after the loop is gone
        with contextlib.suppress(Exception):
            process.exit(proc.returncode or 0)

    def known_hosts_line(self, port: int | None = None) -> str:
        key = self.host_key.export_public_key().decode().split()[:2]
        return f"{known_hosts_pattern('127.0.0.1', port or self.port)} {' '.join(key)}\n"

    def settings(
        self, known_hosts_file: Path, *, port: int | None = None, **overrides: object
    ) -> SshSettings:
        """Settings for this server, trusting its key in ``known_hosts_file``."""
        known_hosts_file.write_text(self.known_hosts_line(port), encoding="ascii")
        values: dict[str, object] = {
            "host": "127.0.0.1",
            "port": port or self.port,
            "user": "envtui",
            "known_hosts": (str(known_hosts_file),),
            "connect_timeout": 5.0,
            "keepalive_interval": 0.5,
            "keepalive_count_max": 2,
            "backoff_initial": 0.05,
            "backoff_max": 0.2,
            "read_ssh_config": False,
            "use_agent": False,
        }
        values.update(overrides)
        return SshSettings(**values)  # type: ignore[arg-type]


@contextlib.asynccontextmanager
async def in_process_server(**options: Any) -> AsyncIterator[InProcessServer]:
    server = await InProcessServer(**options).start()
    try:
        yield server
    finally:
        await server.close()


class BlackholeProxy:
    """A TCP proxy to a port that can stop forwarding without closing: a dead link."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self.frozen = False
        self._server: asyncio.Server | None = None
        self._writers: list[asyncio.StreamWriter] = []

    async def start(self) -> BlackholeProxy:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        self._writers += [writer, up_writer]
        await asyncio.gather(
            self._pipe(reader, up_writer), self._pipe(up_reader, writer), return_exceptions=True
        )

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(65536):
            if self.frozen:
                continue  # swallowed: nothing arrives, nothing is closed
            writer.write(data)
            await writer.drain()

    async def close(self) -> None:
        for writer in self._writers:
            writer.close()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()


SSHD = shutil.which("sshd") or ("/usr/sbin/sshd" if Path("/usr/sbin/sshd").exists() else None)


class OpenSshServer:
    """A private OpenSSH ``sshd`` on 127.0.0.1 with a temporary host key and authorized key."""

    def __init__(self, directory: Path, port: int) -> None:
        self.directory = directory
        self.port = port
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> OpenSshServer:
        assert SSHD is not None
        d = self.directory
        for name in ("hostkey", "clientkey"):
            subprocess.run(
                ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / name)], check=True
            )
        shutil.copy(d / "clientkey.pub", d / "authorized_keys")
        Path("/run/sshd").mkdir(exist_ok=True)
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [
                    SSHD,
                    "-D",
                    "-e",
                    "-f",
                    "/dev/null",
                    "-p",
                    str(self.port),
                    "-h",
                    str(d / "hostkey"),
                    "-o",
                    "ListenAddress=127.0.0.1",
                    "-o",
                    "PidFile=none",
                    "-o",
                    "UsePAM=no",
                    "-o",
                    f"AuthorizedKeysFile={d / 'authorized_keys'}",
                    "-o",
                    "StrictModes=no",
                    "-o",
                    "PasswordAuthentication=no",
                    "-o",
                    "KbdInteractiveAuthentication=no",
                    "-o",
                    "PermitRootLogin=prohibit-password",
                    "-o",
                    "LogLevel=ERROR",
                    "-o",
                    "Subsystem=sftp internal-sftp",  # a sessions tree is read over SFTP
                ],
                stdout=subprocess.DEVNULL,
                stderr=log,  # -e: its errors, to say why it did not come up
                start_new_session=True,
            )
        host_key = (d / "hostkey.pub").read_text().split()[:2]
        (d / "known_hosts").write_text(f"[127.0.0.1]:{self.port} {' '.join(host_key)}\n")
        return self

    @property
    def log(self) -> Path:
        return self.directory / "sshd.log"

    async def accepting(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Wait until this sshd listens on its port (a few milliseconds after start when
        idle; ``timeout`` is a hang guard). A port taken since :func:`free_port` chose it
        fails here, with sshd's own words, not later as a refused key."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not self._listening():
            if loop.time() > deadline:
                raise TimeoutError(f"sshd not listening on {self.port} after {timeout:g} s")
            await asyncio.sleep(0.01)  # bounded poll (the deadline above)
        _, writer = await asyncio.open_connection("127.0.0.1", self.port)
        writer.close()

    def _listening(self) -> bool:
        """Whether sshd (not some other process) listens on the port; fails if it exited."""
        assert self.process is not None
        if self.process.poll() is not None:
            said = self.log.read_text(errors="replace").strip()
            raise RuntimeError(f"sshd exited with status {self.process.returncode}: {said}")
        try:
            sockets = psutil.Process(self.process.pid).net_connections(kind="tcp4")
        except psutil.NoSuchProcess:
            return False  # exited just now: the next poll says why
        return any(
            c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == self.port
            for c in sockets
        )

    def environment(self, environment_id: str, cwd: str) -> dict[str, object]:
        """A config's ``[[environments]]`` entry for this server, as :meth:`settings` are."""
        return {
            "id": environment_id,
            "kind": "ssh",
            "cwd": cwd,
            "host": "127.0.0.1",
            "port": self.port,
            "user": getpass.getuser(),
            "identity_files": [str(self.directory / "clientkey")],
            "known_hosts": str(self.directory / "known_hosts"),
        }

    def settings(self, **overrides: Any) -> SshSettings:
        """Settings for this server as the current user, with its temporary keys."""
        values: dict[str, Any] = {
            "host": "127.0.0.1",
            "port": self.port,
            "user": getpass.getuser(),
            "identity_files": (str(self.directory / "clientkey"),),
            "known_hosts": (str(self.directory / "known_hosts"),),
            "read_ssh_config": False,
            "use_agent": False,
        }
        values.update(overrides)
        return SshSettings(**values)

    def children(self) -> list[int]:
        """sshd forks one child per connection; dropping a link means stopping those."""
        assert self.process is not None
        with contextlib.suppress(psutil.NoSuchProcess):
            return [child.pid for child in psutil.Process(self.process.pid).children()]
        return []

    def drop_connections(self) -> None:
        for pid in self.children():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def stop(self) -> None:
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=10)


def environments_toml(entries: list[dict[str, object]]) -> str:
    """Config entries as ``[[environments]]`` tables (JSON values are TOML values)."""
    return "".join(
        "[[environments]]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in entry.items())
        for entry in entries
    )


@contextlib.asynccontextmanager
async def open_ssh_server(directory: Path) -> AsyncIterator[OpenSshServer]:
    """An :class:`OpenSshServer` of ``directory`` on a free port, accepting; stopped at the
    end of the block."""
    server = OpenSshServer(directory, free_port()).start()
    try:
        await server.accepting()
        yield server
    finally:
        server.stop()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
