"""What the sessions table shows for one thread, as plain values, and how rows sort.

State comes first (live, the environments at the latest step: ready of all, the primary
and any unavailable; active incidents), then a short id, then when and how the thread
was written. Thread ids are UUIDv7: their first characters are the time they were made,
shared by every thread started in the same minute, so the short id is their last 8
characters (the random part, ``…9aa14a85``); the full id is in the details line and in
``--json``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from envtui.incidents.fleet_rows import HostFreshness
from envtui.incidents.thread_summary import ThreadSummary
from envtui.tui.format import ASCII, clean, glyphs, relative

SESSION_COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("live", "live", 6),
    ("environments", "environments", 22),
    ("incidents", "incidents", 20),
    ("thread", "thread", 9),
    ("written", "written", 10),
    ("steps", "steps", 5),
    ("codex", "codex", 8),
    ("cwd", "cwd", 24),
    ("started", "started", 16),
    ("profile", "profile", 11),
)
SESSION_SORTABLE = (
    "written",
    "incidents",
    "live",
    "environments",
    "thread",
    "cwd",
    "codex",
    "started",
    "steps",
)
HOST_COLUMNS: tuple[tuple[str, str, int], ...] = (("host", "host", 10), ("state", "state", 19))
"""Leading the table when it shows configured hosts: each row's host and live state."""
NAME_COLUMN = ("name", "name", 24)
"""After the short id when the table shows hosts: the thread's name or preview, as its
host's daemon lists it (one line, cut to the column)."""
TIMED = frozenset({"written"})
"""The columns whose text moves with the clock alone."""
SHORT_ID = 8
SHOWN_DOWN = 3
"""Unavailable environments a row names; the rest are counted (a thread may name 10,000)."""


def live_glyph() -> str:
    """Not the ready glyph: a live thread and a ready environment are different things."""
    return "@" if glyphs() is ASCII else "◉"


def breadcrumb() -> str:
    """Between the parts of the header's path (a single right-pointing angle quote)."""
    return ">" if glyphs() is ASCII else "\N{SINGLE RIGHT-POINTING ANGLE QUOTATION MARK}"


def short_id(thread_id: str) -> str:
    """The last 8 characters, marked as a part (see the module)."""
    if len(thread_id) <= SHORT_ID:
        return clean(thread_id)
    return (".." if glyphs() is ASCII else "…") + clean(thread_id[-SHORT_ID:])


def environments_text(summary: ThreadSummary) -> str:
    """The thread's environments at its latest step as an operator asks after them: how
    many of all are ready, which is the primary, which are unavailable (``2/3 ★ local
    ✕ gpu``); ``? unknown`` when no world state was read."""
    if not summary.environments_known:
        return "? unknown"
    parts = [f"{summary.count('ready')}/{len(summary.environments)}"]
    if summary.primary:
        parts.append(f"{glyphs().primary} {clean(summary.primary)}")
    unavailable = summary.unavailable()
    parts.extend(f"{glyphs().unavailable} {clean(env)}" for env in unavailable[:SHOWN_DOWN])
    if len(unavailable) > SHOWN_DOWN:
        parts.append(f"+{len(unavailable) - SHOWN_DOWN}")
    return " ".join(parts)


def written_text(summary: ThreadSummary, now: datetime) -> str:
    """How long ago the file was written, to the minute: the text moves at most once a
    minute, so the clock redraws a row rarely (and only the rows on screen)."""
    then = summary.last_written
    if then is None:
        return "-"
    seconds = (now - then).total_seconds()
    if -60 < seconds < 60:
        return "<1 min ago"
    return relative(then, now)


def columns(hosts: bool) -> tuple[tuple[str, str, int], ...]:
    """The table's columns: with hosts, each row's host and state first and its name
    after the short id (see :data:`HOST_COLUMNS`)."""
    if not hosts:
        return SESSION_COLUMNS
    keys = [key for key, _, _ in SESSION_COLUMNS]
    at = keys.index("thread") + 1
    return HOST_COLUMNS + SESSION_COLUMNS[:at] + (NAME_COLUMN,) + SESSION_COLUMNS[at:]


