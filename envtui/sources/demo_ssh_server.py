"""A small in-process SSH server on 127.0.0.1, for the demo (and tests): no set-up at all.

It accepts one client key, runs envtui's probe command, and can be made slow to
authenticate, never to authenticate, or to drop every connection, so the demo shows real
SSH behaviour: starting, ready, lost, back again.
"""

from __future__ import annotations

import asyncio
import os

import asyncssh

COMMANDS_KEPT = 100
"""Commands a server remembers (tests read them); older ones are dropped."""


class DemoSshServer:
    def __init__(
        self,
        client_key: asyncssh.SSHKey,
        *,
        shell: str = "/bin/bash",
        auth_delay: float = 0.0,
        host_key: asyncssh.SSHKey | None = None,
        sftp: bool = False,
    ) -> None:
        self.client_key = client_key
        self.host_key = host_key or asyncssh.generate_private_key("ssh-ed25519")
        self.shell = shell
        self.auth_delay = auth_delay  # float("inf"): never authenticates (stays starting)
        self.sftp = sftp  # also serve this machine's files over SFTP (tests of sessions --ssh)
        self.commands: list[str] = []  # the last COMMANDS_KEPT commands it ran
        self.live: set[asyncssh.SSHServerConnection] = set()
        self.port = 0
        self.refusing = False
        self._acceptor: asyncssh.SSHAcceptor | None = None

    async def start(self) -> DemoSshServer:
        owner = self

        class _Server(asyncssh.SSHServer):
            def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
                self._conn = conn
                if owner.refusing:
                    conn.abort()
                    return
                owner.live.add(conn)

            def connection_lost(self, exc: Exception | None) -> None:
                owner.live.discard(self._conn)

            async def begin_auth(self, username: str) -> bool:
                delay = owner.auth_delay
                if delay == float("inf"):
                    await asyncio.Event().wait()
                elif delay:
                    await asyncio.sleep(delay)
                return True

        self._acceptor = await asyncssh.create_server(
            _Server,
            "127.0.0.1",
            self.port,
            server_host_keys=[self.host_key],
            authorized_client_keys=asyncssh.import_authorized_keys(
                self.client_key.export_public_key().decode()
            ),
            process_factory=self._run_command,
            sftp_factory=True if self.sftp else None,
        )
        self.port = self._acceptor.sockets[0].getsockname()[1]
        return self

    def note_command(self, command: str) -> None:
        """Remember ``command``; only the last few, however long the demo runs."""
        self.commands.append(command)
        del self.commands[:-COMMANDS_KEPT]

    async def _run_command(self, process: asyncssh.SSHServerProcess[str]) -> None:
        command = process.command or "true"
        self.note_command(command)
        proc = await asyncio.create_subprocess_shell(
            command,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "SHELL": self.shell},
        )
        out, err = await proc.communicate()
        process.stdout.write(out.decode(errors="replace"))
        process.stderr.write(err.decode(errors="replace"))
        process.exit(proc.returncode or 0)

    def known_hosts_line(self) -> str:
        algorithm, blob = self.host_key.export_public_key().decode().split()[:2]
        return f"[127.0.0.1]:{self.port} {algorithm} {blob}\n"

    def drop_all(self) -> None:
        """Every connection goes away at once, as when a host reboots."""
        for connection in list(self.live):
            connection.abort()
        self.live.clear()

    async def close(self) -> None:
        self.drop_all()
        if self._acceptor is not None:
            self._acceptor.close()
            await self._acceptor.wait_closed()
            self._acceptor = None
