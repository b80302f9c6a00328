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

from envtui.dashboard.log_lines import in_zone
from envtui.dashboard.needs_you import STATUS_WORDS
from envtui.dashboard.status_history import STRIP_CELLS, STRIP_INTERVAL, Cell, strip_end
from envtui.dashboard.store import EnvironmentRow, SourceRow, StepRow, Store
from envtui.tui.options import DashboardOptions
from envtui.vocabulary.safe_text import one_line
from envtui.vocabulary.terms import duration_words


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
    times: str
    """Before a folded line's count (a multiplication sign, or x)."""
    unknown: str
    """A status strip's cell of which nothing is known (never seen, or out of the selection)."""
    bars: str
    """A strip cell's ready share, lowest first; the last is ready all along."""
    flapped: str
    """A strip cell in which it went between ready and not ready and back (a flap)."""
    mark: str
    """A step on the history screen's time axis."""
    arrow: str
    """From one status to the next."""
    focus: str = "\N{BLACK RIGHT-POINTING TRIANGLE}"
    """Before the title of the panel that has the focus."""

    def status(self, status: str) -> str:
        return {
            "ready": self.ready,
            "starting": self.starting,
            "unavailable": self.unavailable,
        }.get(status, "?")


UNICODE = Glyphs(
    "●", "◐", "✕", "★", "⚠", "■", "↓", "\N{MULTIPLICATION SIGN}", "·", "▁▂▃▄▅▆▇█", "▚", "│", "→"
)
ASCII = Glyphs("+", "~", "x", "*", "!", "#", "v", "x", ".", "_-=#", "%", "|", "->", ">")
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
    Column("primary", "", 1, 12),
    Column("status", "status", 13, 11),
    Column("id", "id", 16, 10),
    Column("strip", "last 5 min", STRIP_CELLS, 8),
    Column("avail", "avail", 5, 5),
    Column("flaps", "flaps", 5, 4),
    Column("kind", "kind", 11, 3),
    Column("cwd", "cwd", 12, 6),
    Column("shell", "shell", 8, 2),
    Column("changed", "changed", 10, 7),
    Column("error", "error", 34, 9),
)
SORTABLE = (
    "selection",
    "status",
    "id",
    "avail",
    "flaps",
    "kind",
    "cwd",
    "shell",
    "changed",
    "error",
)
STRIP_WINDOW = STRIP_INTERVAL * STRIP_CELLS
STRIP_WORST = "strip worst"
"""Beside ``strip`` in a row's values: its cells' colours (not a column of its own)."""
TIMED = frozenset({"changed", "strip", "avail", "flaps"})
HISTORY_KEYS = frozenset({"strip", "avail", "flaps"})
"""The columns whose text moves on with the clock alone."""
CELL_PADDING = 2  # DataTable's one space either side of a cell
CWD_MAX = 40
ID_MAX = 24
FITTED = ("id", "kind", "shell")
"""Columns as narrow as their longest value (and their label), at most their width."""
GROWING = ("cwd", "error")
"""Columns that take the room left over, up to their longest value."""


def column_layout(width: int, longest: dict[str, int]) -> tuple[tuple[str, str, int], ...]:
    """``(key, label, width)`` of the columns that fit in ``width`` cells, in display order.

    One rule at every width, live or not: which columns are shown depends on the width
    alone (and how long ids, kinds and shells are, as ``id``, ``kind`` and ``shell`` are
    as narrow as their longest value): they are taken by their ``keep``, each at its
    narrowest, as long as they fit, so a long error never pushes the history out and a
    rollout's table has the columns a live one has. The room left over goes where a value
    is cut: first to the one that needs least (a cwd is shown whole, up to 40), then to
    the other; what still remains widens the widest useful column, the error (`enter`
    shows any value whole).
    """
    minimum = {c.key: c.width for c in COLUMNS}
    for column in COLUMNS:
        if column.key in FITTED:
            cap = ID_MAX if column.key == "id" else column.width
            minimum[column.key] = max(4, len(column.label), min(longest.get(column.key, 0), cap))
    kept: list[str] = []
    used = 0
    for column in sorted(COLUMNS, key=lambda c: -c.keep):
        if used + minimum[column.key] + CELL_PADDING <= width:
            kept.append(column.key)
            used += minimum[column.key] + CELL_PADDING
    spare = max(0, width - used)
    widths = {key: minimum[key] for key in kept}
    wanted = {"cwd": min(longest.get("cwd", 0), CWD_MAX), "error": longest.get("error", 0)}
    needs = {key: max(0, wanted[key] - widths[key]) for key in GROWING if key in widths}
    for key in sorted(needs, key=lambda k: needs[k]):
        grow = min(needs[key], spare)
        widths[key] += grow
        spare -= grow
    last = next((key for key in ("error", "cwd") if key in widths), None)
    if last is not None:
        widths[last] += spare
    return tuple((c.key, c.label, widths[c.key]) for c in COLUMNS if c.key in widths)


