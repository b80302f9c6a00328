"""Every environment's status over one time axis, with the steps (and any other marks).

The history screen draws this: one row per environment (a cell per column, drawn as the
table's strip draws it: its ready share as a bar, a flap as its own glyph, coloured by the
worst status in that column's time), a row of step marks and a row for each other kind
of mark (incidents) on the same axis, so a drop and what it raised line up. Pure: it takes
the histories and the marks and returns text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo

from rich.cells import cell_len
from rich.text import Text

from envtui.dashboard.log_lines import in_zone
from envtui.dashboard.status_history import Transition
from envtui.dashboard.store import EnvironmentRow, StepRow
from envtui.incidents.fold import Incident
from envtui.tui.format import clean, glyphs, strip_statuses, strip_text, strip_worst

LABEL_MAX = 16
MIN_SPAN = timedelta(minutes=1)


@dataclass(frozen=True)
class Mark:
    """Something that happened at ``at``, drawn as ``glyph`` on the row named ``row``.

    The steps are one row; incidents (opened, resolved) another.
    """

    at: datetime
    row: str
    glyph: str
    style: str = ""


def step_marks(steps: Iterable[StepRow]) -> list[Mark]:
    """A mark for each step that has a time."""
    return [Mark(step.at, "steps", glyphs().mark) for step in steps if step.at is not None]


def incident_marks(incidents: Iterable[Incident], styles: dict[str, str]) -> list[Mark]:
    """A mark where each incident opened (the warning glyph, in the unavailable colour) and
    where it resolved (the ready glyph and colour), so a drop and what it raised line up."""
    marks = []
    for incident in incidents:
        if incident.first_at is not None:
            marks.append(
                Mark(incident.first_at, "incidents", glyphs().warning, styles["unavailable"])
            )
        if incident.resolved_at is not None:
            marks.append(Mark(incident.resolved_at, "incidents", glyphs().ready, styles["ready"]))
    return marks


def span_of(rows: Iterable[EnvironmentRow], marks: Sequence[Mark], end: datetime) -> datetime:
    """Where the whole session's axis starts: the first transition or mark held."""
    firsts = [first for row in rows if (first := row.history.first_at) is not None]
    firsts += [mark.at for mark in marks]
    start = min(firsts, default=end - MIN_SPAN)
    return min(start, end - MIN_SPAN)


def _mark_row(marks: Iterable[Mark], start: datetime, step: timedelta, cells: int) -> Text:
    row = [" "] * cells
    styles = [""] * cells
    for mark in marks:
        index = int((mark.at - start) / step)
        if 0 <= index < cells:
            row[index], styles[index] = mark.glyph, mark.style
    text = Text(no_wrap=True)
    for char, style in zip(row, styles, strict=True):
        text.append(char, style=style)
    return text


def _axis(start: datetime, end: datetime, cells: int, zone: tzinfo | None) -> str:
    left = f"{in_zone(start, zone):%H:%M:%S}"
    right = f"{in_zone(end, zone):%H:%M:%S}"
    middle = f"{in_zone(start + (end - start) / 2, zone):%H:%M:%S}"
    gap = cells - len(left) - len(right) - len(middle)
    if gap < 2:
        return (left + " " * max(1, cells - len(left) - len(right)) + right)[:cells]
    return left + " " * (gap // 2) + middle + " " * (gap - gap // 2) + right


def timeline(
    rows: Sequence[EnvironmentRow],
    marks: Sequence[Mark],
    start: datetime,
    end: datetime,
    width: int,
    styles: dict[str, str],
    zone: tzinfo | None = None,
) -> Text:
    """The axis, a row per kind of mark, then a row per environment, ``width`` cells wide."""
    names = list(dict.fromkeys(mark.row for mark in marks))
    widest = [5, *(len(name) for name in names), *(cell_len(clean(row.id)) for row in rows)]
    label = min(LABEL_MAX, max(widest))
    cells = max(10, width - label - 1)
    step = (end - start) / cells
    out = Text(no_wrap=True)
    out.append(f"{'':<{label}} {_axis(start, end, cells, zone)}\n", style="dim")
    for name in names:
        out.append(f"{name[:label]:<{label}} ")
        out.append(_mark_row((m for m in marks if m.row == name), start, step, cells))
        out.append("\n")
    for row in rows:
        out.append(f"{clean(row.id)[:label]:<{label}} ")
        strip = row.history.strip(end, cells, step)
        shown, worst = strip_text(strip), strip_statuses(strip_worst(strip))
        for char, status in zip(shown, worst, strict=True):
            out.append(char, style=styles.get(status, ""))
        out.append("\n")
    return out


def summary(rows: Sequence[EnvironmentRow], start: datetime, end: datetime) -> str:
    """Per environment over the axis: availability, flaps, transitions held."""
    lines = []
    for row in rows:
        history = row.history
        availability = history.availability(start, end)
        share = "-" if availability is None else f"{availability:.0%}"
        count = history.held + history.dropped
        summed = (
            f", the first {history.dropped} kept as sums per {history.summary.width:g} s"
            if history.dropped
            else ""
        )
        lines.append(
            f"{clean(row.id)}: available {share}, {history.flaps(start, end)} flap(s), "
            f"{count} transition(s){summed}"
        )
    return "\n".join(lines)


def transitions_text(
    rows: Sequence[EnvironmentRow], steps: Sequence[StepRow], zone: tzinfo | None, limit: int
) -> str:
    """Every transition held, newest first, with the step that was latest when it came."""
    merged: list[tuple[Transition, str, str | None]] = []
    for row in rows:
        previous: str | None = None
        for transition in row.history.transitions:
            merged.append((transition, row.id, previous))
            previous = transition.status
    merged.sort(key=lambda item: item[0].at, reverse=True)
    dated = [(s.at, s.number) for s in steps if s.at is not None]
    lines = []
    for transition, env_id, previous in merged[:limit]:
        before = [number for at, number in dated if at <= transition.at]
        during = f"  (step {before[-1]})" if before else ""
        moved = (
            f"{previous} {glyphs().arrow} {transition.status}" if previous else transition.status
        )
        when = f"{in_zone(transition.at, zone):%H:%M:%S}"
        lines.append(f"{when}  {clean(env_id)}  {moved}{during}")
    return "\n".join(lines) if lines else "no transitions yet"
