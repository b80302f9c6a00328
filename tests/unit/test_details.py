"""The detail screens' text and the step export, as pure functions: whole expected values."""

from __future__ import annotations

import json
from collections import deque
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from envtui.dashboard.log_lines import log_entry
from envtui.dashboard.store import EnvironmentRow, StepRow, step_export
from envtui.incidents.fold import IncidentFold
from envtui.tui.details import (
    environment_details,
    export_file_name,
    keys_help,
    unused_path,
)
from envtui.tui.incidents_view import incident_details
from envtui.vocabulary.events import EnvironmentDisconnected, FindingReported, thread_event

AT = datetime(2026, 11, 30, 12, 0, 6, tzinfo=UTC)
STALE = FindingReported(
    code="stale-available",
    severity="error",
    step=2,
    environment_id="build",
    message="the context presents 'build' as available, but the connection is known to be lost",
)


def step_row(number: int = 2, **fields: Any) -> StepRow:
    values: dict[str, Any] = {
        "at": AT,
        "thread": "thread-1",
        "text": "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>",
        "diff": None,
        "snapshot": None,
        "patch": None,
        "tools": None,
        "notes": [],
    }
    values.update(fields)
    return StepRow(number, **values)


def test_an_environment_shows_every_field_then_its_events() -> None:
    row = EnvironmentRow(
        "build",
        0,
        kind="ssh",
        status="unavailable",
        shell="zsh",
        shell_path="/bin/zsh",
        cwd="/srv/build",
        error="connection lost: Connection lost",
        changed_at=AT,
        next_retry_at=datetime(2026, 11, 30, 12, 0, 8, tzinfo=UTC),
        connection="disconnected",
        events=deque(
            [log_entry(thread_event(EnvironmentDisconnected(environment_id="build"), at=AT), UTC)]
        ),
    )
    now = datetime(2026, 11, 30, 12, 0, 7, tzinfo=UTC)
    assert environment_details(row, now) == (
        "id          build\n"
        "kind        ssh\n"
        "status      unavailable\n"
        "primary     no\n"
        "shell       zsh\n"
        "shell path  /bin/zsh\n"
        "cwd         /srv/build\n"
        "error       connection lost: Connection lost\n"
        "changed     12:00:06 UTC (1 s ago)\n"
        "next try    12:00:08 UTC (in 1 s)\n"
        "connection  disconnected\n"
        "\n"
        "events\n"
        '12:00:06 id "" environment_disconnected build'
    )


def test_an_environment_nothing_is_known_about_shows_dashes() -> None:
    assert environment_details(EnvironmentRow("local", 0, primary=True), AT) == (
        "id          local\n"
        "kind        ?\n"
        "status      starting\n"
        "primary     yes\n"
        "shell       -\n"
        "shell path  -\n"
        "cwd         -\n"
        "error       -\n"
        "changed     -\n"
        "next try    -\n"
        "connection  -\n"
        "\n"
        "events\n"
    )


def test_an_incident_shows_its_fields_then_each_step_with_its_diff() -> None:
    fold = IncidentFold()
    diff = "<environment_context>\n  <cwd>/srv/build</cwd>\n</environment_context>"
    steps = {2: step_row(2, diff=diff), 3: step_row(3, diff=None)}
    for number in (2, 3):
        when = AT + timedelta(seconds=10 * (number - 2))
        fold.step(number, when, [], 1)
        fold.finding(STALE.model_copy(update={"step": number}), when)
    fold.step(4, AT + timedelta(seconds=60), [], 0)
    (incident,) = fold.incidents()
    now = AT + timedelta(seconds=90)
    assert incident_details(incident, steps.get, now, UTC) == (
        "code          stale-available\n"
        "severity      error\n"
        "environment   build\n"
        "tool          -\n"
        "state         resolved\n"
        "first seen    step 2 at 12:00:06 UTC (1 min ago)\n"
        "last seen     step 3 at 12:00:16 UTC (1 min ago)\n"
        "steps         2\n"
        "duration      1 min\n"
        "resolved      step 4 at 12:01:06 UTC (30 s ago)\n"
        "\n"
        f"{STALE.message}\n"
        "\n"
        f"--- step 3 at 12:00:16 UTC (1 min ago): {STALE.message}\n"
        "(no context change sent at this step)\n"
        "\n"
        f"--- step 2 at 12:00:06 UTC (1 min ago): {STALE.message}\n"
        "<environment_context>\n"
        "  <cwd>/srv/build</cwd>\n"
        "</environment_context>\n"
    )


