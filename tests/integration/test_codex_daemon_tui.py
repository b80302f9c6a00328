"""The real Codex TUI (in tmux) and envtui on the same real app-server daemon (offline).

The TUI, pointed at the daemon's socket with Codex's own ``--remote``, runs a turn whose
model asks to run a command outside the sandbox; the TUI shows its approval prompt. envtui,
attached to the same daemon, shows the thread waiting and the request with its
environment; declined with envtui's keys, the TUI's prompt closes and Codex records the
rejection. Approved in the TUI instead, envtui says it was answered elsewhere. The TUI's
short-lived title thread is never listed as a thread of work.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.support.real.codex_approvals import escalated
from tests.support.real.codex_daemon import ServedDaemon, daemon_home
from tests.support.real.codex_tools import CODEX, needs_codex
from tests.support.waiting import pilot_wait_until

from envtui.dashboard.needs_you import log_detail
from envtui.environments.daemon.address import DaemonAddress
from envtui.sources.daemon.attach import DaemonOptions, DaemonSource
from envtui.sources.recording import recorded
from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.needs_you.confirm import ConfirmAnswer
from envtui.vocabulary.events import decode_event
from envtui.vocabulary.thread_messages import RequestAnswered, RequestResolved

TMUX = shutil.which("tmux")
pytestmark = [
    needs_codex,
    pytest.mark.skipif(TMUX is None, reason="needs tmux"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]
PROMPT = "Would you like to run the following command?"


def _tmux(socket: str, *args: str) -> str:
    assert TMUX is not None
    done = subprocess.run([TMUX, "-L", socket, *args], capture_output=True, text=True, timeout=30)
    return done.stdout


@contextlib.contextmanager
def _codex_tui(daemon: ServedDaemon) -> Iterator[str]:
    """The real Codex TUI in tmux, a client of ``daemon``; the tmux socket's name."""
    socket = f"envtui-codex-{daemon.process.pid}"
    command = (
        f"env CODEX_HOME={daemon.codex.home} {CODEX} --remote unix://{daemon.socket}; sleep 600"
    )
    _tmux(socket, "new-session", "-d", "-s", "tui", "-x", "160", "-y", "45", "-c",
          str(daemon.codex.work), command)  # fmt: skip
    try:
        yield socket
    finally:
        _tmux(socket, "kill-server")


def _pane(socket: str) -> str:
    return _tmux(socket, "capture-pane", "-p", "-t", "tui")


def _source(daemon: ServedDaemon) -> DaemonSource:
    return DaemonSource(DaemonOptions(address=DaemonAddress(path=daemon.socket)))


async def _ask(pilot: Pilot[Any], socket: str, app: EnvTuiApp) -> None:
    """Type a prompt into the TUI and wait until envtui shows what Codex asks."""
    await pilot_wait_until(pilot, lambda: "Ask Codex" in _pane(socket), what="the TUI")
    _tmux(socket, "send-keys", "-t", "tui", "go")
    await pilot_wait_until(pilot, lambda: "\u203a go" in _pane(socket), what="the typed prompt")
    _tmux(socket, "send-keys", "-t", "tui", "Enter")
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
        with _codex_tui(daemon) as socket:
            async with app.run_test(size=(160, 50)) as pilot:
                await _ask(pilot, socket, app)
                (request,) = app.store.needs_you.unanswered()
                assert request.msg.environment_id == "devbox"
                assert app.store.needs_you.status == "waiting_on_approval"
                await pilot_wait_until(pilot, lambda: PROMPT in _pane(socket), what="the prompt")
                assert source.client is not None
                work = [t.id for t in source.client.work_threads()]
                assert work == [request.msg.thread]  # not the title thread beside it
                await pilot.press("x")
                await pilot_wait_until(
                    pilot, lambda: isinstance(app.screen, ConfirmAnswer) and app.screen.armed
                )
                await pilot.press("y")
                await pilot_wait_until(
                    pilot, lambda: PROMPT not in _pane(socket), timeout=30, what="the prompt closed"
                )
                path = Path(str(source.client.threads[str(request.msg.thread)].path))
                await pilot_wait_until(
                    pilot, lambda: "rejected by user" in path.read_text(), timeout=60
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
        with _codex_tui(daemon) as socket:
            async with app.run_test(size=(160, 50)) as pilot:
                await _ask(pilot, socket, app)
                await pilot_wait_until(pilot, lambda: PROMPT in _pane(socket), what="the prompt")
                _tmux(socket, "send-keys", "-t", "tui", "y")
                await pilot_wait_until(
                    pilot, lambda: not app.store.needs_you.pending, timeout=30, what="resolved"
                )
                await pilot.press("q")
    events = [decode_event(line) for line in recording.read_text().splitlines()]
    (resolved,) = [e.msg for e in events if isinstance(e.msg, RequestResolved)]
    assert resolved.how == "elsewhere"
    assert "answered elsewhere" in log_detail(resolved)
    assert not [e for e in events if isinstance(e.msg, RequestAnswered)]
