"""What the table, header and panels show, as plain values: glyphs, words, times, widths.

Status is never colour alone: every status is a glyph and a word, readable with NO_COLOR
and in any theme; :func:`use_ascii` switches every glyph to ones every terminal has.
Every time on the screen is written in one zone, named next to the clock; relative times
read "5 s ago", "in 5 s".
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any

from rich.cells import cell_len

from envtui.safe_text import one_line
from envtui.store import EnvironmentRow, SourceRow, in_zone


@dataclass(frozen=True)
class Glyphs:
    """Every glyph the dashboard draws; each status is also always a word beside it."""

    ready: str
    starting: str
    unavailable: str
    primary: str
    warning: str
    ended: str
    below: str

    def status(self, status: str) -> str:
        return {
            "ready": self.ready,
            "starting": self.starting,
            "unavailable": self.unavailable,
        }.get(status, "?")


UNICODE = Glyphs("●", "◐", "✕", "★", "⚠", "■", "↓")
ASCII = Glyphs("+", "~", "x", "*", "!", "#", "v")
"""Glyphs every terminal and font has (``--ascii``, or ``ascii = true`` in the config)."""

_glyphs = UNICODE


def glyphs() -> Glyphs:
    """The glyphs in force for this dashboard."""
    return _glyphs


def use_ascii(enabled: bool) -> None:
    """Draw with :data:`ASCII` (or back to :data:`UNICODE`): chosen once, when the app starts."""
    global _glyphs
    _glyphs = ASCII if enabled else UNICODE


STATUS_ORDER = {"ready": 0, "starting": 1, "unavailable": 2}
"""How statuses sort: by meaning, not by the code points of their glyphs."""


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    width: int
    """The narrowest it is shown; ``cwd`` and ``error`` grow into the space left over."""
    keep: int
    """As the table narrows, columns with the lowest ``keep`` leave first."""


COLUMNS: tuple[Column, ...] = (
    Column("primary", "", 1, 9),
    Column("status", "status", 13, 8),
    Column("id", "id", 16, 7),
    Column("kind", "kind", 11, 3),
    Column("cwd", "cwd", 12, 4),
    Column("shell", "shell", 8, 2),
    Column("changed", "changed", 10, 5),
    Column("error", "error", 28, 6),
)
SORTABLE = ("selection", "status", "id", "kind", "cwd", "shell", "changed", "error")
CELL_PADDING = 2  # DataTable's one space either side of a cell
CWD_MAX = 40
ID_MAX = 24


def column_layout(width: int, longest: dict[str, int]) -> tuple[tuple[str, str, int], ...]:
    """``(key, label, width)`` of the columns that fit in ``width`` cells, in display order.

    ``longest`` is the widest value of ``id`` and ``cwd``: the id column is as wide as the
    longest id (4 to 24). Columns leave in the order of their ``keep``; what is left over
    widens ``cwd`` up to its longest value (at most 40) with a third of it, and ``error``
    with the rest, so a wide terminal shows long errors whole and a narrow one every error.
    """
    minimum = {c.key: c.width for c in COLUMNS}
    minimum["id"] = max(4, min(longest.get("id", 0), ID_MAX))
    kept: list[str] = []
    used = 0
    for column in sorted(COLUMNS, key=lambda c: -c.keep):
        if used + minimum[column.key] + CELL_PADDING <= width:
            kept.append(column.key)
            used += minimum[column.key] + CELL_PADDING
    spare = max(0, width - used)
    widths = {key: minimum[key] for key in kept}
    if "cwd" in widths:
        grow = min(spare // 3, max(0, min(longest.get("cwd", 0), CWD_MAX) - widths["cwd"]))
        widths["cwd"] += grow
        spare -= grow
    if "error" in widths:
        widths["error"] += spare
    return tuple((c.key, c.label, widths[c.key]) for c in COLUMNS if c.key in widths)


def status_text(status: str) -> str:
    return f"{glyphs().status(status)} {status}"


def relative(then: datetime | None, now: datetime) -> str:
    """``then`` from ``now``: "now", "5 s ago", "in 5 s", "2 min ago", "3 h ago", "2 d ago"."""
    if then is None:
        return "-"
    seconds = int((now - then).total_seconds())
    size = abs(seconds)
    if size < 1:
        return "now"
    if size < 60:
        amount = f"{size} s"
    elif size < 3600:
        amount = f"{size // 60} min"
    elif size < 86400:
        amount = f"{size // 3600} h"
    else:
        amount = f"{size // 86400} d"
    return f"{amount} ago" if seconds > 0 else f"in {amount}"


def clock_text(now: datetime, zone: tzinfo | None) -> str:
    """The header's clock, with the zone it is in: ``12:00:30 UTC``."""
    shown = in_zone(now, zone)
    return f"{shown:%H:%M:%S} {shown.tzname() or ''}".rstrip()


