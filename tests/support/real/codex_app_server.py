"""Driving a real ``codex app-server`` (in an empty network) to produce rollouts for tests."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self

from tests.support.real.codex_tools import CODEX, offline


class AppServer:
    """A minimal JSON-RPC client of ``codex app-server`` over stdio, for test set-up only."""

    def __init__(self, codex_home: Path, *features: str) -> None:
        self.codex_home = codex_home
        self.features = features
        self.notifications: list[dict[str, Any]] = []
        self._next = 0
        self._process: asyncio.subprocess.Process | None = None

    def command(self, *args: str) -> list[str]:
        """The app-server's command line: the codex binary in an empty network namespace."""
        return offline(str(CODEX), *args)

    def environment(self) -> dict[str, str]:
        return {**os.environ, "CODEX_HOME": str(self.codex_home)}

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    async def __aenter__(self) -> Self:
        args = ["app-server"] + [arg for feature in self.features for arg in ("--enable", feature)]
        self._process = await asyncio.create_subprocess_exec(
            *self.command(*args),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
            env=self.environment(), limit=1 << 24, start_new_session=True,
        )  # fmt: skip
        await self.request(
            "initialize",
            {
                "clientInfo": {"name": "envtui-tests", "title": None, "version": "0"},
                "capabilities": {"experimentalApi": True},
            },
        )
        await self.notify("initialized")
        return self

    async def __aexit__(self, *exc: object) -> None:
        process = self._process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, 9)
            await process.wait()
        if process is not None and process.stdin is not None:
            process.stdin.close()  # or asyncio closes it when collected, after the loop is gone

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        await self._send({"method": method, **({"params": params} if params is not None else {})})

    async def _send(self, message: dict[str, Any]) -> None:
        assert self._process is not None
        assert self._process.stdin is not None
        self._process.stdin.write((json.dumps(message) + "\n").encode())
        await self._process.stdin.drain()

    async def request(
        self, method: str, params: dict[str, Any], timeout: float = 60
    ) -> dict[str, Any]:
        self._next += 1
        request_id = self._next
        await self._send({"id": request_id, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            message = await self._read(deadline)
            if message.get("id") == request_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message["result"]
                return result

    async def _read(self, deadline: float) -> dict[str, Any]:
        assert self._process is not None
        assert self._process.stdout is not None
        line = await asyncio.wait_for(
            self._process.stdout.readline(), timeout=max(0.1, deadline - time.monotonic())
        )
        if not line:
            raise RuntimeError("codex app-server exited")
        message: dict[str, Any] = json.loads(line)
        if "method" in message and "id" not in message:
            self.notifications.append(message)
        return message

    async def pump(self, seconds: float) -> None:
        """Read notifications for a while."""
        deadline = time.monotonic() + seconds
        with contextlib.suppress(TimeoutError):
            while time.monotonic() < deadline:
                await self._read(deadline)

    async def until(self, condition: Callable[[], bool], timeout: float, what: str) -> None:
        """Read notifications until ``condition`` holds; fail after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout} s waiting for {what}")
            await self.pump(0.1)

    def notified(self, method: str) -> bool:
        return any(n["method"] == method for n in self.notifications)


def rollout_file(codex_home: Path) -> Path | None:
    files = sorted(codex_home.glob("sessions/*/*/*/rollout-*.jsonl"))
    return files[-1] if files else None


def turn_ended(path: Path | None) -> bool:
    """Whether the rollout records the end of a turn (completed, or aborted by an interrupt)."""
    if path is None or not path.exists():
        return False
    text = path.read_text()
    return '"type":"turn_aborted"' in text or '"type":"task_complete"' in text


def world_states(path: Path | None) -> int:
    if path is None or not path.exists():
        return 0
    return sum('"type":"world_state"' in line for line in path.read_text().splitlines())


async def record_turn(
    codex_home: Path, cwd: Path, *features: str, settle_after: str | None = None, wait: float = 60
) -> Path:
    """Start a thread in ``cwd`` and one turn; return its rollout once it holds the context.

    The model call cannot succeed without a network, but the rollout records the context and
    the tools first. ``settle_after`` names a notification (for example
    ``thread/environment/connected``) to wait for before ending the turn.
    """
    async with AppServer(codex_home, *features) as server:
        thread = (await server.request("thread/start", {"cwd": str(cwd)}))["thread"]
        turn = (
            await server.request(
                "turn/start",
                {"threadId": thread["id"], "input": [{"type": "text", "text": "hello"}]},
            )
        )["turn"]
        await server.until(
            lambda: (
                bool(world_states(rollout_file(codex_home)))
                and (settle_after is None or server.notified(settle_after))
            ),
            timeout=wait,
            what=f"the context in the rollout{f' and {settle_after}' if settle_after else ''}",
        )
        with contextlib.suppress(Exception):  # the turn may have ended already
            await server.request(
                "turn/interrupt", {"threadId": thread["id"], "turnId": turn["id"]}, timeout=10
            )
        await server.until(
            lambda: server.notified("turn/completed") and turn_ended(rollout_file(codex_home)),
            timeout=30,
            what="the end of the turn in the rollout",
        )
    path = rollout_file(codex_home)
    assert path is not None, "codex wrote no rollout"
    return path
