"""What a Codex source says of itself: thread events at its clock's time, a retry dated."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from envtui.vocabulary.events import Event, SourceStatus, WarningMessage
from envtui.vocabulary.source_voice import SourceVoice

NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)


def test_a_status_is_a_thread_event_with_its_retry_time_from_the_same_clock() -> None:
    said: list[Event] = []
    voice = SourceVoice("codex daemon", lambda: NOW, said.append)
    voice.status("restarting", "gone", thread="t1", restarts=2, retry_in=4)
    voice.status("up")
    assert [(e.id, e.at) for e in said] == [("", NOW), ("", NOW)]
    assert said[0].msg == SourceStatus(
        source="codex daemon",
        state="restarting",
        reason="gone",
        thread="t1",
        restarts=2,
        next_retry_at=NOW + timedelta(seconds=4),
    )
    assert said[1].msg == SourceStatus(source="codex daemon", state="up")


def test_before_a_sink_is_given_nothing_is_said_and_after_it_everything() -> None:
    said: list[Event] = []
    voice = SourceVoice("app-server", lambda: NOW)
    voice.say(WarningMessage(message="lost", severity="info"))
    voice.sink = said.append
    voice.say(WarningMessage(message="attached", severity="info"))
    assert [e.msg for e in said] == [WarningMessage(message="attached", severity="info")]