def time_text(when: datetime | None, now: datetime, zone: tzinfo | None) -> str:
    """A time for a detail screen: ``12:00:01 UTC (29 s ago)``; the date too when not today."""
    if when is None:
        return "-"
    shown, today = in_zone(when, zone), in_zone(now, zone)
    day = "" if shown.date() == today.date() else f"{shown:%Y-%m-%d} "
    return f"{day}{shown:%H:%M:%S} {shown.tzname() or ''}".rstrip() + f" ({relative(when, now)})"


def clean(value: str | None) -> str:
    """Untrusted text for one table cell: invisible characters shown, one line.

    Composed (NFC) first, so a letter and its combining accent take one cell, as the
    terminal draws them, and the columns stay aligned.
    """
    return one_line(unicodedata.normalize("NFC", value or ""))


def row_values(row: EnvironmentRow, now: datetime) -> dict[str, str]:
    return {
        "primary": glyphs().primary if row.primary else "",
        "status": status_text(row.status),
        "id": clean(row.id),
        "kind": clean(row.kind),
        "cwd": clean(row.cwd),
        "shell": clean(row.shell) or "-",
        "changed": relative(row.changed_at, now),
        "error": clean(row.error),
    }


def sort_value(row: EnvironmentRow, key: str, values: dict[str, str]) -> Any:
    """What a row sorts by: the selection order, the status's meaning, the time itself
    (so the order holds as times tick on), else the shown text ignoring case."""
    if key == "selection":
        return row.order
    if key == "status":
        return (STATUS_ORDER.get(row.status, 3), row.order)
    if key == "changed":
        return (row.changed_at.timestamp() if row.changed_at else float("-inf"), row.order)
    return (values[key].lower(), row.order)


def matches(values: dict[str, str], needle: str) -> bool:
    """The filter: a case-insensitive substring of any column."""
    needle = needle.lower()
    return any(needle in value.lower() for value in values.values())


def fit(parts: Sequence[tuple[int, str]], width: int, separator: str = "  ·  ") -> str:
    """``parts`` (priority, text) joined in order; the lowest priorities are left out until
    the line fits ``width`` cells (the highest is kept, cut, if alone it is too long)."""
    shown = [part for part in parts if part[1]]
    while len(shown) > 1 and cell_len(separator.join(text for _, text in shown)) > width:
        lowest = min(range(len(shown)), key=lambda i: (shown[i][0], -i))
        del shown[lowest]
    return separator.join(text for _, text in shown)


def source_badge(row: SourceRow, now: datetime, zone: tzinfo | None) -> str:
    """A source's lasting mark in the header: empty while it is up and was never restarted."""
    name = clean(row.name)
    since = clock_text(row.since, zone) if row.since else "-"
    reason = f" ({clean(row.reason)})" if row.reason else ""
    restarts = f" · restarts {row.restarts}" if row.restarts else ""
    if row.state == "up":
        return f"{name} up{restarts}" if row.restarts else ""
    if row.state == "ended":
        return f"{glyphs().ended} {name} ended {since}"
    badge = f"{glyphs().unavailable} {name} down since {since}{reason}{restarts}"
    if row.state == "restarting" and row.next_retry_at is not None:
        badge += f" · restart {relative(row.next_retry_at, now)}"
    return badge