def status_text(status: str) -> str:
    return f"{glyphs().status(status)} {status}"


def relative(then: datetime | None, now: datetime) -> str:
    """``then`` from ``now``: "now", "5 s ago", "in 5 s", "2 min ago", "3 h ago", "2 d ago"."""
    if then is None:
        return "-"
    seconds = int((now - then).total_seconds())
    if seconds == 0:
        return "now"
    amount = duration_words(abs(seconds), brief=True)
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


def cell_glyph(cell: Cell) -> str:
    """One strip cell, readable without colour: not known; flapped; never ready (the status
    it was in: ✕ or ◐); else a bar as high as its ready share (full: ready all along)."""
    shown = glyphs()
    if cell.worst is None:
        return shown.unknown
    if cell.flapped:
        return shown.flapped
    if cell.ready <= 0:
        return shown.status(cell.worst)
    bars = shown.bars
    if cell.ready >= 1 - 1e-9:
        return bars[-1]
    return bars[min(len(bars) - 2, int(cell.ready * (len(bars) - 1)))]


def strip_text(cells: Sequence[Cell]) -> str:
    """A status strip as glyphs, oldest first: readable without colour (and in ASCII)."""
    return "".join(cell_glyph(cell) for cell in cells)


WORST_CODES = {"ready": "r", "starting": "s", "unavailable": "u"}
STATUS_OF_CODE = {code: status for status, code in WORST_CODES.items()}


def strip_worst(cells: Sequence[Cell]) -> str:
    """Each cell's worst status as one letter (``-``: not known): what colours the strip."""
    return "".join(WORST_CODES.get(cell.worst or "", "-") for cell in cells)


def strip_statuses(worst: str) -> list[str]:
    """The status that colours each cell of a strip (from :func:`strip_worst`); "" where
    nothing is known."""
    return [STATUS_OF_CODE.get(code, "") for code in worst]


def strip_legend() -> str:
    """What the strip's glyphs mean, in the glyphs in force."""
    shown = glyphs()
    return (
        f"{shown.bars[-1]} ready   {shown.bars[:-1]} ready part of the time   "
        f"{shown.flapped} went up and down   {shown.unavailable} {shown.starting} never "
        f"ready   {shown.unknown} not seen   colour: the worst status in the cell"
    )


def timed_values(
    row: EnvironmentRow, now: datetime, latest: datetime | None, keys: frozenset[str] = TIMED
) -> dict[str, str]:
    """The cells among ``keys`` that change with time: the strip of the last minutes, the
    availability and the flaps over them (ending at the last event when a replay is over),
    and "changed". Only the columns shown are computed."""
    values = {"changed": relative(row.changed_at, now)}
    if not keys & HISTORY_KEYS:
        return values
    window = row.history.recent(strip_end(now, latest, STRIP_WINDOW), STRIP_CELLS, STRIP_INTERVAL)
    values["strip"] = strip_text(window.cells)
    values[STRIP_WORST] = strip_worst(window.cells)
    availability = window.availability
    values["avail"] = "-" if availability is None else f"{availability:.0%}"
    values["flaps"] = str(window.flaps)
    return values


