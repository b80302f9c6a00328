"""The real Codex TUI (in tmux) and envtui on the same real app-server daemon (offline).

The TUI, pointed at the daemon's socket with Codex's own ``--remote``, runs a turn whose
model asks to run a command outside the sandbox; the TUI shows its approval prompt. envtui,
attached to the same daemon, shows the thread waiting and the request with its
environment; declined with envtui's keys, the TUI's prompt closes and Codex records the
rejection. Approved in the TUI instead, envtui says it was answered elsewhere. The TUI's
short-lived title thread is never listed as a thread of work.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from websockets.asyncio.client import unix_connect
from websockets.asyncio.server import ServerConnection, unix_serve

from tests.support.real.codex_approvals import escalated
from tests.support.real.codex_daemon import ServedDaemon, daemon_home, short_root
from tests.support.real.codex_tools import CODEX, needs_codex
from tests.support.real.codex_tui import PROMPT, TMUX, answer_in_tui, codex_tui, pane
from tests.support.real.ssh_servers import SSHD, OpenSshServer, free_port
from tests.support.waiting import pilot_wait_until, wait_until

from envtui.dashboard.needs_you import log_detail
from envtui.environments.daemon.address import DaemonAddress
from envtui.environments.daemon.client import READ_METHODS
from envtui.sources.daemon.attach import DaemonOptions, DaemonSource
from envtui.sources.recording import recorded
from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.needs_you.confirm import ConfirmAnswer
from envtui.vocabulary.events import decode_event
from envtui.vocabulary.thread_messages import RequestAnswered, RequestResolved

pytestmark = [
    needs_codex,
    pytest.mark.skipif(TMUX is None, reason="needs tmux"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]
REJECTED_IN_TUI = "Exited (status 1) echo from-tui"
ASKED = "go"


def _source(daemon: ServedDaemon) -> DaemonSource:
    return DaemonSource(DaemonOptions(address=DaemonAddress(path=daemon.socket)))


async def _ask(pilot: Pilot[Any], app: EnvTuiApp) -> None:
    """Wait until envtui shows what Codex asks in the TUI's first turn."""
    await pilot_wait_until(
        pilot,
        lambda: bool(app.store.needs_you.unanswered()),
        timeout=90,
        what="the request in envtui",
    )


async def test_declined_in_envtui_the_tuis_prompt_closes_and_codex_records_the_rejection() -> None:
    with daemon_home([escalated("echo from-tui", "devbox"), {"message": "done"}]) as daemon:
        source = _source(daemon)
        app = EnvTuiApp(source, DashboardOptions(source_name="codex daemon", answers=source))
        with codex_tui(daemon, ASKED) as socket:
            async with app.run_test(size=(160, 50)) as pilot:
                await _ask(pilot, app)
                (request,) = app.store.needs_you.unanswered()
                assert request.msg.environment_id == "devbox"
                assert app.store.needs_you.status == "waiting_on_approval"
                await pilot_wait_until(pilot, lambda: PROMPT in pane(socket), what="the prompt")
                assert source.client is not None
                work = [t.id for t in source.client.work_threads()]
                assert work == [request.msg.thread]  # not the title thread beside it
                await pilot.press("x")
                await pilot_wait_until(
                    pilot, lambda: isinstance(app.screen, ConfirmAnswer) and app.screen.armed
                )
                await pilot.press("y")
                await pilot_wait_until(
                    pilot, lambda: PROMPT not in pane(socket), timeout=30, what="the prompt closed"
                )
                path = Path(str(source.client.threads[str(request.msg.thread)].path))
                await pilot_wait_until(
                    pilot, lambda: "rejected by user" in path.read_text(), timeout=60
                )
                # the TUI shows the command as not run: Codex's words for a declined call
                await pilot_wait_until(
                    pilot,
                    lambda: REJECTED_IN_TUI in pane(socket) and "(no output)" in pane(socket),
                    timeout=30,
                    what="the TUI showing the command rejected",
                )
                await pilot.press("q")


async def test_approved_in_the_tui_envtui_says_answered_elsewhere(tmp_path: Path) -> None:
    with daemon_home([escalated("echo from-tui", "devbox"), {"message": "done"}]) as daemon:
        source = _source(daemon)
        recording = tmp_path / "recording.jsonl"
        app = EnvTuiApp(
            recorded(source, recording),
            DashboardOptions(source_name="codex daemon", answers=source),
        )
        with codex_tui(daemon, ASKED) as socket:
            async with app.run_test(size=(160, 50)) as pilot:
                await _ask(pilot, app)
                await pilot_wait_until(pilot, lambda: PROMPT in pane(socket), what="the prompt")
                await answer_in_tui(socket, "y")
                await pilot_wait_until(
                    pilot, lambda: not app.store.needs_you.pending, timeout=30, what="resolved"
                )
                await pilot.press("q")
    events = [decode_event(line) for line in recording.read_text().splitlines()]
    (resolved,) = [e.msg for e in events if isinstance(e.msg, RequestResolved)]
    assert resolved.how == "elsewhere"
    assert "answered elsewhere" in log_detail(resolved)
    assert not [e for e in events if isinstance(e.msg, RequestAnswered)]


