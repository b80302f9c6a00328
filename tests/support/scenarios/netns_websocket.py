"""Run inside ``unshare -n``: a real ``codex exec-server`` on ws://127.0.0.1, then killed.

Prints one JSON object with what envtui saw. The namespace is empty, so the loopback is
brought up first; only processes inside it can reach the server.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time

from envtui.environments.exec_server import ExecServerEnvironment, ExecServerSettings
from envtui.environments.manager import EnvironmentManager
from envtui.steps.selection import Selection
from envtui.vocabulary.events import (
    EnvironmentConnected,
    EnvironmentDisconnected,
    EnvironmentStatus,
    Event,
)

PORT = 47631


async def main(codex: str) -> dict[str, object]:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    server = subprocess.Popen(
        [codex, "exec-server", "--listen", f"ws://127.0.0.1:{PORT}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    events: list[Event] = []
    manager = EnvironmentManager(events.append)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", PORT)
                writer.close()
                break
            except OSError:
                await asyncio.sleep(0.05)  # bounded poll (the deadline) until the server listens
        settings = ExecServerSettings(
            url=f"ws://127.0.0.1:{PORT}", backoff_initial=30, backoff_max=30
        )
        manager.register(ExecServerEnvironment("ws", "/w", settings))
        manager.update_selections([Selection("ws", "/w")])
        (entry,) = (await manager.snapshot_blocking(timeout=30)).entries
        os.kill(server.pid, signal.SIGKILL)  # only that process
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any(
            isinstance(e.msg, EnvironmentDisconnected) for e in events
        ):
            await asyncio.sleep(0.05)  # bounded poll (the deadline) for the disconnection
        return {
            "state": entry.state,
            "shell": entry.readiness.shell_name if entry.readiness else None,
            "error": entry.error,
            "connection": [
                [e.id, e.msg.type]
                for e in events
                if isinstance(e.msg, EnvironmentConnected | EnvironmentDisconnected)
            ],
            "unavailable": [
                e.msg.error
                for e in events
                if isinstance(e.msg, EnvironmentStatus) and e.msg.status == "unavailable"
            ],
        }
    finally:
        await manager.aclose()
        server.kill()
        server.wait()


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1]))))
