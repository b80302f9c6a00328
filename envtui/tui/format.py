"""What the table and panels show, as plain values: glyphs, words, relative times.

Status is never colour alone: every status is a glyph and a word, readable with NO_COLOR
and in any theme; ``ascii=True`` gives glyphs every terminal has.
"""

from __future__ import annotations

import unicodedata
from datetime import datetime

from envtui.safe_text import one_line
from envtui.store import EnvironmentRow

GLYPHS = {"ready": "●", "starting": "◐", "unavailable": "✕"}
ASCII_GLYPHS = {"ready": "+", "starting": "~", "unavailable": "x"}
PRIMARY, ASCII_PRIMARY = "★", "*"
WARNING, ASCII_WARNING = "⚠", "!"

COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("primary", "", 2),
    ("status", "status", 14),
    ("id", "id", 16),
    ("kind", "kind", 12),
    ("cwd", "cwd", 28),
    ("shell", "shell", 8),
    ("changed", "changed", 9),
    ("error", "error", 48),
)
SORTABLE = ("selection", "status", "id", "kind", "cwd", "shell", "changed", "error")


def status_text(status: str, *, ascii: bool = False) -> str:
    glyph = (ASCII_GLYPHS if ascii else GLYPHS).get(status, "?")
    return f"{glyph} {status}"


def ago(then: datetime | None, now: datetime) -> str:
    if then is None:
        return "-"
    seconds = max(0, int((now - then).total_seconds()))
    if seconds < 60:
        return f"{seconds}s ago"
    if seconds < 3600:
        return f"{seconds // 60}m ago"
    return f"{seconds // 3600}h ago"


def clean(value: str | None) -> str:
    """Untrusted text for one table cell: invisible characters shown, one line.

    Composed (NFC) first, so a letter and its combining accent take one cell, as the
    terminal draws them, and the columns stay aligned.
    """
    return one_line(unicodedata.normalize("NFC", value or ""))


def row_values(row: EnvironmentRow, now: datetime, *, ascii: bool = False) -> dict[str, str]:
    return {
        "primary": (ASCII_PRIMARY if ascii else PRIMARY) if row.primary else "",
        "status": status_text(row.status, ascii=ascii),
        "id": clean(row.id),
        "kind": clean(row.kind),
        "cwd": clean(row.cwd),
        "shell": clean(row.shell) or "-",
        "changed": ago(row.changed_at, now),
        "error": clean(row.error),
    }


def matches(values: dict[str, str], needle: str) -> bool:
    """The filter: a case-insensitive substring of any column."""
    needle = needle.lower()
    return any(needle in value.lower() for value in values.values())