class RecordingProxy:
    """A websocket proxy on a Unix socket of its own, in front of the daemon's: every text
    envtui sends is kept, then relayed; what the daemon says is relayed back."""

    def __init__(self, daemon: Path, path: Path) -> None:
        self.daemon, self.path = daemon, path
        self.sent: list[dict[str, Any]] = []

    async def relay(self, envtui: ServerConnection) -> None:
        async with unix_connect(str(self.daemon), uri="ws://localhost/", max_size=None) as up:

            async def down() -> None:
                async for text in up:
                    await envtui.send(text)

            task = asyncio.ensure_future(down())
            try:
                async for text in envtui:
                    self.sent.append(json.loads(text))
                    await up.send(text)
            finally:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task


async def test_read_only_through_a_recording_proxy_sends_only_reads_and_leaves_the_prompt(
    tmp_path: Path,
) -> None:
    with daemon_home([escalated("echo read-only", "devbox"), {"message": "done"}]) as daemon:
        root = short_root()  # a socket's path is short
        proxy = RecordingProxy(daemon.socket, root / "proxy.sock")
        out = tmp_path / "events.jsonl"
        async with unix_serve(proxy.relay, str(proxy.path)):
            envtui = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "envtui", "events", "--codex", "--read-only",
                "--remote", f"unix://{proxy.path}", "--out", str(out),
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
            try:
                with codex_tui(daemon, ASKED) as socket:
                    await wait_until(
                        lambda: out.exists() and '"request_pending"' in out.read_text(),
                        timeout=90,
                        what="the request seen by envtui through the proxy",
                    )
                    await wait_until(lambda: PROMPT in pane(socket), what="the TUI's prompt")
                    methods = [m.get("method") for m in proxy.sent]
                    assert set(methods) <= READ_METHODS, methods
                    assert all("method" in m for m in proxy.sent), "envtui answered something"
                    resumes = [
                        m["params"] for m in proxy.sent if m.get("method") == "thread/resume"
                    ]
                    assert resumes
                    assert all(p.get("excludeTurns") is True for p in resumes)
                    await answer_in_tui(socket, "y")  # the user answers, in the TUI
                    await wait_until(
                        lambda: '"request_resolved"' in out.read_text(),
                        timeout=30,
                        what="envtui's record of the request resolved",
                    )
            finally:
                envtui.send_signal(signal.SIGINT)
                _, stderr = await asyncio.wait_for(envtui.communicate(), timeout=60)
        shutil.rmtree(root, ignore_errors=True)
        assert envtui.returncode == 0, stderr
        lines = [json.loads(line)["msg"] for line in out.read_text().splitlines()]
        assert not [m for m in lines if m["type"] == "request_answered"]
        assert "-32600" not in out.read_text()


@pytest.mark.skipif(SSHD is None, reason="needs OpenSSH sshd (Debian openssh-server)")
async def test_over_ssh_declined_in_envtui_the_tui_shows_the_command_rejected(
    tmp_path: Path,
) -> None:
    server = OpenSshServer(tmp_path, free_port()).start()
    try:
        await server.accepting()
        with daemon_home([escalated("echo from-tui", "devbox"), {"message": "done"}]) as daemon:
            options = DaemonOptions(
                address=DaemonAddress(path=daemon.socket),
                ssh=server.settings(),
                codex=str(CODEX),
                codex_home=daemon.codex.home,
            )
            source = DaemonSource(options)
            recording = tmp_path / "recording.jsonl"
            app = EnvTuiApp(
                recorded(source, recording),
                DashboardOptions(source_name="codex daemon", answers=source),
            )
            with codex_tui(daemon, ASKED) as socket:
                async with app.run_test(size=(160, 50)) as pilot:
                    await _ask(pilot, app)
                    (request,) = app.store.needs_you.unanswered()
                    assert request.msg.environment_id == "devbox"
                    await pilot_wait_until(pilot, lambda: PROMPT in pane(socket), what="prompt")
                    await pilot.press("x")
                    await pilot_wait_until(
                        pilot, lambda: isinstance(app.screen, ConfirmAnswer) and app.screen.armed
                    )
                    await pilot.press("y")
                    await pilot_wait_until(
                        pilot,
                        lambda: REJECTED_IN_TUI in pane(socket),
                        timeout=60,
                        what="the TUI showing the command rejected",
                    )
                    await pilot_wait_until(
                        pilot,
                        lambda: bool(app.store.steps),
                        timeout=60,
                        what="the thread's rollout read over ssh",
                    )
                    await pilot.press("q")
        assert "-32600" not in recording.read_text()
        assert "codex app-server proxy" in recording.read_text()  # attached through the proxy
    finally:
        server.stop()
