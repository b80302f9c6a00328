"""The incidents on screen: the list, the banner's words and one incident's history.

The list answers "what is wrong now, since when, did it recover": active incidents first,
then acknowledged, then resolved, newest first within each, each with its state, how long
it lasted (or lasts) and how many steps raised it. The resolved episodes of one code and
subject are one row (``resolved x149 in 33 min 10 s, last 2 s ago``): a host that flaps all
afternoon is one line, not a wall of clones; enter on it lists each episode, and ``r``
hides the resolved rows. Each row has a stable id, so the cursor stays on the same
incident (or fold) while the list re-sorts around it.
The texts are pure functions, tested without a running app; every name and message in
them comes from outside and is made safe (:mod:`envtui.vocabulary.safe_text`) before it is drawn.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import var
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from envtui.dashboard.store import StepRow
from envtui.incidents.fold import Episodes, Incident, IncidentFold, IncidentKey, Raise
from envtui.tui.format import glyphs, relative, time_text
from envtui.tui.widgets import titled
from envtui.vocabulary.safe_text import one_line
from envtui.vocabulary.terms import duration_words

STATE_WORDS = {"active": "ACTIVE", "acknowledged": "acked", "resolved": "resolved"}


def duration(incident: Incident, now: datetime) -> str:
    """How long it lasted (resolved) or has lasted so far; ``-`` without times."""
    start = incident.first_at
    end = incident.resolved_at if incident.state == "resolved" else now
    if start is None or end is None:
        return "-"
    return duration_words((end - start).total_seconds())


def who(incident: Incident) -> str:
    """What the incident is about, as one safe line."""
    return one_line(incident.environment_id or incident.tool or "thread")


def incident_label(incident: Incident, now: datetime) -> str:
    """One line of the list: state, code, subject, duration, steps."""
    mark = glyphs().warning if incident.state == "active" else " "
    word = STATE_WORDS[incident.state]
    return (
        f"{mark} {word:<8} {one_line(incident.code)}  {who(incident)}"
        f"  {duration(incident, now)}  x{incident.steps}"
    )


def banner_text(active: Sequence[Incident]) -> str:
    """The banner over the table: only incidents nobody acknowledged and still active."""
    names = ", ".join(dict.fromkeys(f"{one_line(i.code)} ({who(i)})" for i in active))
    return (
        f"{glyphs().warning} {len(active)} active incident(s): {names}"
        "  (5: to the incidents, then a acknowledges, enter shows its history)"
    )


@dataclass(frozen=True)
class IncidentRow:
    """One line of the list: an open incident, or the resolved episodes of one key."""

    id: str
    """Stable while the list changes: the incident's number while it is open, its key once
    resolved (a second episode joins the same row)."""
    number: int
    """The incident the row acts on (enter, ``a``): the newest of a fold."""
    numbers: frozenset[int]
    """Every incident the row stands for, so the cursor follows one into its fold."""
    label: str


def resolved_label(
    key: IncidentKey, episodes: Sequence[Incident], tally: Episodes | None, now: datetime
) -> str:
    """The resolved episodes of ``key`` (newest first) as one line: a single one as it is,
    several as their count, their span and how long ago the last resolved."""
    count = tally.count if tally is not None else len(episodes)
    if count <= 1:
        return incident_label(episodes[0], now)
    first = tally.first_at if tally is not None else episodes[-1].first_at
    last = tally.last_resolved_at if tally is not None else episodes[0].resolved_at
    folded = f"{glyphs().times}{count}"
    if first is not None and last is not None:
        ago = relative(last, now)
        ago = "just now" if ago == "now" else ago
        folded += f" in {duration_words((last - first).total_seconds())}, last {ago}"
    subject = one_line(key[1] or key[2] or "thread")
    return f"  {STATE_WORDS['resolved']:<8} {one_line(key[0])}  {subject}  {folded}"


def incident_rows(fold: IncidentFold, now: datetime, resolved: bool = True) -> list[IncidentRow]:
    """The list's rows: every open incident, then (unless ``resolved`` is False) one row
    per key of the resolved ones, the most recently resolved first."""
    rows = [
        IncidentRow(f"n{i.number}", i.number, frozenset({i.number}), incident_label(i, now))
        for i in fold.incidents()
        if i.is_open
    ]
    if not resolved:
        return rows
    by_key: dict[IncidentKey, list[Incident]] = {}
    for incident in reversed(fold.resolved):  # newest first
        by_key.setdefault(incident.key, []).append(incident)
    for key, episodes in by_key.items():
        label = resolved_label(key, episodes, fold.episodes.get(key), now)
        numbers = frozenset(i.number for i in episodes)
        rows.append(IncidentRow(f"k{json.dumps(key)}", episodes[0].number, numbers, label))
    return rows


def list_title(fold: IncidentFold) -> str:
    """``incidents · 1 active · 298 resolved`` (and the acknowledged, when there are any)."""
    states = [i.state for i in fold.open.values()]
    parts = [f"{states.count('active')} active"]
    if "acknowledged" in states:
        parts.append(f"{states.count('acknowledged')} acked")
    parts.append(f"{fold.resolved_total} resolved")
    return " · ".join(["incidents", *parts])


def episodes_details(
    key: IncidentKey,
    episodes: Sequence[Incident],
    tally: Episodes | None,
    now: datetime,
    zone: tzinfo | None = None,
) -> str:
    """Every resolved episode of ``key`` held, newest first: when each began and resolved,
    how long it lasted, how many steps raised it, and what it said."""
    count = tally.count if tally is not None else len(episodes)
    first = tally.first_at if tally is not None else None
    last = tally.last_resolved_at if tally is not None else None
    fields = [
        ("code", key[0]),
        ("environment", key[1] or "-"),
        ("tool", key[2] or "-"),
        ("episodes", f"{count} resolved"),
        ("first began", time_text(first, now, zone)),
        ("last resolved", time_text(last, now, zone)),
    ]
    body = "\n".join(f"{name:<13} {value}" for name, value in fields) + "\n"
    if len(episodes) < count:
        body += f"\n(the last {len(episodes)} of {count} episodes are kept)\n"
    for incident in episodes:
        began = _seen(incident.first_step, incident.first_at, now, zone)
        ended = _seen(incident.resolved_step, incident.resolved_at, now, zone)
        body += (
            f"\n--- #{incident.number}: {began}, resolved {ended}"
            f"\n    lasted {duration(incident, now)}, raised by {incident.steps} step(s): "
            f"{incident.message}\n"
        )
    return body


def incident_details(
    incident: Incident,
    step_of: Callable[[int], StepRow | None],
    now: datetime,
    zone: tzinfo | None = None,
) -> str:
    """One incident's whole history: its fields, then each step that raised it (the last
    ones kept) with the context diff that step sent, when the step is still held."""
    fields = [
        ("code", incident.code),
        ("severity", incident.severity),
        ("environment", incident.environment_id or "-"),
        ("tool", incident.tool or "-"),
        ("state", incident.state),
        ("first seen", _seen(incident.first_step, incident.first_at, now, zone)),
        ("last seen", _seen(incident.last_step, incident.last_at, now, zone)),
        ("steps", str(incident.steps)),
        ("duration", duration(incident, now)),
    ]
    if incident.acknowledged_at is not None:
        fields.append(("acknowledged", time_text(incident.acknowledged_at, now, zone)))
    if incident.state == "resolved":
        resolved = _seen(incident.resolved_step, incident.resolved_at, now, zone)
        fields.append(("resolved", resolved))
    body = "\n".join(f"{name:<13} {value}" for name, value in fields)
    body += f"\n\n{incident.message}\n"
    kept = list(incident.raises)
    if len(kept) < incident.steps:
        body += f"\n(the last {len(kept)} of {incident.steps} steps are kept, newest first)\n"
    for run in _runs(kept, step_of):
        body += _run_text(run, now, zone)
    return body


@dataclass
class _Run:
    """Steps that raised an incident in a row with the same words and no context sent
    (or none held): one block, so a long incident is not a wall of identical ones."""

    message: str
    note: str
    diff: str = ""
    raises: list[Raise] = field(default_factory=list)


def _runs(kept: Sequence[Raise], step_of: Callable[[int], StepRow | None]) -> list[_Run]:
    """The kept steps newest first, each run of alike steps one; a step that sent a context
    change is its own, with the diff it sent (the context shown only where it changed)."""
    runs: list[_Run] = []
    for raised in reversed(kept):
        step = step_of(raised.step) if raised.step is not None else None
        if step is not None and step.diff:
            runs.append(_Run(raised.message, "", step.diff, [raised]))
            continue
        note = "" if raised.step is None else "gone" if step is None else "unchanged"
        last = runs[-1] if runs else None
        if (
            last is not None
            and not last.diff
            and (last.message, last.note) == (raised.message, note)
        ):
            last.raises.append(raised)
        else:
            runs.append(_Run(raised.message, note, raises=[raised]))
    return runs


_NOTES = {
    ("gone", False): "(the step is no longer held)\n",
    ("gone", True): "(these steps are no longer held)\n",
    ("unchanged", False): "(no context change sent at this step)\n",
    ("unchanged", True): "(no context change sent at these steps)\n",
}


def _run_text(run: _Run, now: datetime, zone: tzinfo | None) -> str:
    newest, oldest = run.raises[0], run.raises[-1]
    seen = _seen(newest.step, newest.at, now, zone)
    if len(run.raises) > 1:
        steps = f"steps {oldest.step}\N{EN DASH}{newest.step} ({len(run.raises)} alike)"
        seen = f"{steps}, the newest {seen}"
    text = f"\n--- {seen}: {run.message}\n"
    if run.diff:
        return text + run.diff.rstrip("\n") + "\n"
    return text + _NOTES.get((run.note, len(run.raises) > 1), "")


def _seen(step: int | None, at: datetime | None, now: datetime, zone: tzinfo | None) -> str:
    where = f"step {step}" if step is not None else "thread"
    return f"{where} at {time_text(at, now, zone)}" if at is not None else where


class IncidentList(OptionList):
    """The incidents, active first; the cursor follows its incident, not its row. What the
    person asks of one (its history, acknowledging it) is posted for the screen."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "acknowledge", "Ack incident", id="acknowledge"),
        Binding("enter", "details", "History", id="details"),
        Binding("R", "toggle_resolved", "Resolved", show=False, id="toggle_resolved"),
    ]

    class Details(Message):
        """The person asked for the history of incident ``number`` (None: no row)."""

        def __init__(self, number: int | None) -> None:
            super().__init__()
            self.number = number

    class Acknowledge(Message):
        """The person acknowledged incident ``number`` (None: no row)."""

        def __init__(self, number: int | None) -> None:
            super().__init__()
            self.number = number

    show_resolved: var[bool] = var(True, init=False)
    """False hides the resolved rows (``r``): what is wrong now, alone. Reactive: whoever
    holds the incidents (the main screen) watches it and shows them again."""

    _rows: list[IncidentRow] | None = None

    def action_acknowledge(self) -> None:
        self.post_message(self.Acknowledge(self.selected_number()))

    def action_details(self) -> None:
        self.post_message(self.Details(self.selected_number()))

    def action_toggle_resolved(self) -> None:
        """Hide the resolved incidents, or show them again."""
        self.show_resolved = not self.show_resolved

    @on(OptionList.OptionSelected)
    def _row_chosen(self, event: OptionList.OptionSelected) -> None:
        """A click on the row under the cursor asks for its history too."""
        event.stop()
        self.action_details()

    def show(self, fold: IncidentFold, now: datetime) -> None:
        title = titled(self, list_title(fold))
        if self.border_title != title:  # a same title would still repaint the whole list
            self.border_title = title
        subtitle = "R: hide resolved" if self.show_resolved else "R: show resolved"
        if not fold.resolved:
            subtitle = ""
        if self.border_subtitle != subtitle:
            self.border_subtitle = subtitle
        rows = incident_rows(fold, now, self.show_resolved)
        if rows == self._rows:
            return  # the same list: not rebuilt
        # the cursor follows its incident while someone uses it (focused, or moved off the
        # first row); left alone, it stays on the first row, so the newest active incident
        # stays in sight
        in_use = self.has_focus or (self.highlighted or 0) > 0
        kept = self._selected_row() if in_use else None
        self._rows = rows
        self.clear_options()
        self.add_options([Option(Text(row.label, no_wrap=True), id=row.id) for row in rows])
        if kept is not None:
            kept_id, kept_number = kept.id, kept.number
            self._select(lambda row: row.id == kept_id or kept_number in row.numbers)
        elif rows:
            self.highlighted = 0

    def _selected_row(self) -> IncidentRow | None:
        if self.highlighted is None or not self._rows or self.highlighted >= len(self._rows):
            return None
        return self._rows[self.highlighted]

    def _select(self, wanted: Callable[[IncidentRow], bool]) -> None:
        """Put the cursor on the first row ``wanted`` (the first row when none is)."""
        rows = self._rows or []
        self.highlighted = (
            next((n for n, row in enumerate(rows) if wanted(row)), 0) if rows else None
        )

    def selected_number(self) -> int | None:
        """The number of the incident under the cursor (the newest of a fold)."""
        row = self._selected_row()
        return row.number if row is not None else None

    def selected_numbers(self) -> frozenset[int]:
        """Every incident the row under the cursor stands for."""
        row = self._selected_row()
        return row.numbers if row is not None else frozenset()

    def select_number(self, number: int | None) -> None:
        """Put the cursor on the row of incident ``number`` (the first row when it is gone)."""
        if self.option_count:
            self._select(lambda row: number in row.numbers)
