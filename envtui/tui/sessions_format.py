"""What the sessions table shows for one thread, as plain values, and how rows sort."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from envtui.incidents.thread_summary import ThreadSummary
from envtui.tui.format import clean, glyphs, relative

SESSION_COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("live", "live", 6),
    ("thread", "thread", 38),
    ("cwd", "cwd", 24),
    ("codex", "codex", 14),
    ("profile", "profile", 12),
    ("started", "started", 17),
    ("written", "written", 9),
    ("steps", "steps", 6),
    ("environments", "environments", 14),
    ("primary", "primary", 12),
    ("incidents", "incidents", 30),
)
SESSION_SORTABLE = (
    "written",
    "incidents",
    "thread",
    "cwd",
    "codex",
    "started",
    "steps",
    "environments",
    "primary",
    "live",
)


def environments_text(summary: ThreadSummary) -> str:
    return " ".join(
        f"{glyphs().status(status)}{summary.count(status)}"
        for status in ("ready", "starting", "unavailable")
    )


def session_values(summary: ThreadSummary, now: datetime) -> dict[str, str]:
    started = summary.started.astimezone().strftime("%Y-%m-%d %H:%M") if summary.started else "-"
    steps = str(summary.steps) if summary.steps_exact else f"≥{summary.steps}"
    incidents = f"{glyphs().warning} {', '.join(summary.incidents)}" if summary.incidents else ""
    return {
        "live": "● live" if summary.live else "",
        "thread": clean(summary.thread_id),
        "cwd": clean(summary.cwd) or "-",
        "codex": clean(summary.cli_version) or "-",
        "profile": summary.profile or "-",
        "started": started,
        "written": relative(summary.last_written, now),
        "steps": steps,
        "environments": environments_text(summary),
        "primary": f"{glyphs().primary} {clean(summary.primary)}" if summary.primary else "-",
        "incidents": incidents,
    }


def sort_value(summary: ThreadSummary, key: str) -> Any:
    """What a column sorts by: times and counts as such, the rest as text."""
    if key == "written":
        return -(summary.last_written.timestamp() if summary.last_written else 0.0)
    if key == "started":
        return summary.started.timestamp() if summary.started else 0.0
    if key == "incidents":
        return (-len(summary.incidents), summary.thread_id)
    if key == "steps":
        return summary.steps
    if key == "environments":
        return (-summary.count("unavailable"), -summary.count("starting"), summary.thread_id)
    if key == "live":
        return (not summary.live, summary.thread_id)
    values = {"thread": summary.thread_id, "cwd": summary.cwd, "codex": summary.cli_version}
    values["primary"] = summary.primary
    return values.get(key) or ""
