"""The alert command, run for real: a small script that writes what it read on stdin.

It gets one JSON object per run with the alerts of a burst; bursts are coalesced and runs
rate-limited; a failing or hanging command is reported once and never blocks; and the
dashboard, fed a stream in which a host drops and an incident opens and resolves, hands
the command exactly those changes.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.support.waiting import pilot_wait_until, wait_until

from envtui.commands.dashboard_sources import alert_command_for
from envtui.incidents.alert_items import Alert
from envtui.settings.alerts_config import AlertsConfig
from envtui.sources.alerts import AlertCommand
from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.vocabulary.events import (
    EnvironmentStatus,
    Event,
    FindingReported,
    StepRecorded,
    thread_event,
)
from envtui.vocabulary.terms import LiveState

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

AT = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
RECORDER = """
import json, sys, time
data = sys.stdin.read()
with open(sys.argv[1], "a") as out:
    out.write(json.dumps({"at": time.monotonic(), "stdin": data}) + "\\n")
"""


def recorder(tmp_path: Path) -> tuple[list[str], Path]:
    script = tmp_path / "recorder.py"
    script.write_text(RECORDER)
    runs = tmp_path / "runs.jsonl"
    return [sys.executable, str(script), str(runs)], runs


def runs_of(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def opened(env: str, step: int) -> Alert:
    return Alert(
        "incident_opened", AT, env, "stale-available", None, step, step, f"{env} \x1b[31m", "error"
    )


async def test_a_burst_is_one_run_with_one_json_object_listing_every_alert(
    tmp_path: Path,
) -> None:
    command, runs = recorder(tmp_path)
    reports: list[str] = []
    alerts = AlertCommand(command, reports.append, timeout=10, coalesce=0.3)
    try:
        alerts.add([opened("flaky", 1), opened("ghost", 1)])
        alerts.add([opened("flaky", 1)])  # the same change again: once
        alerts.add([Alert("environment_unavailable", AT, "ghost", message="refused")])
        await wait_until(lambda: len(runs_of(runs)) == 1, timeout=10, what="one run")
        await asyncio.sleep(0.5)
        (run,) = runs_of(runs)
        payload = json.loads(run["stdin"])
        assert payload["count"] == 3
        assert payload["dropped"] == 0
        assert [(a["kind"], a["environment_id"]) for a in payload["alerts"]] == [
            ("incident_opened", "flaky"),
            ("incident_opened", "ghost"),
            ("environment_unavailable", "ghost"),
        ]
        first = payload["alerts"][0]
        assert first["code"] == "stale-available"
        assert first["first_step"] == 1
        assert first["at"] == "2026-11-30T12:00:00+00:00"
        assert payload["text"].splitlines()[2] == "ghost unavailable: refused"
        assert reports == []
    finally:
        await alerts.aclose()


async def test_runs_are_rate_limited_however_fast_alerts_come(tmp_path: Path) -> None:
    command, runs = recorder(tmp_path)
    alerts = AlertCommand(command, lambda _m: None, timeout=10, coalesce=0.4)
    try:
        start = time.monotonic()
        for step in range(1, 41):  # 40 incidents over about two seconds
            alerts.add([opened("flaky", step)])
            await asyncio.sleep(0.05)
        await wait_until(
            lambda: sum(json.loads(r["stdin"])["count"] for r in runs_of(runs)) == 40,
            timeout=15,
            what="every alert delivered",
        )
        done = runs_of(runs)
        elapsed = time.monotonic() - start
        assert len(done) <= elapsed / 0.4 + 1  # never more than one run per coalesce window
        assert len(done) < 40
        times = [r["at"] for r in done]
        assert all(b - a >= 0.4 for a, b in itertools.pairwise(times))
    finally:
        await alerts.aclose()


async def test_a_failing_command_is_reported_once_until_it_works(tmp_path: Path) -> None:
    flag = tmp_path / "works"
    script = tmp_path / "fails.py"
    script.write_text(
        "import sys, pathlib\n"
        "sys.stdin.read()\n"
        f"ok = pathlib.Path({str(flag)!r}).exists()\n"
        "if not ok:\n"
        "    print('webhook said no', file=sys.stderr)\n"
        "sys.exit(0 if ok else 3)\n"
    )
    reports: list[str] = []
    alerts = AlertCommand([sys.executable, str(script)], reports.append, coalesce=0.1)
    try:
        for step in range(1, 4):
            alerts.add([opened("flaky", step)])
            await wait_until(
                functools.partial(lambda s: alerts.completed == s, step), what=f"run {step}"
            )
        await wait_until(lambda: alerts.failures == 3, timeout=10, what="three failures")
        assert len(reports) == 1
        assert "exited with 3: webhook said no" in reports[0]
        flag.touch()
        alerts.add([opened("flaky", 4)])
        await wait_until(lambda: alerts.completed == 4, timeout=10, what="a run that works")
        assert alerts.failures == 3
        flag.unlink()
        alerts.add([opened("flaky", 5)])
        await wait_until(lambda: len(reports) == 2, timeout=10, what="said again after it worked")
    finally:
        await alerts.aclose()


async def test_a_hanging_command_is_ended_and_a_missing_one_reported(tmp_path: Path) -> None:
    reports: list[str] = []
    hang = AlertCommand(
        [sys.executable, "-c", "import time; time.sleep(60)"],
        reports.append,
        timeout=0.5,
        coalesce=0.05,
    )
    missing = AlertCommand([str(tmp_path / "no-such-program")], reports.append, coalesce=0.05)
    try:
        hang.add([opened("flaky", 1)])
        missing.add([opened("flaky", 1)])
        await wait_until(lambda: len(reports) == 2, timeout=10, what="both reported")
        assert any("timed out after 0.5 s and was ended" in r for r in reports)
        assert any("could not start" in r for r in reports)
    finally:
        await hang.aclose()
        await missing.aclose()


def status(env: str, state: LiveState, seconds: int) -> Event:
    msg = EnvironmentStatus(environment_id=env, kind="ssh", status=state)
    return thread_event(msg, at=AT.replace(second=seconds))


async def test_the_dashboard_hands_the_command_each_incident_and_outage(tmp_path: Path) -> None:
    command, runs = recorder(tmp_path)
    settings = AlertsConfig(command=command, coalesce=0.2)
    options = DashboardOptions(
        source_name="test", alerts=settings, alert_command=alert_command_for(settings)
    )
    app = EnvTuiApp(None, options)
    finding = FindingReported(
        code="stale-available", severity="error", step=1, environment_id="flaky", message="m"
    )
    events = [
        status("flaky", "ready", 0),
        status("flaky", "unavailable", 1),
        status("flaky", "starting", 2),  # retrying: the same outage
        status("flaky", "unavailable", 3),
        thread_event(StepRecorded(step=1, unchecked=[], findings=1), at=AT.replace(second=4)),
        thread_event(finding, at=AT.replace(second=4)),
        status("flaky", "ready", 5),
        thread_event(StepRecorded(step=2, unchecked=[], findings=0), at=AT.replace(second=6)),
    ]
    async with app.run_test(size=(120, 40)) as pilot:
        for event in events:
            app.ingest(event)

        def delivered() -> list[tuple[str, Any]]:
            out = []
            for run in runs_of(runs):
                out += [(a["kind"], a["step"]) for a in json.loads(run["stdin"])["alerts"]]
            return out

        await pilot_wait_until(pilot, lambda: len(delivered()) >= 4, what="the alerts")
        await pilot.pause(0.5)
        assert delivered() == [
            ("environment_unavailable", None),
            ("incident_opened", 1),
            ("environment_ready", None),
            ("incident_resolved", 2),
        ]