def test_an_incident_whose_steps_are_gone_says_so_and_how_many_are_kept() -> None:
    fold = IncidentFold(history=1)
    for number in (1, 2):
        fold.step(number, None, [], 1)
        fold.finding(STALE.model_copy(update={"step": number}), None)
    (incident,) = fold.incidents()
    text = incident_details(incident, lambda _n: None, AT)
    assert "state         active\n" in text
    assert "first seen    step 1\n" in text
    assert "duration      -\n" in text
    assert text.endswith(
        "(the last 1 of 2 steps are kept, newest first)\n"
        f"\n--- step 2: {STALE.message}\n(the step is no longer held)\n"
    )


def test_a_long_incident_is_newest_first_with_alike_steps_folded_and_changes_apart() -> None:
    fold = IncidentFold(history=100)
    diff = "<environment_context>\n  <cwd>/srv/b</cwd>\n</environment_context>"
    steps = {n: step_row(n, diff=diff if n == 5 else None) for n in range(1, 10)}
    for number in range(1, 10):
        fold.step(number, None, [], 1)
        fold.finding(STALE.model_copy(update={"step": number}), None)
    (incident,) = fold.incidents()
    text = incident_details(incident, steps.get, AT)
    history = text[text.index("\n--- ") :]
    assert history == (
        f"\n--- steps 6\N{EN DASH}9 (4 alike), the newest step 9: {STALE.message}\n"
        "(no context change sent at these steps)\n"
        f"\n--- step 5: {STALE.message}\n"
        f"{diff}\n"
        f"\n--- steps 1\N{EN DASH}4 (4 alike), the newest step 4: {STALE.message}\n"
        "(no context change sent at these steps)\n"
    )


def test_the_keys_are_listed_in_order_then_the_palette() -> None:
    assert keys_help([("question_mark", "Help"), ("p", "Pause")]) == (
        "Keys\n"
        "\n"
        "question_mark          Help\n"
        "p                      Pause\n"
        "\n"
        "ctrl+p opens the command palette."
    )


def test_a_step_export_has_the_tools_as_objects_and_the_findings_as_json() -> None:
    step = step_row(
        diff="<environment_context/>",
        snapshot={"environments": {"local": {"cwd": "/repo"}}},
        patch={"environments": None},
        tools=[("exec_command", "optional"), ("write_stdin", "absent")],
        notes=["a note the export leaves out"],
        findings=[STALE],
    )
    exported = step_export(step)
    assert exported == {
        "step": 2,
        "thread": "thread-1",
        "context": "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>",
        "diff": "<environment_context/>",
        "snapshot": {"environments": {"local": {"cwd": "/repo"}}},
        "patch": {"environments": None},
        "tools": [
            {"name": "exec_command", "environment_id": "optional"},
            {"name": "write_stdin", "environment_id": "absent"},
        ],
        "findings": [
            {
                "type": "finding",
                "code": "stale-available",
                "severity": "error",
                "step": 2,
                "tool": None,
                "environment_id": "build",
                "message": "the context presents 'build' as available, but the connection "
                "is known to be lost",
            }
        ],
    }
    assert json.loads(json.dumps(exported)) == exported  # JSON as it stands


def test_a_step_without_a_tool_list_exports_none_not_an_empty_list() -> None:
    exported = step_export(step_row(text=None))
    assert exported["tools"] is None
    assert exported["context"] is None
    assert exported["findings"] == []


def test_the_export_file_is_named_after_the_thread_and_the_step() -> None:
    assert export_file_name(step_row(3), None) == "envtui-step-thread-1-3.json"
    assert export_file_name(step_row(3, thread=None), "t-2") == "envtui-step-t-2-3.json"
    assert export_file_name(step_row(3, thread=None), None) == "envtui-step-thread-3.json"


def test_a_thread_id_cannot_take_the_export_out_of_its_directory() -> None:
    assert export_file_name(step_row(1, thread="../../etc/x y"), None) == (
        "envtui-step-______etc_x_y-1.json"
    )


def test_an_export_name_that_is_taken_gets_the_next_number(tmp_path: Path) -> None:
    taken = {tmp_path / "x.json", tmp_path / "x-2.json"}
    assert unused_path(tmp_path, "x.json", lambda p: p in taken) == tmp_path / "x-3.json"
    assert unused_path(tmp_path, "y.json", lambda p: p in taken) == tmp_path / "y.json"
