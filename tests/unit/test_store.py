"""The store: a bounded reducer over events that remembers what changed."""

from __future__ import annotations

import gc
from datetime import UTC, datetime, tzinfo
from zoneinfo import ZoneInfo

import pytest

from tests.support.scenarios.scripted_stream import at, scripted_events, status, step_event

from envtui.dashboard.log_lines import log_line
from envtui.dashboard.step_rows import StepRow
from envtui.dashboard.store import Store, step_export
from envtui.vocabulary.events import (
    EnvironmentDisconnected,
    EnvironmentRemoved,
    FindingReported,
    SourceStatus,
    StepRecorded,
    UnknownMessage,
    thread_event,
)


def test_scripted_stream_gives_statuses_primary_steps_and_findings() -> None:
    store = Store()
    store.apply_all(scripted_events())
    rows = {r.id: (r.status, r.primary, r.error) for r in store.environments.values()}
    assert rows == {
        "build": ("unavailable", False, "connection lost: Connection lost"),
        "local": ("ready", True, None),
        "legacy": ("unavailable", False, "host key mismatch: the key [127.0.0.1]:2222 differs"),
    }
    assert [r.id for r in store.environments.values()] == [
        "build",
        "local",
        "legacy",
    ]  # selection order
    assert store.primary == "local"
    assert [s.number for s in store.steps] == [1, 2]
    assert [(f.step, f.code) for f in store.findings()] == [
        (2, "stale-available"),
        (1, "execution-routed-elsewhere"),
    ]
    assert store.thread == "thread-1"
    assert store.environments["build"].connection == "disconnected"


def test_a_disconnect_alone_makes_a_ready_environment_unavailable() -> None:
    store = Store()
    store.apply(status("r", "ready", 0, shell="bash"))
    store.apply(thread_event(EnvironmentDisconnected(environment_id="r"), at=at(1)))
    row = store.environments["r"]
    assert (row.status, row.error, row.changed_at) == ("unavailable", "disconnected", at(1))


def test_changes_name_only_what_changed() -> None:
    store = Store()
    store.apply_all(scripted_events()[:3])
    changes = store.take_changes()
    assert changes.environments == {"build", "local"}
    assert len(changes.log_lines) == 3
    assert not store.take_changes().any
    store.apply(thread_event(EnvironmentRemoved(environment_id="build")))
    changes = store.take_changes()
    assert (changes.environments, changes.removed) == (set(), {"build"})


def test_log_and_steps_are_bounded() -> None:
    store = Store(max_log_lines=10, max_steps=3)
    for second in range(50):
        store.apply(status("e", "starting" if second % 2 else "ready", second))
    for number in range(1, 8):
        store.apply(step_event(number, number))
    assert len(store.log) == 10
    assert len(store.steps) == 3
    assert len(store.take_changes().log_lines) == 10


def test_log_lines_show_the_empty_id_and_no_control_characters() -> None:
    line = log_line(
        thread_event(EnvironmentDisconnected(environment_id="evil\x1b]0;pwned\x07"), at=at(0))
    )
    assert line == '12:00:00 id "" environment_disconnected evil\\x1b]0;pwned\\x07'


def test_a_source_status_is_kept_and_its_outage_keeps_the_time_it_began() -> None:
    store = Store()
    down = SourceStatus(source="app-server", state="down", reason="exited with status 3")
    store.apply(thread_event(down, at=at(10)))
    retrying = SourceStatus(source="app-server", state="restarting", reason="exited", restarts=0)
    store.apply(thread_event(retrying, at=at(11)))
    row = store.sources["app-server"]
    assert (row.state, row.reason, row.since) == ("restarting", "exited", at(10))
    store.apply(
        thread_event(
            SourceStatus(source="app-server", state="up", thread="t-1", restarts=1), at=at(14)
        )
    )
    assert (row.state, row.since, row.restarts, store.thread) == ("up", at(14), 1, "t-1")
    assert store.take_changes().sources
    # envtui's own events leave their empty thread id out (connection events keep it)
    assert store.log[0].line == "12:00:10 source_status app-server down: exited with status 3"


def test_log_lines_are_written_in_the_zone_given() -> None:
    store = Store(zone=ZoneInfo("America/New_York"))
    store.apply(status("e", "ready", 0))
    assert store.log[0].line.startswith("07:00:00 ")  # 12:00 UTC


def test_counters_are_a_fixed_set_whatever_the_stream_holds() -> None:
    store = Store()
    for index in range(100):
        store.apply(
            thread_event(UnknownMessage(type=f"kind-{index}", raw={"type": f"kind-{index}"}))
        )
    store.apply(status("e", "ready", 0))
    assert dict(store.counters) == {"other": 100, "environment_status": 1, "total": 101}


def test_step_numbers_that_go_back_start_a_new_history() -> None:
    store = Store()
    for number in (1, 2, 3):
        store.apply(step_event(number, number))
    store.take_changes()
    store.apply(step_event(1, 10))  # a rollout replaced, read again from its start
    assert [s.number for s in store.steps] == [1]
    assert store.take_changes().steps_restarted


def test_each_environment_keeps_as_many_lines_as_configured() -> None:
    store = Store(environment_events=3)
    for second in range(10):
        store.apply(status("e", "ready" if second % 2 else "starting", second))
    assert len(store.environments["e"].events) == 3
    assert [entry.line for entry in store.environments["e"].events] == [
        "12:00:07 environment_status e starting → ready",
        "12:00:08 environment_status e ready → starting",
        "12:00:09 environment_status e starting → ready",
    ]


