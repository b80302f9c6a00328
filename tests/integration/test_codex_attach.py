"""Attaching to the real ``codex app-server`` 0.171.0, always in an empty network namespace."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.support.liveness import alive
from tests.support.real.codex_tools import needs_codex, offline_codex, stdio_remote
from tests.support.real.ssh_servers import SSHD, OpenSshServer, free_port
from tests.support.waiting import pilot_wait_until, poll_until, running, wait_until

from envtui.cli import main
from envtui.commands.dashboard_sources import RunProcesses
from envtui.dashboard.store import Store
from envtui.environments import processes
from envtui.environments.backoff import Backoff
from envtui.sources.codex_attach import CodexOptions, CodexSource
from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.widgets import EnvironmentTable
from envtui.vocabulary.events import (
    EnvironmentConnected,
    EnvironmentDisconnected,
    EnvironmentStatus,
    Event,
    StepRecorded,
)

pytestmark = needs_codex


def _home(tmp_path: Path, environments: str) -> tuple[Path, Path]:
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    (home / "environments.toml").write_text(environments)
    return home, work


@contextlib.asynccontextmanager
async def attached(
    tmp_path: Path, environments: str, *features: str, prompt: str | None = None
) -> AsyncIterator[tuple[CodexSource, Store, list[Event]]]:
    home, work = _home(tmp_path, environments)
    events: list[Event] = []
    store = Store()

    def sink(event: Event) -> None:
        events.append(event)
        store.apply(event)

    options = CodexOptions(
        codex=str(offline_codex(tmp_path)),
        codex_home=home,
        cwd=str(work),
        poll_interval=0.3,
        features=features,
        prompt=prompt,
    )
    source = CodexSource(options, sink)
    async with running(source.run):
        yield source, store, events


def _exec_server_pids(source: CodexSource) -> list[int]:
    assert source.client.app_server_pid is not None
    found = []
    for process in processes.descendants(source.client.app_server_pid):
        with contextlib.suppress(psutil.Error):
            if "exec-server" in " ".join(process.cmdline()):
                found.append(process.pid)
    return found


async def test_a_fast_remote_is_ready_and_killing_it_disconnects(tmp_path: Path) -> None:
    async with attached(tmp_path, stdio_remote()) as (source, store, events):
        await wait_until(
            lambda: (
                {r.id: r.status for r in store.environments.values()}
                == {"local": "ready", "devbox": "ready"}
            ),
            timeout=60,
            what="both ready",
        )
        assert store.primary == "local"
        assert store.environments["devbox"].shell
        # local is first in the selection: however the notifications and the status answers
        # interleave, devbox is never reported primary on the way
        reported = [e.msg for e in events if isinstance(e.msg, EnvironmentStatus)]
        assert not [m for m in reported if m.environment_id == "devbox" and m.primary]
        await wait_until(
            lambda: bool(_exec_server_pids(source)), timeout=20, what="the exec-server child"
        )
        (pid,) = _exec_server_pids(source)
        os.kill(pid, signal.SIGKILL)  # only that child
        await wait_until(
            lambda: any(isinstance(e.msg, EnvironmentDisconnected) for e in events),
            timeout=30,
            what="the disconnected notification",
        )
        (disconnected,) = [e for e in events if isinstance(e.msg, EnvironmentDisconnected)]
        assert isinstance(disconnected.msg, EnvironmentDisconnected)
        assert (disconnected.id, disconnected.msg.environment_id, disconnected.at is not None) == (
            "",
            "devbox",
            True,
        )
        assert store.environments["devbox"].status == "unavailable"
    assert not _exec_server_pids(source)


async def test_a_remote_that_starts_late_goes_starting_connected_ready(tmp_path: Path) -> None:
    async with attached(tmp_path, stdio_remote(delay=6), "deferred_executor") as (
        _,
        store,
        events,
    ):
        await wait_until(
            lambda: any(isinstance(e.msg, EnvironmentConnected) for e in events),
            timeout=60,
            what="connected",
        )
        await wait_until(
            lambda: (
                store.environments.get("devbox") is not None
                and store.environments["devbox"].status == "ready"
            ),
            timeout=20,
        )
        devbox = [e for e in events if getattr(e.msg, "environment_id", None) == "devbox"]
        kinds = [(e.msg.type, getattr(e.msg, "status", None)) for e in devbox]
        assert kinds[0] == ("environment_status", "starting")
        connected = kinds.index(("environment_connected", None))
        assert ("environment_status", "ready") in kinds[connected:]
        assert ("environment_status", "ready") not in kinds[:connected]


async def test_a_turn_gives_steps_and_its_rollout_checks_without_context_mismatch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with attached(tmp_path, stdio_remote(), prompt="hello") as (source, store, _):
        await wait_until(lambda: bool(store.steps), timeout=90, what="a step from the rollout")
        step = store.steps[0]
        assert step.text is not None
        assert step.text.startswith("<environment_context>")
        assert step.tools is not None
        assert "exec_command" in [name for name, _ in step.tools]
        path = source.rollout_path()
    assert path is not None
    main(["check", str(path), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert "context-mismatch" not in [f["code"] for f in report["findings"]]


async def test_a_killed_app_server_is_reported_restarted_and_resumes_its_thread(
    tmp_path: Path,
) -> None:
    home, work = _home(tmp_path, stdio_remote())
    options = CodexOptions(
        codex=str(offline_codex(tmp_path)),
        codex_home=home,
        cwd=str(work),
        poll_interval=0.3,
        prompt="hello",  # a turn, so the thread has a rollout to resume from
    )
    sources: list[CodexSource] = []
    emitted: list[int] = []  # every step number the source gave, before the store folds them

    async def source(sink, stop) -> None:  # type: ignore[no-untyped-def]
        def counted(event: Event) -> None:
            if isinstance(event.msg, StepRecorded):
                emitted.append(event.msg.step)
            sink(event)

        attached = CodexSource(options, counted, restart=Backoff(0.5, 2.0))
        sources.append(attached)
        await attached.run(stop)

    # the processes the run started end as it quits, as in `envtui codex` (RunProcesses)
    app = EnvTuiApp(source, DashboardOptions(source_name="codex", processes=RunProcesses()))
    async with app.run_test(size=(200, 44)) as pilot:
        await wait_until(
            lambda: (
                len(app.store.environments) == 2
                and all(r.status == "ready" for r in app.store.environments.values())
                and bool(app.store.steps)
            ),
            timeout=90,
            what="both ready and a step",
        )
        table = app.screen.query_one(EnvironmentTable)

        def shown() -> dict[str, tuple[str, str]]:
            rows = [table.get_row_at(i) for i in range(table.row_count)]
            return {row[2].plain: (row[0].plain, row[1].plain) for row in rows}

        def header() -> str:
            return str(app.screen.query_one("#header").render())

        attached = sources[0]
        thread, first = attached.thread_id, attached.client.app_server_pid
        assert thread is not None
        assert first is not None
        steps_before = [s.number for s in app.store.steps]
        os.kill(first, signal.SIGKILL)
        await pilot_wait_until(
            pilot,
            lambda: (
                "✕ app-server down since" in header()
                and "codex app-server exited" in header()
                and [state for _, state in shown().values()] == ["✕ unavailable"] * 2
            ),
            timeout=30,
            what="a lasting badge with the reason, both environments unavailable",
        )
        await wait_until(
            lambda: (
                app.store.sources["app-server"].state == "up"
                and attached.client.app_server_pid not in (None, first)
            ),
            timeout=90,
            what="a new app-server, attached",
        )
        assert attached.restarts == 1
        assert attached.thread_id == thread  # thread/resume: the same thread
        await pilot_wait_until(
            pilot,
            lambda: (
                shown() == {"local": ("★", "● ready"), "devbox": ("", "● ready")}
                and f"thread {thread}" in header()
                and "app-server up · restarts 1" in header()
            ),
            timeout=60,
            what="both ready again, the thread and one restart in the header",
        )
        await wait_until(lambda: not alive(first), timeout=30, what="the killed app-server gone")
        numbers = [s.number for s in app.store.steps]
        assert numbers[: len(steps_before)] == steps_before  # the rollout was not read again
        assert len(set(numbers)) == len(numbers)
        assert len(set(emitted)) == len(emitted), emitted  # no step given twice
    last = attached.client.app_server_pid or first
    await wait_until(lambda: not alive(last), timeout=30, what="the app-server ended with the run")


def _whole_lines(path: Path) -> list[dict[str, Any]]:
    """The JSON lines written so far (a last line still being written is left out)."""
    text = path.read_text() if path.exists() else ""
    return [json.loads(line) for line in text.splitlines(keepends=True) if line.endswith("\n")]


def _statuses(lines: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return {
        (m["msg"]["environment_id"], m["msg"]["status"])
        for m in lines
        if m["msg"]["type"] == "environment_status"
    }


def test_events_codex_writes_the_stream_and_exits_0(tmp_path: Path) -> None:
    home, work = _home(tmp_path, stdio_remote())
    out = tmp_path / "events.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-m", "envtui", "events", "--codex", str(offline_codex(tmp_path)), "--codex-home", str(home),
         "--cwd", str(work), "--poll-interval", "0.5", "--out", str(out)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        # the app-server and its stdio exec-server both up however long they take; then Ctrl+C
        poll_until(
            lambda: {("local", "ready"), ("devbox", "ready")} <= _statuses(_whole_lines(out)),
            what="local and devbox ready in the stream",
        )
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, err
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert {("local", "ready"), ("devbox", "ready")} <= _statuses(lines)
    assert all(set(m) <= {"id", "msg", "at"} for m in lines)


def test_events_codex_exits_1_when_the_app_server_cannot_start(tmp_path: Path) -> None:
    broken = tmp_path / "codex"
    broken.write_text("#!/bin/sh\necho 'boom: no app-server here' >&2\nexit 3\n")
    broken.chmod(0o755)
    result = subprocess.run(
        [sys.executable, "-m", "envtui", "events", "--codex", str(broken), "--duration", "5"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 1
    assert "boom: no app-server here" in result.stderr


@pytest.mark.skipif(
    SSHD is None, reason="needs OpenSSH sshd (Debian openssh-server, which .ci/run installs)"
)
async def test_an_app_server_on_an_ssh_host_comes_back_after_the_link_is_lost(
    tmp_path: Path,
) -> None:
    keys = tmp_path / "keys"
    keys.mkdir()
    server = OpenSshServer(keys, free_port()).start()
    home, work = _home(tmp_path, stdio_remote())
    store = Store()
    try:
        await server.accepting()
        ssh = server.settings(keepalive_interval=1, keepalive_count_max=2)
        options = CodexOptions(
            codex=str(offline_codex(tmp_path)),
            codex_home=home,
            cwd=str(work),
            poll_interval=0.3,
            ssh=ssh,
            prompt="hello",
        )
        source = CodexSource(options, store.apply, restart=Backoff(0.5, 2.0))
        stop = asyncio.Event()
        task = asyncio.ensure_future(source.run(stop))

        def both_ready() -> bool:
            states = {r.id: r.status for r in store.environments.values()}
            return states == {"local": "ready", "devbox": "ready"}

        await wait_until(both_ready, timeout=60, what="both ready over ssh")
        await wait_until(
            lambda: bool(store.steps), timeout=60, what="a step from the remote rollout"
        )
        assert (store.steps[0].text or "").startswith("<environment_context>")
        thread, steps = source.thread_id, [s.number for s in store.steps]
        server.drop_connections()  # the SSH link to the app-server's host is lost
        await wait_until(
            lambda: any("codex app-server exited" in entry.line for entry in store.log),
            timeout=30,
            what="the loss",
        )
        assert store.sources["app-server"].state in ("down", "restarting")
        await wait_until(
            lambda: store.sources["app-server"].state == "up" and source.restarts == 1,
            timeout=60,
            what="a new app-server over a new SSH connection",
        )
        await wait_until(both_ready, timeout=60, what="both ready again")
        assert source.thread_id == thread
        assert [s.number for s in store.steps][: len(steps)] == steps  # not read again
        stop.set()
        await asyncio.wait_for(task, timeout=30)
        assert source.died
    finally:
        server.stop()


async def test_resuming_a_thread_by_id(tmp_path: Path) -> None:
    async with attached(tmp_path, stdio_remote(), prompt="hello") as (source, store, _):
        await wait_until(lambda: bool(store.steps), timeout=90, what="a recorded step")
        thread = source.thread_id
    assert thread is not None
    home, work = tmp_path / "home", tmp_path / "work"
    store = Store()
    options = CodexOptions(
        codex=str(offline_codex(tmp_path)), codex_home=home, thread=thread, poll_interval=0.3
    )
    resumed = CodexSource(options, store.apply)
    async with running(resumed.run):
        await wait_until(
            lambda: (
                {r.id: r.status for r in store.environments.values()}
                == {"local": "ready", "devbox": "ready"}
            ),
            timeout=60,
        )
        assert resumed.thread_id == thread
        assert store.environments["local"].cwd == str(work)
        await wait_until(lambda: bool(store.steps), timeout=30, what="the resumed thread's steps")
