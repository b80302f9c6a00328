"""The incidents on screen: the list, the banner's words and one incident's history.

The list answers "what is wrong now, since when, did it recover": active incidents first,
then acknowledged, then resolved, newest first within each, each with its state, how long
it lasted (or lasts) and how many steps raised it. Options carry the incident's number as
their id, so the cursor stays on the same incident while the list re-sorts around it.
The texts are pure functions, tested without a running app; every name and message in
them comes from outside and is made safe (:mod:`envtui.vocabulary.safe_text`) before it is drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, tzinfo

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from envtui.dashboard.store import StepRow
from envtui.incidents.fold import Incident
from envtui.tui.format import glyphs, time_text
from envtui.vocabulary.safe_text import one_line

STATE_WORDS = {"active": "ACTIVE", "acknowledged": "acked", "resolved": "resolved"}


def span(seconds: float) -> str:
    """A duration in its largest sensible unit: ``45 s``, ``3 min``, ``2 h 5 min``."""
    size = max(0, int(seconds))
    if size < 60:
        return f"{size} s"
    if size < 3600:
        return f"{size // 60} min"
    hours, minutes = divmod(size // 60, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def duration(incident: Incident, now: datetime) -> str:
    """How long it lasted (resolved) or has lasted so far; ``-`` without times."""
    start = incident.first_at
    end = incident.resolved_at if incident.state == "resolved" else now
    if start is None or end is None:
        return "-"
    return span((end - start).total_seconds())


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
        "  (a acknowledges, enter shows its history)"
    )


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
        body += f"\n(the last {len(kept)} of {incident.steps} steps are kept)\n"
    for raised in kept:
        body += f"\n--- {_seen(raised.step, raised.at, now, zone)}: {raised.message}\n"
        step = step_of(raised.step) if raised.step is not None else None
        if step is None:
            body += "(the step is no longer held)\n" if raised.step is not None else ""
        elif step.diff:
            body += step.diff.rstrip("\n") + "\n"
        else:
            body += "(no context change sent at this step)\n"
    return body


def _seen(step: int | None, at: datetime | None, now: datetime, zone: tzinfo | None) -> str:
    where = f"step {step}" if step is not None else "thread"
    return f"{where} at {time_text(at, now, zone)}" if at is not None else where


class IncidentList(OptionList):
    """The incidents, active first; the cursor follows its incident, not its row."""

    _labels: list[tuple[str, str]] | None = None

    def show(self, incidents: Sequence[Incident], now: datetime) -> None:
        active = sum(1 for i in incidents if i.state == "active")
        title = f"incidents ({active} active, {len(incidents)} held)"
        if self.border_title != title:  # a same title would still repaint the whole list
            self.border_title = title
        labels = [(str(i.number), incident_label(i, now)) for i in incidents]
        if labels == self._labels:
            return  # the same list: not rebuilt
        self._labels = labels
        # the cursor follows its incident while someone uses it (focused, or moved off the
        # first row); left alone, it stays on the first row, so the newest active incident
        # stays in sight
        in_use = self.has_focus or (self.highlighted or 0) > 0
        kept = self.selected_number() if in_use else None
        self.clear_options()
        self.add_options([Option(Text(text, no_wrap=True), id=key) for key, text in labels])
        if labels:
            self.select_number(kept if kept is not None else int(labels[0][0]))

    def selected_number(self) -> int | None:
        """The number of the incident under the cursor."""
        if self.highlighted is None or self.option_count == 0:
            return None
        option_id = self.get_option_at_index(self.highlighted).id
        return int(option_id) if option_id is not None else None

    def select_number(self, number: int | None) -> None:
        """Put the cursor on incident ``number`` (the first row when it is gone)."""
        if self.option_count == 0:
            return
        try:
            index = self.get_option_index(str(number))
        except Exception:  # OptionDoesNotExist: the incident was let go
            index = 0
        self.highlighted = index
