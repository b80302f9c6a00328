"""``envtui serve``'s alert command: run by the server, once for what every tab shows."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from tests.support.waiting import wait_until

from envtui.commands.serve.shared_alerts import with_alert_command
from envtui.settings.alerts_config import AlertsConfig
from envtui.vocabulary.events import EnvironmentStatus, Event, EventSink, thread_event


def _status(status: str) -> Event:
    msg = EnvironmentStatus(environment_id="devbox", kind="ssh", status=status, cwd="/")
    return thread_event(msg)


async def test_the_servers_store_raises_the_alerts_and_one_command_runs_for_them(
    tmp_path: Path,
) -> None:
    runs = tmp_path / "runs.jsonl"
    command = [sys.executable, "-c", f"import sys; open({str(runs)!r}, 'a').write(sys.stdin.read() + '\\n')"]  # fmt: skip
    settings = AlertsConfig(command=command, coalesce=0.1)
    written: list[Event] = []
    problems: list[str] = []
    sink = with_alert_command(written.append, settings, problems.append)

    async def source(give: EventSink, stop: asyncio.Event) -> None:
        for status in ("starting", "ready", "unavailable", "ready"):
            give(_status(status))
        assert sink.command is not None
        command = sink.command  # the source runs on until a run has ended; the alerts go meanwhile
        await wait_until(lambda: command.completed >= 1, what="a run of the alert command")

    await asyncio.wait_for(sink.run(source, asyncio.Event(), check=0.05), 120)
    assert len(written) == 4  # every event reaches the stream
    (run,) = [json.loads(line) for line in runs.read_text().splitlines() if line.strip()]
    assert [alert["kind"] for alert in run["alerts"]] == [
        "environment_unavailable",
        "environment_ready",
    ]
    assert problems == []


async def test_without_an_alert_command_the_events_only_reach_the_stream() -> None:
    written: list[Event] = []
    sink = with_alert_command(written.append, AlertsConfig(bell=True))
    assert sink.store is None  # no store of its own is kept

    async def source(give: EventSink, stop: asyncio.Event) -> None:
        give(_status("ready"))

    await sink.run(source, asyncio.Event())
    assert len(written) == 1
