"""envtui on the real managed daemon (``codex app-server daemon start``), offline: one home
per test session (its first start copies 424 MB). The daemon is restarted under envtui,
which says the source is down with the reason, then attaches and lists again by itself."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.real.codex_tools import needs_codex
from tests.support.real.managed_daemon import daemon_command, daemon_pids, end_daemon
from tests.support.waiting import running, wait_until

from envtui.environments.daemon.address import DaemonAddress
from envtui.environments.daemon_socket import daemon_socket
from envtui.sources.daemon.attach import DaemonOptions, DaemonSource
from envtui.vocabulary.events import Event, SourceStatus, WarningMessage

pytestmark = [needs_codex, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


@pytest.fixture(scope="session")
def managed_home() -> Iterator[Path]:
    """A CODEX_HOME whose daemon was started once (kept for the session), ended at its end."""
    home = Path(tempfile.mkdtemp(prefix="cxm"))
    left: list[int] = []
    try:
        started = daemon_command(home, "start")
        assert started.returncode == 0, started.stderr[-2000:]
        yield home
    finally:
        daemon_command(home, "stop")  # leaves the update loop running: ended by its pid
        end_daemon(home)
        left = daemon_pids(home)
        shutil.rmtree(home, ignore_errors=True)
    assert left == [], f"the daemon's processes outlived it: {left}"


def _states(events: list[Event]) -> list[str]:
    return [e.msg.state for e in events if isinstance(e.msg, SourceStatus)]


def _attaches(events: list[Event]) -> int:
    """How many times the source attached and listed the daemon's threads."""
    said = [e.msg.message for e in events if isinstance(e.msg, WarningMessage)]
    return sum(m.startswith("attached to the codex app-server daemon") for m in said)


async def test_a_restarted_daemon_is_said_down_then_attached_and_listed_again(
    managed_home: Path,
) -> None:
    if not daemon_socket(managed_home).exists():
        assert daemon_command(managed_home, "start").returncode == 0
    events: list[Event] = []
    address = DaemonAddress(path=daemon_socket(managed_home))
    source = DaemonSource(DaemonOptions(address=address))
    async with running(lambda stop: source.run(events.append, stop)):
        await wait_until(lambda: _states(events) == ["up"], what="attached")
        restarted = daemon_command(managed_home, "restart")
        assert restarted.returncode == 0, restarted.stderr[-2000:]
        await wait_until(lambda: _states(events).count("up") == 2, what="attached again")
        assert source.unavailable() is None
    down = [e.msg for e in events if isinstance(e.msg, SourceStatus) and e.msg.state == "down"]
    assert down
    assert "daemon" in (down[0].reason or "")
    assert source.restarts >= 1
    assert _attaches(events) == 2  # listed anew on the new daemon


async def test_a_stopped_daemon_is_said_unavailable_until_it_is_started_again(
    managed_home: Path,
) -> None:
    if not daemon_socket(managed_home).exists():
        assert daemon_command(managed_home, "start").returncode == 0
    events: list[Event] = []
    address = DaemonAddress(path=daemon_socket(managed_home))
    source = DaemonSource(DaemonOptions(address=address))
    async with running(lambda stop: source.run(events.append, stop)):
        await wait_until(lambda: _states(events) == ["up"], what="attached")
        stopped = daemon_command(managed_home, "stop")
        assert stopped.returncode == 0, stopped.stderr[-2000:]
        await wait_until(lambda: source.down is not None, what="said away")
        await wait_until(lambda: source.restarts >= 1, what="tried again while it is stopped")
        away = source.unavailable()
        assert away is not None
        assert "daemon" in away.reason
        assert source.thread_choices() == []
        started = daemon_command(managed_home, "start")
        assert started.returncode == 0, started.stderr[-2000:]
        await wait_until(lambda: source.unavailable() is None, timeout=60, what="attached again")
    assert _attaches(events) == 2
    assert "down" in _states(events)
