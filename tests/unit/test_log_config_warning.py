"""Codex's configWarning is logged with what it says, not by its method name alone."""

from __future__ import annotations

from tests.support.scenarios.scripted_stream import at

from envtui.dashboard.log_lines import log_entry
from envtui.vocabulary.events import UnknownMessage, thread_event


def warning_line(params: object) -> str:
    raw = {"type": "codex_notification", "method": "configWarning", "params": params}
    return log_entry(
        thread_event(UnknownMessage(type="codex_notification", raw=raw), at=at(0))
    ).text


def test_a_config_warning_says_its_summary_details_and_file() -> None:
    line = warning_line(
        {"summary": "unknown key `modle`", "details": "did you mean `model`?", "path": "/c.toml"}
    )
    assert line.endswith("configWarning: unknown key `modle`: did you mean `model`? (/c.toml)")


def test_a_config_warning_without_words_says_so() -> None:
    assert warning_line({}).endswith("configWarning: (no summary)")
    assert warning_line("not an object").endswith("configWarning: (no summary)")


def test_other_notifications_keep_their_method_name() -> None:
    raw = {"type": "codex_notification", "method": "turn/plan/updated", "params": {}}
    entry = log_entry(thread_event(UnknownMessage(type="codex_notification", raw=raw), at=at(0)))
    assert entry.text.endswith("turn/plan/updated")