def row_values(
    row: EnvironmentRow,
    now: datetime,
    latest: datetime | None = None,
    keys: frozenset[str] = TIMED,
) -> dict[str, str]:
    """Every cell's text; of the history's columns, those among ``keys`` (the ones shown)."""
    return {
        "primary": glyphs().primary if row.primary else "",
        "status": status_text(row.status),
        "id": clean(row.id),
        **timed_values(row, now, latest, keys),
        "kind": clean(row.kind),
        "cwd": clean(row.cwd),
        "shell": clean(row.shell) or "-",
        "error": needs_you_mark(row) + clean(row.error),
    }


def needs_you_mark(row: EnvironmentRow) -> str:
    """Before the error: that Codex waits on the operator for this environment."""
    if not row.waiting:
        return ""
    count = f"{row.waiting} approvals" if row.waiting > 1 else "an approval"
    return f"{glyphs().warning} needs you: {count} waits" + (" · " if row.error else "")


def sort_value(row: EnvironmentRow, key: str, values: dict[str, str]) -> Any:
    """What a row sorts by: the selection order, the status's meaning, the time itself
    (so the order holds as times tick on), else the shown text ignoring case."""
    if key == "selection":
        return row.order
    if key == "status":
        return (STATUS_ORDER.get(row.status, 3), row.order)
    if key == "changed":
        return (row.changed_at.timestamp() if row.changed_at else float("-inf"), row.order)
    if key in ("avail", "flaps"):  # numbers: the least available, the fewest flaps first
        digits = values.get(key, "").rstrip("%")
        return (int(digits) if digits.isdigit() else 101, row.order)
    return (values[key].lower(), row.order)


def matches(values: dict[str, str], needle: str) -> bool:
    """The filter: a case-insensitive substring of any column."""
    needle = needle.lower()
    return any(needle in value.lower() for key, value in values.items() if key != STRIP_WORST)


def fit(parts: Sequence[tuple[int, str]], width: int, separator: str = "  ·  ") -> str:
    """``parts`` (priority, text) joined in order; the lowest priorities are left out until
    the line fits ``width`` cells (the highest is kept, cut, if alone it is too long)."""
    shown = [part for part in parts if part[1]]
    while len(shown) > 1 and cell_len(separator.join(text for _, text in shown)) > width:
        lowest = min(range(len(shown)), key=lambda i: (shown[i][0], -i))
        del shown[lowest]
    return separator.join(text for _, text in shown)


def header_line(
    store: Store,
    options: DashboardOptions,
    step: StepRow | None,
    active: int,
    paused_for: int | None,
    width: int,
) -> str:
    """The main screen's header: what runs, any source that is not up, the step shown, the
    clock, the active incidents, and (``paused_for`` not None) how many events wait."""
    now = options.clock()
    parts: list[tuple[int, str]] = [(10, f"envtui · {one_line(options.source_name)}")]
    for row in store.sources.values():
        parts.append((10, source_badge(row, now, options.zone)))
    if store.thread:
        parts.append((5, f"thread {one_line(store.thread)}"))
    status = store.needs_you.status
    if status is not None:
        waiting = f"{glyphs().warning} " if store.needs_you.waiting else ""
        parts.append((8 if waiting else 3, f"{waiting}{STATUS_WORDS[status]}"))
    if step is not None:
        latest = store.steps[-1].number
        if step.number != latest:
            # above the source's name: a narrow header still says it is not live
            parts.append((11, f"step {step.number} of {latest} · not live · G: live"))
        else:
            parts.append((4, f"step {step.number}"))
        if step.current_date or step.timezone:  # the date and zone the model is told
            when = f"{step.current_date or '-'} {step.timezone or ''}".rstrip()
            parts.append((1, f"model sees {one_line(when)}"))
    parts.append((6, clock_text(now, options.zone)))
    if active:
        parts.append((7, f"{glyphs().warning} {active}"))
    if paused_for is not None:
        parts.append((9, f"PAUSED +{paused_for} events"))
    return fit(parts, width)


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
