"""The served stream keeps an unused notification's method, not its params, and a bounded
number of each method; everything else passes unchanged."""

from __future__ import annotations

import pytest

from envtui.commands.serve import stream_thinning
from envtui.commands.serve.stream_thinning import thinned
from envtui.vocabulary.events import (
    EnvironmentConnected,
    Event,
    UnknownMessage,
    WarningMessage,
    encode_event,
    thread_event,
)


def notification(method: str, params: object) -> Event:
    raw = {"type": "codex_notification", "method": method, "params": params}
    return thread_event(UnknownMessage(type="codex_notification", raw=raw))


def test_params_are_dropped_but_known_events_and_config_warnings_pass_whole() -> None:
    kept: list[Event] = []
    write = thinned(kept.append)
    connected = thread_event(EnvironmentConnected(environment_id="local"))
    warning = notification("configWarning", {"summary": "unknown key"})
    write(connected)
    write(notification("item/agentMessage/delta", {"delta": "x" * 100_000}))
    write(warning)
    assert kept[0] == connected
    assert kept[2] == warning
    delta = kept[1].msg
    assert isinstance(delta, UnknownMessage)
    assert delta.raw == {"type": "codex_notification", "method": "item/agentMessage/delta"}
    assert len(encode_event(kept[1])) < 200


def test_at_most_a_bound_of_one_method_then_one_line_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stream_thinning, "PER_METHOD", 3)
    kept: list[Event] = []
    write = thinned(kept.append)
    for _ in range(50):
        write(notification("thread/tokenUsage/updated", {"n": 1}))
    write(notification("turn/plan/updated", {}))
    assert len(kept) == 3 + 1 + 1
    note = kept[3].msg
    assert isinstance(note, WarningMessage)
    assert "thread/tokenUsage/updated" in note.message
    assert isinstance(kept[4].msg, UnknownMessage)
