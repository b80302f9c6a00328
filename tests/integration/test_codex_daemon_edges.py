"""The protocol's edges on the real Codex 0.171 app-server daemon (offline).

What envtui sends at ``initialize`` is held to Codex's own schema (``codex app-server
generate-json-schema --experimental``): its name, and the notification methods it opts out
of, each one Codex really sends. On the real daemon: envtui names itself ``envtui``; the
``thread/goal/cleared`` its subscription makes is heard and is no news; a ``codex exec``
thread (embedded: the daemon does not hold it) has its rollout written in the same home but
is not in the live list (``envtui sessions`` shows it).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.real.codex_approvals import approval_codex, escalated
from tests.support.real.codex_daemon import Owner, daemon_home, short_root
from tests.support.real.codex_tools import CODEX, needs_codex
from tests.support.waiting import running, wait_until

from envtui.environments.daemon.address import DaemonAddress
from envtui.environments.daemon.client import CLIENT_NAME, OPTED_OUT, READ_METHODS, DaemonClient
from envtui.environments.daemon_socket import DaemonSocketChannel
from envtui.environments.jsonrpc import MessageChannel
from envtui.sources.daemon.attach import DaemonOptions, DaemonSource
from envtui.vocabulary.events import Event
from envtui.vocabulary.thread_messages import RequestAnswered, RequestPending, RequestResolved

pytestmark = [needs_codex, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


class Both:
    """The channel to the socket, with every message sent and received kept."""

    def __init__(self, socket: Path) -> None:
        self.socket = socket
        self.sent: list[dict[str, Any]] = []
        self.heard: list[dict[str, Any]] = []

    async def __call__(self) -> MessageChannel:
        channel = await DaemonSocketChannel.connect(self.socket)
        send, receive = channel.send, channel.receive

        async def sent(text: str) -> None:
            self.sent.append(json.loads(text))
            await send(text)

        async def received() -> str | None:
            text = await receive()
            if text is not None:
                self.heard.append(json.loads(text))
            return text

        channel.send = sent  # type: ignore[method-assign]
        channel.receive = received  # type: ignore[method-assign]
        return channel


def _schema(folder: Path) -> Path:
    assert CODEX is not None
    made = subprocess.run(
        [str(CODEX), "app-server", "generate-json-schema", "--experimental", "--out", str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert made.returncode == 0, made.stderr
    return folder


def _methods(path: Path) -> set[str]:
    """The ``method`` values a union of messages in Codex's schema allows."""
    union = json.loads(path.read_text())
    found: set[str] = set()
    for variant in union.get("oneOf", []):
        found.update(variant.get("properties", {}).get("method", {}).get("enum", []))
    return found


def test_what_envtui_sends_at_initialize_is_codexs_own(tmp_path: Path) -> None:
    schema = _schema(tmp_path / "schema")
    notifications = _methods(schema / "ServerNotification.json")
    assert set(OPTED_OUT) <= notifications  # a name Codex never sends would opt out of nothing
    assert "thread/goal/cleared" in notifications
    requests = _methods(schema / "ClientRequest.json")
    assert READ_METHODS - {"initialized"} <= requests
    assert "initialized" in _methods(schema / "ClientNotification.json")
    params = json.loads((schema / "v1" / "InitializeParams.json").read_text())
    capabilities = params["definitions"]["InitializeCapabilities"]["properties"]
    assert {"experimentalApi", "optOutNotificationMethods"} <= set(capabilities)
    assert params["definitions"]["ClientInfo"]["required"] == ["name", "version"]
    assert CLIENT_NAME == "envtui"


async def test_envtui_names_itself_and_a_resumes_goal_cleared_is_no_news() -> None:
    with daemon_home([escalated("echo not-run", "devbox"), {"message": "done"}]) as daemon:
        owner = await Owner.connect(daemon.socket)
        both, events = Both(daemon.socket), list[Event]()
        client = DaemonClient(both, events.append)
        try:
            await client.connect()
            await client.list_threads()
            thread = await owner.start_turn(daemon.codex.work)
            await wait_until(lambda: _of(events, RequestPending) != [], timeout=90)
            (initialize,) = [m for m in both.sent if m.get("method") == "initialize"]
            assert initialize["params"]["clientInfo"]["name"] == "envtui"
            opted = initialize["params"]["capabilities"]["optOutNotificationMethods"]
            assert opted == list(OPTED_OUT)
            resumed = [m for m in both.sent if m.get("method") == "thread/resume"]
            assert resumed
            assert all(m["params"]["excludeTurns"] is True for m in resumed)
            await wait_until(
                lambda: "thread/goal/cleared" in _heard(both), timeout=30, what="goal cleared"
            )
            assert not set(OPTED_OUT) & set(_heard(both))  # the daemon honoured the opt-out
            assert "thread/goal/cleared" not in client.unknown
            assert not [e for e in events if "goal" in e.model_dump_json()]
            (request,) = _of(events, RequestPending)
            decline = RequestAnswered(
                request_id=request.request_id, kind="command", answer="decline", thread=thread
            )
            assert client.answer(decline) is None  # resolved: the daemon stops at once
            await wait_until(lambda: _of(events, RequestResolved) != [], timeout=30)
        finally:
            await client.aclose()
            await owner.aclose()


def _of(events: list[Event], kind: type) -> list[Any]:
    return [e.msg for e in events if isinstance(e.msg, kind)]


def _heard(both: Both) -> list[str]:
    return [m["method"] for m in both.heard if "method" in m and "id" not in m]


def _exec_in(home: Path, root: Path) -> None:
    """A ``codex exec`` turn in ``home`` (its own stand-in answers it): it runs embedded."""
    codex = approval_codex(root, [{"message": "done by exec"}])
    done = subprocess.run(
        [str(codex.program), "exec", "--skip-git-repo-check", "-C", str(codex.work), "hi"],
        env={**os.environ, "CODEX_HOME": str(home)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr


async def test_a_codex_exec_thread_written_in_the_home_is_not_in_the_live_list() -> None:
    root = short_root()
    with daemon_home([{"message": "done"}]) as daemon:
        try:
            await asyncio.to_thread(_exec_in, daemon.codex.home, root / "exec")
            owner = await Owner.connect(daemon.socket)
            source = DaemonSource(DaemonOptions(address=DaemonAddress(path=daemon.socket)))
            try:
                work = await owner.start_turn(daemon.codex.work)
                async with running(lambda stop: source.run(lambda event: None, stop)):
                    await wait_until(
                        lambda: work in [c.id for c in source.thread_choices()], timeout=60
                    )
                    rollouts = (daemon.codex.home / "sessions").rglob("rollout-*.jsonl")
                    (embedded,) = [r for r in rollouts if not r.stem.endswith(work)]
                    assert '"source":"exec"' in embedded.read_text().replace(" ", "")
                    assert source.client is not None
                    assert not [t for t in source.client.threads if embedded.stem.endswith(t)]
                    assert [c.id for c in source.thread_choices()] == [work]
            finally:
                await owner.aclose()
        finally:
            shutil.rmtree(root, ignore_errors=True)
