"""The history screen (``h``): every environment's timeline side by side, with the steps.

It answers "did flaky drop three times in ten minutes, and when?": a row per environment
on one time axis (the whole session, or the last 30, 10 or 5 minutes: ``z``), the steps
and the incidents (where each opened, where each resolved) on the same axis, availability
and flaps per environment over it, and every transition held, newest first, with the step
that was latest when it happened. It is redrawn every second from the store while open.
Marks of other kinds can be added through :attr:`HistoryScreen.extra_marks`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from envtui.dashboard.status_history import strip_end
from envtui.dashboard.store import EnvironmentRow, Store
from envtui.tui.format import strip_legend
from envtui.tui.options import DashboardOptions
from envtui.tui.timeline import (
    Mark,
    incident_marks,
    span_of,
    step_marks,
    summary,
    timeline,
    transitions_text,
)

WINDOWS: tuple[tuple[str, timedelta | None], ...] = (
    ("whole session", None),
    ("last 30 min", timedelta(minutes=30)),
    ("last 10 min", timedelta(minutes=10)),
    ("last 5 min", timedelta(minutes=5)),
)
TRANSITIONS_SHOWN = 200
GONE_SHOWN = 20
"""Environments no longer selected whose timelines are still shown (the latest ones)."""


class HistoryScreen(ModalScreen[None]):
    """The timelines over the dashboard; ``esc`` or ``q`` closes, ``z`` changes the span."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "dismiss", "Close", id="history_close"),
        Binding("z", "zoom", "Span", id="history_span"),
    ]
    DEFAULT_CSS = """
    HistoryScreen { align: center middle; }
    HistoryScreen > VerticalScroll {
        width: 96%; height: 90%; border: round $primary; background: $panel; padding: 0 1;
    }
    """

    def __init__(
        self,
        store: Store,
        options: DashboardOptions,
        styles: dict[str, str],
        extra_marks: Callable[[], Sequence[Mark]] | None = None,
    ) -> None:
        super().__init__()
        self.store, self.options, self.status_styles = store, options, styles
        self.extra_marks = extra_marks
        """More marks for the axis (incidents), asked for at every redraw."""
        self.window = 0
        self.text = ""
        """What the screen shows, as plain text (for a copy, and for tests)."""
        self._shown: object = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="history-scroll"):
            yield Static("", id="history-body", markup=False)

    def on_mount(self) -> None:
        self.call_after_refresh(self.redraw)  # once laid out: the axis fits the width
        self.set_interval(1.0, self.redraw)

    def on_resize(self) -> None:
        self.call_after_refresh(self.redraw)

    def action_zoom(self) -> None:
        self.window = (self.window + 1) % len(WINDOWS)
        self.redraw()

    def redraw(self) -> None:
        rows = sorted(self.store.environments.values(), key=lambda row: row.order)
        gone = [i for i in self.store.histories if i not in self.store.environments]
        rows += [  # those that left the selection, their history to the end
            EnvironmentRow(i, len(rows) + n, history=self.store.histories[i])
            for n, i in enumerate(gone[-GONE_SHOWN:])
        ]
        marks = step_marks(self.store.steps)
        marks += incident_marks(self.store.incidents.incidents(), self.status_styles)
        if self.extra_marks is not None:
            marks += self.extra_marks()
        end = strip_end(self.options.clock(), self.store.latest_at, timedelta(minutes=5))
        name, span = WINDOWS[self.window]
        start = end - span if span is not None else span_of(rows, marks, end)
        marks = [mark for mark in marks if start <= mark.at <= end]
        width = max(20, self.query_one("#history-scroll").size.width - 2)
        key = (name, width, start, end, self.store.counters["total"], len(marks))
        if key == self._shown:  # the same events over the same axis: nothing to draw
            return
        self._shown = key
        zone = self.options.zone
        parts = [
            timeline(rows, marks, start, end, width, self.status_styles, zone),
            Text(strip_legend() + "\n", style="dim"),
            Text(summary(rows, start, end) + "\n", no_wrap=True),
            Text("transitions, newest first\n", style="bold"),
            Text(transitions_text(rows, list(self.store.steps), zone, TRANSITIONS_SHOWN)),
        ]
        self.text = "\n".join(part.plain for part in parts)
        body = Group(*parts)
        self.query_one("#history-scroll").border_title = f"history · {name} (z: span)"
        self.query_one("#history-body", Static).update(body)

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
