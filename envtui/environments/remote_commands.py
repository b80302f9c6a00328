"""Running one command on an SSH host, with a bound on what it may print and how long.

``connection.run`` keeps whatever the host sends until the command ends: a host whose
output never ends would fill memory. Every command envtui runs on a host (the probe, the
rollout of an app-server on that host) goes through :func:`run_bounded` instead.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import asyncssh

from envtui.vocabulary.limits import TooLargeError


@dataclass(frozen=True)
class Output:
    """What a command on a host printed, and how it ended."""

    exit_status: int | None
    stdout: str
    stderr: str


async def run_bounded(
    connection: asyncssh.SSHClientConnection,
    command: str,
    *,
    limit: int,
    timeout: float,
    what: str,
) -> Output:
    """Run ``command`` on the host; at most ``limit`` bytes of each output, ``timeout`` seconds.

    ``connection.run`` would keep whatever the host sends until it stops: a host whose
    output never ends would fill memory. Here more than ``limit`` bytes is a
    :class:`~envtui.vocabulary.limits.TooLargeError` ("probe output over 1 MiB"), and the command is
    closed. Output that is not UTF-8 is decoded with replacement characters.
    """
    async with asyncio.timeout(timeout):
        process = await connection.create_process(command, encoding=None)
        try:
            process.stdin.write_eof()
            stdout, stderr = await asyncio.gather(
                _read_at_most(process.stdout, limit, what),
                _read_at_most(process.stderr, limit, what),
            )
            await process.wait_closed()
        finally:
            process.close()
    return Output(
        process.exit_status,
        stdout.decode("utf-8", errors="replace"),
        stderr.decode("utf-8", errors="replace"),
    )


async def _read_at_most(stream: asyncssh.SSHReader[bytes], limit: int, what: str) -> bytes:
    data = bytearray()
    while chunk := await stream.read(65536):
        data += chunk
        if len(data) > limit:
            raise TooLargeError(what, limit)
    return bytes(data)
