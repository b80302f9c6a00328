"""The store: a bounded reducer over events that remembers what changed."""

from __future__ import annotations

from tests.support.scripted import at, scripted_events, status, step_event

from envtui.events import EnvironmentDisconnected, EnvironmentRemoved, thread_event
from envtui.store import Store, log_line


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