def test_a_log_entry_is_written_when_read_in_the_zone_and_state_of_its_event() -> None:
    store = Store(zone=ZoneInfo("America/New_York"))
    store.apply(status("e", "starting", 0))
    store.apply(status("e", "ready", 1))
    store.zone = ZoneInfo("Asia/Tokyo")  # a later change of zone is not the entry's
    store.apply(status("e", "unavailable", 2, error="lost"))
    assert [entry.line for entry in store.log] == [
        "07:00:00 environment_status e starting",
        "07:00:01 environment_status e starting → ready",
        "21:00:02 environment_status e ready → unavailable: lost",
    ]


def test_an_unread_status_line_holds_its_words_not_its_event() -> None:
    store = Store(zone=ZoneInfo("UTC"))
    event = status("e", "ready", 0, primary=True, error="late")
    store.apply(event)
    entry = store.log[-1]
    held = gc.get_referents(entry)
    assert not any(item is event or item is event.msg for item in held)
    assert entry.line == "12:00:00 environment_status e ready primary: late"


def test_a_step_that_changed_nothing_shares_the_content_of_the_one_before() -> None:
    store = Store()
    store.apply(step_event(2, 1))
    again = step_event(2, 2).msg
    assert isinstance(again, StepRecorded)
    store.apply(thread_event(again.model_copy(update={"step": 3}), at=at(2)))
    first, second = store.steps
    assert second.content == first.content
    assert second.snapshot == again.snapshot
    assert second.text == again.text
    assert second._packed is first._packed  # one copy of the packed content, not two
    store.apply(step_event(1, 3))  # numbers went back: a new history
    store.apply(step_event(2, 4))
    assert [s.number for s in store.steps] == [1, 2]
    assert store.steps[1].text == step_event(2, 4).msg.text  # type: ignore[union-attr]
    assert store.steps[0].text != store.steps[1].text


def test_a_kept_step_gives_back_exactly_what_it_was_given() -> None:
    """The packed content reads back as it came: odd text, a value JSON cannot hold, and
    the findings, which are kept as tuples and made again."""
    odd = "<environment_context>é \ud800 \x1b[31m</environment_context>"
    snapshot = {"environments": {"a": {"cwd": "/a"}}, "current_date": "2026-11-30"}
    row = StepRow(5, None, "t", odd, "diff\n", snapshot, {"a": None}, [("shell", "required")], [])
    assert row.content == (odd, "diff\n", snapshot, {"a": None})
    assert row.current_date == "2026-11-30"
    not_json = StepRow(6, None, "t", None, None, {"when": object}, None, None, [])
    assert not_json.snapshot == {"when": object}
    finding = FindingReported(
        code="stale-available", severity="error", step=5, environment_id="a", message="lost"
    )
    row.add_finding(finding)
    assert row.findings == [finding]
    assert step_export(row)["findings"] == [finding.model_dump(mode="json")]


def test_what_a_rollout_recorded_never_replaces_a_live_status() -> None:
    """Codex's own source sends the host's live status and, as the rollout is read, what it
    recorded at each step (older, and of a kind it only knows as "remote")."""
    store = Store()
    store.apply(status("devbox", "unavailable", 0, kind="remote", recorded_step=1))
    row = store.environments["devbox"]
    assert (row.kind, row.status, row.recorded_step) == ("remote", "unavailable", 1)  # shown
    store.apply(status("devbox", "ready", 1, kind="exec-server"))
    store.apply(status("devbox", "unavailable", 2, kind="remote", recorded_step=2))
    assert (row.kind, row.status, row.recorded_step) == ("exec-server", "ready", None)
    assert row.events[-1].text.endswith("devbox ready → unavailable")  # logged all the same
    store.apply(status("devbox", "starting", 3, kind="exec-server"))
    assert (row.kind, row.status) == ("exec-server", "starting")  # live ones go on as before


@pytest.mark.parametrize(
    "zone",
    [
        None,
        UTC,
        ZoneInfo("Europe/Berlin"),
        ZoneInfo("Asia/Kathmandu"),
        ZoneInfo("America/St_Johns"),
    ],
    ids=["local", "utc", "berlin", "kathmandu", "st-johns"],
)
def test_lines_read_late_and_in_any_order_read_as_their_events_at_their_own_second(
    zone: tzinfo | None,
) -> None:
    """A line is written when it is read: whatever was read before it and whenever, it
    reads as its event, at its own second in the store's zone (``--utc`` gives UTC, else
    the local zone), across a change of daylight saving time too."""
    store = Store(zone=zone)
    before_dst_ends = (datetime(2026, 10, 25, 1, tzinfo=UTC) - at(0)).total_seconds() - 1
    seconds = [0.2, 0.9, 1.0, 59.99, 3600.5, before_dst_ends, before_dst_ends + 1, 7.25]
    states = ("starting", "ready", "unavailable")
    for index, second in enumerate(seconds):
        store.apply(status(f"e{index % 2}", states[index % 3], second, error=f"event {index}"))
    expected: list[str] = []
    previous: dict[str, str] = {}
    for index, second in enumerate(seconds):
        clock = at(second).astimezone(zone).strftime("%H:%M:%S")
        env, now = f"e{index % 2}", states[index % 3]
        moved = f"{previous[env]} → {now}" if previous.get(env, now) != now else now
        previous[env] = now
        expected.append(f"{clock} environment_status {env} {moved}: event {index}")
    entries = list(store.log)
    for order in (reversed(range(len(entries))), range(len(entries)), [7, 0, 5, 6, 5, 1]):
        for index in order:
            assert entries[index].line == expected[index], (zone, index)