def host_values(summary: ThreadSummary, state: str, name: str | None = None) -> dict[str, str]:
    """The host columns' cells (see HOST_COLUMNS): ``state`` is the row's live state,
    ``name`` the thread's name or preview (from its host's daemon)."""
    return {"host": clean(summary.host) or "-", "state": state, "name": clean(name) or "-"}


def nested(text: str, depth: int) -> str:
    """A sub-agent's cell, drawn under its parent: indented, with a branch."""
    if depth <= 0:
        return text
    branch = "`-" if glyphs() is ASCII else "└"
    return " " * (depth - 1) + branch + text


def hosts_text(hosts: list[HostFreshness], now: datetime, interval: float) -> str:
    """Each host's freshness for the header: reached or not (and why), when last heard
    from when that is stale, its Codex version, marked when it differs from the others'."""
    parts = []
    for host in hosts:
        state, reason = host.shown()
        words = [clean(host.name), state]
        if reason and state != "connected":
            words.append(f"({clean(reason)})")
        heard = host.heard()
        if heard is not None and (state != "connected" or host.stale(now, interval)):
            words.append(f"last heard {relative(heard, now)}")
        if host.codex_version:
            marked = f" {glyphs().warning} differs" if host.version_differs else ""
            words.append(f"codex {clean(host.codex_version)}{marked}")
        if host.daemon_version:
            marked = ""
            if host.daemon_differs:
                marked = f" {glyphs().warning} not the CLI's"
            words.append(f"daemon {clean(host.daemon_version)}{marked}")
        if host.live is None:
            words.append("files only" if host.daemon in (None, "no daemon") else "no live status")
        parts.append(" ".join(words))
    return "  ·  ".join(parts)


def session_values(summary: ThreadSummary, now: datetime) -> dict[str, str]:
    started = summary.started.astimezone().strftime("%Y-%m-%d %H:%M") if summary.started else "-"
    steps = str(summary.steps) if summary.steps_exact else f"≥{summary.steps}"
    incidents = f"{glyphs().warning} {', '.join(summary.incidents)}" if summary.incidents else ""
    if not summary.rollout_read:  # the daemon's row: nothing of its rollout is known
        steps, incidents = "-", "? rollout not read"
    if summary.incidents_not_known:
        unknown = f"{', '.join(summary.incidents_not_known)} not known"
        incidents = f"{incidents}; {unknown}" if incidents else f"? {unknown}"
    return {
        "live": f"{live_glyph()} live" if summary.live else "",
        "environments": environments_text(summary),
        "incidents": incidents,
        "thread": short_id(summary.thread_id),
        "written": written_text(summary, now),
        "steps": steps,
        "codex": clean(summary.cli_version) or "-",
        "cwd": clean(summary.cwd) or "-",
        "started": started,
        "profile": summary.profile or "-",
    }


def filter_text(summary: ThreadSummary, values: dict[str, str]) -> dict[str, str]:
    """What a filter matches: the cells, and the full id and path behind the short id."""
    return {**values, "id": clean(summary.thread_id), "path": clean(summary.path)}


def details_text(summary: ThreadSummary) -> str:
    """The line under the table for the thread under the cursor: the full id first."""
    parts = [f"thread {clean(summary.thread_id)}", clean(summary.path)]
    if not summary.rollout_read:
        parts.append(
            "from its daemon: loaded, its rollout not read (outside --since, or not yet written)"
        )
    elif not summary.is_rollout:
        parts.append("not a Codex rollout: no line read is a rollout item")
    elif not summary.environments_known:
        parts.append("environments unknown: no world state read (a fork without its parent?)")
    if summary.bad_lines:
        parts.append(f"{summary.bad_lines} broken line(s)")
    return "  ·  ".join(parts)


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
        not_ready = len(summary.environments) - summary.count("ready")
        return (-summary.count("unavailable"), -not_ready, summary.thread_id)
    if key == "live":
        return (not summary.live, summary.thread_id)
    values = {"thread": summary.thread_id, "cwd": summary.cwd, "codex": summary.cli_version}
    return values.get(key) or ""
