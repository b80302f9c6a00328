"""What is worth an alert, and how a batch is delivered: pure parts, no process started."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from tests.support.scenarios.operator_requests import command_request, environments

from envtui.commands.dashboard_sources import alerts_for
from envtui.dashboard.store import Store
from envtui.incidents.alert_items import Alert, AlertQueue
from envtui.settings.alerts_config import AlertsConfig
from envtui.settings.config import ConfigError, parse_config
from envtui.sources.alerts import MAX_PER_RUN, batch_json
from envtui.tui.alerting import Alerting, notification_sequence
from envtui.vocabulary.events import EnvironmentRemoved, EnvironmentStatus, Event, thread_event
from envtui.vocabulary.terms import LiveState

AT = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def status(env: str, state: LiveState, error: str | None = None) -> Event:
    msg = EnvironmentStatus(environment_id=env, kind="ssh", status=state, error=error)
    return thread_event(msg, at=AT)


def test_an_outage_is_one_alert_however_often_the_host_is_retried() -> None:
    store = Store()
    states: list[LiveState] = ["starting", "ready", "unavailable", "starting", "unavailable"]
    for state in [*states, "starting"]:
        store.apply(status("flaky", state, "refused" if state == "unavailable" else None))
    store.apply(status("flaky", "ready"))
    store.apply(status("flaky", "ready"))
    store.apply(status("legacy", "unavailable", "host key mismatch"))
    got = [(a.kind, a.environment_id, a.message) for a in store.alerts.take()]
    assert got == [
        ("environment_unavailable", "flaky", "refused"),
        ("environment_ready", "flaky", None),
        ("environment_unavailable", "legacy", "host key mismatch"),
    ]
    assert store.alerts.take() == []


def test_alerts_nobody_takes_are_not_held_but_outages_are_still_followed() -> None:
    store = Store()
    store.alerts.wanted = False  # every way of delivering alerts is off
    for _ in range(3):
        store.apply(status("flaky", "unavailable", "refused"))
        store.apply(status("flaky", "ready"))
    store.apply(status("ghost", "unavailable"))
    assert store.alerts.take() == []
    store.alerts.wanted = True
    store.apply(status("ghost", "unavailable"))  # still the same outage: no new alert
    store.apply(status("ghost", "ready"))
    assert [(a.kind, a.environment_id) for a in store.alerts.take()] == [
        ("environment_ready", "ghost")
    ]


def test_a_removed_host_that_returns_down_is_a_new_outage() -> None:
    store = Store()
    store.apply(status("ghost", "unavailable"))
    store.apply(thread_event(EnvironmentRemoved(environment_id="ghost"), at=AT))
    store.apply(status("ghost", "unavailable"))
    assert [a.kind for a in store.alerts.take()] == ["environment_unavailable"] * 2


def test_the_queue_is_bounded_and_counts_what_it_dropped() -> None:
    queue = AlertQueue(limit=3)
    for n in range(5):
        queue.add(Alert("environment_ready", AT, f"e{n}"))
    assert [a.environment_id for a in queue.take()] == ["e2", "e3", "e4"]
    assert queue.dropped == 2


def test_one_run_lists_at_most_max_per_run_alerts_and_counts_the_rest() -> None:
    alerts = [Alert("environment_ready", AT, f"e{n}") for n in range(MAX_PER_RUN + 3)]
    payload = batch_json(alerts, dropped=2)
    assert payload["count"] == MAX_PER_RUN
    assert payload["dropped"] == 5
    assert payload["text"].splitlines()[-1] == "(and 5 more)"
    assert payload["alerts"][0]["summary"] == "e0 ready again"


class Recorder:
    def __init__(self) -> None:
        self.bells = 0
        self.toasts: list[tuple[str, bool]] = []
        self.written: list[str] = []
        self.commanded: list[Sequence[Alert]] = []


def alerting(recorder: Recorder, **settings: object) -> Alerting:
    return Alerting(
        AlertsConfig.model_validate(settings),
        bell=lambda: setattr(recorder, "bells", recorder.bells + 1),
        toast=lambda text, bad: recorder.toasts.append((text, bad)),
        write_terminal=recorder.written.append,
        command=recorder.commanded.append,
    )


HOSTILE = Alert("environment_unavailable", AT, "gh\x1b]0;pwned\x07ost", message="x;y\nz")


def test_a_batch_rings_once_and_notifies_once_with_inert_text() -> None:
    recorder = Recorder()
    alerting(recorder, bell=True, notify=True).deliver([HOSTILE, HOSTILE])
    assert recorder.bells == 1
    assert len(recorder.toasts) == 1
    assert recorder.toasts[0][1] is True  # an outage is a warning
    (sequence,) = recorder.written
    assert sequence.startswith("\x1b]9;envtui: 2 alerts: ")
    assert sequence.endswith("\x07")
    inner = sequence[len("\x1b]9;") : -1]
    assert "\x1b" not in inner
    assert "\x07" not in inner
    assert "\\x1b]0,pwned\\x07" in inner  # shown, and no ';' to end a field early
    assert len(recorder.commanded) == 1


def test_nothing_is_delivered_unless_asked_for() -> None:
    recorder = Recorder()
    quiet = alerting(recorder)
    quiet.deliver([HOSTILE])
    quiet.deliver([])
    assert (recorder.bells, recorder.toasts, recorder.written) == (0, [], [])


def test_osc_777_names_envtui_as_the_title() -> None:
    assert notification_sequence("flaky ready again", "osc777") == (
        "\x1b]777;notify;envtui;flaky ready again\x07"
    )


def test_inside_tmux_the_notification_is_passed_through() -> None:
    assert notification_sequence("flaky ready again", "osc9", tmux=True) == (
        "\x1bPtmux;\x1b\x1b]9;envtui: flaky ready again\x07\x1b\\"
    )


def args(mode: str, **flags: object) -> argparse.Namespace:
    values = {"mode": mode, "bell": False, "notify": False, "alert_command": None, "follow": False}
    values.update(flags)
    return argparse.Namespace(**values)


def test_flags_add_to_the_configs_alerts_and_a_replay_has_none() -> None:
    config = parse_config('[alerts]\nnotify = true\ncommand = ["notify-send"]\ntimeout = 3\n')
    merged = alerts_for(
        args("watch", bell=True, alert_command="curl -d @- 'https://x/y z'"), config
    )
    assert merged is not None
    assert (merged.bell, merged.notify, merged.timeout) == (True, True, 3.0)
    assert merged.command == ["curl", "-d", "@-", "https://x/y z"]
    assert alerts_for(args("replay", bell=True), config) is None
    assert alerts_for(args("rollout", bell=True), config) is None
    followed = alerts_for(args("rollout", bell=True, follow=True), config)
    assert followed is not None
    assert followed.bell


def test_a_wrong_alerts_key_names_the_file_line_and_key() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config('timezone = "UTC"\n[alerts]\ncommand = "curl -d @- https://x"\n', "c.toml")
    assert str(caught.value).startswith("c.toml:3: alerts.command")


def test_a_thread_that_starts_waiting_alerts_once_per_request_with_a_warning() -> None:
    store = Store()
    store.apply_all([*environments(), command_request(0), command_request(0), command_request(1)])
    alerts = [a for a in store.alerts.take() if a.kind == "request_pending"]
    assert [a.tool for a in alerts] == ["#0", "#1"]
    recorder = Recorder()
    alerting(recorder, notify=True).deliver(alerts[:1])
    ((text, bad),) = recorder.toasts
    assert bad is True
    assert text.startswith("needs you: command on devbox: /bin/bash -lc")
    assert batch_json(alerts)["alerts"][0]["kind"] == "request_pending"
