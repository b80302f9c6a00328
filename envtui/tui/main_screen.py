"""The main screen: one view that answers, at a glance, what each environment is doing.

It draws in frames: an event asks for one (at most one per FRAME), and the clock asks for
one each second; a frame takes what the store collected since the last and redraws just
that, in one batch (table cells by key, log lines in one write, panels only when a step
changed, the header only when its text changed). Events are never drawn one by one, which
keeps a burst of thousands of events smooth, and nothing wakes an idle screen but the clock.
What the user changes (pause, the step shown, filter, sort, context view) is reactive
state; its watchers redraw, and the actions only assign it. Crossing the wide/narrow width
builds new widgets: what the user chose (filter, sort, view, cursor row, focus, whether the
log follows) is taken from the old ones and given to the new, so nothing resets.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import (
    Input,
    Static,
    TabbedContent,
    TabPane,
)

from envtui.dashboard.needs_you import STATUS_WORDS
from envtui.dashboard.store import Store
from envtui.tui.actions import DashboardActions
from envtui.tui.format import clock_text, fit, glyphs, source_badge
from envtui.tui.incidents_view import IncidentList, banner_text
from envtui.tui.keybar import KeyBar
from envtui.tui.log_widget import EventLog
from envtui.tui.needs_you.keys import NEEDS_YOU_ACTIONS, NeedsYouKeys
from envtui.tui.needs_you.panel import NeedsYouPanel, panel_text
from envtui.tui.options import DashboardOptions
from envtui.tui.widgets import ContextPanel, EnvironmentTable, ToolsPanel
from envtui.vocabulary.safe_text import one_line

WIDE = 120
"""From this many columns on, the panels sit side by side; below it, they are tabs."""
FRAME = 1 / 15
"""Seconds from an event to the frame that draws it; at most one frame per FRAME."""
TAB_OF = {"log": "tab-events", "context": "tab-context", "findings": "tab-findings"}
"""The narrow layout's tab that holds each focusable panel."""


@dataclass
class Chosen:
    """What the user chose in the widgets, carried from one layout's widgets to the next."""

    filter: str = ""
    filter_open: bool = False
    sort_key: str = "selection"
    sort_reverse: bool = False
    view: str = "full"
    cursor: str | None = None
    incident: int | None = None
    focus: str | None = "table"
    log_following: bool = True
    log_filter: str = ""
    show_resolved: bool = True


class MainScreen(DashboardActions):
    """The dashboard's one screen: environments, events, the step's context, tools, incidents."""

    def __init__(self, store: Store, options: DashboardOptions) -> None:
        super().__init__(store, options)
        self.paused_at = 0  # the store's event count when the view was paused
        self.wide = True
        self.chosen = Chosen()
        self._recomposing = False
        self._laid_out = False  # mounted once: from then on a resize may change the layout
        self._active_count = 0
        self._header = ""
        self._second = 0  # the clock's second the last frame drew
        self._frame_pending = False
        self.needs_you_keys = NeedsYouKeys(self, store, options, self.BINDINGS, self.request_panel)

    # --- layout ----------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        self.wide = self.app.size.width >= WIDE
        yield Static("", id="header", markup=False)
        yield Static("", id="banner", markup=False)
        yield NeedsYouPanel("", id="needs-you", markup=False)
        yield EnvironmentTable(id="table")
        log = EventLog(self.options.max_log_lines, self.store.log, id="log")
        context = ContextPanel(id="context")
        tools = ToolsPanel("", id="tools")
        findings = IncidentList(id="findings")
        if self.wide:
            with Horizontal(id="lower", classes="-wide"):
                yield log
                with Vertical(id="side"):
                    yield context
                    yield tools
                    yield findings
        else:
            with TabbedContent(id="lower", initial=TAB_OF.get(self.chosen.focus or "", "")):
                with TabPane("events", id="tab-events"):
                    yield log
                with TabPane("context", id="tab-context"):
                    yield context
                with TabPane("tools", id="tab-tools"):
                    yield tools
                with TabPane("incidents", id="tab-findings"):
                    yield findings
        yield Input(placeholder="filter environments (esc clears)", id="filter")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        if not self.app.is_running:  # it quits as it starts (a tab closed as it opened):
            return  # its widgets are being removed, some already gone
        self.set_interval(1.0, self.flush)  # the clock and relative times; stops with the screen
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._restyle())
        self._restore()
        self._laid_out = True
        self.call_after_refresh(self._fit_layout)  # a resize that came while it mounted

    async def on_resize(self) -> None:
        await self._fit_layout()

    async def _fit_layout(self) -> None:
        """The wide or the narrow layout, as the terminal's width asks: once the screen is
        mounted (a resize that comes while its widgets mount, as on a loaded machine or a
        terminal going away, is taken up after), and again until it fits (the width may
        change once more while the new layout mounts)."""
        if not self._laid_out or self._recomposing:
            return
        while (self.app.size.width >= WIDE) != self.wide and self.app.is_running:
            self._recomposing = True  # the frame timer waits until the new layout is mounted
            self.chosen = self._remember()
            try:
                await self.recompose()
            finally:
                self._recomposing = False
            self._restore()

    def _remember(self) -> Chosen:
        """What the user chose, read from the widgets about to be replaced."""
        table = self.query_one(EnvironmentTable)
        return Chosen(
            filter=table.filter,
            filter_open=self.query_one("#filter", Input).has_class("-visible"),
            sort_key=table.sort_key,
            sort_reverse=table.sort_reverse,
            view=self.query_one(ContextPanel).view,
            cursor=table.selected_id(),
            incident=self.query_one(IncidentList).selected_number(),
            focus=self.focused.id if self.focused is not None else None,
            log_following=self.query_one(EventLog).following,
            log_filter=self.query_one(EventLog).folded.filter.text,
            show_resolved=self.query_one(IncidentList).show_resolved,
        )

    def _restore(self) -> None:
        """Give the new widgets what the user chose, then watch them and draw everything."""
        chosen = self.chosen
        table = self.query_one(EnvironmentTable)
        table.set_reactive(EnvironmentTable.filter, chosen.filter)
        table.set_reactive(EnvironmentTable.sort_key, chosen.sort_key)
        table.set_reactive(EnvironmentTable.sort_reverse, chosen.sort_reverse)
        self.query_one(ContextPanel).set_reactive(ContextPanel.view, chosen.view)
        self.query_one(IncidentList).set_reactive(IncidentList.show_resolved, chosen.show_resolved)
        box = self.query_one("#filter", Input)
        box.value = chosen.filter
        box.set_class(chosen.filter_open, "-visible")
        self.query_one(EventLog).set_filter(chosen.log_filter)
        self._watch_widgets()
        self._header = ""  # the header widget is new too
        self.redraw_all()
        table.select(chosen.cursor)
        self.query_one(IncidentList).select_number(chosen.incident)
        if not chosen.log_following:
            log = self.query_one(EventLog)
            log.following = False
            log.scroll_home(animate=False, immediate=True)
        focused = self.query(f"#{chosen.focus}") if chosen.focus else None
        (focused.first() if focused else table).focus()

    def _watch_widgets(self) -> None:
        """Redraw from the store when the user changes how a widget shows it.

        The table's filter and sort and the context panel's view are the widgets' reactive
        state; the rows and steps are the store's, so the screen redraws. Called again after
        a recompose, whose widgets are new.
        """
        table = self.query_one(EnvironmentTable)
        for name in ("filter", "sort_key", "sort_reverse"):
            self.watch(table, name, self._resync_table, init=False)
        self.watch(self.query_one(ContextPanel), "view", self._draw_step, init=False)
        self.watch(self.query_one(IncidentList), "show_resolved", self._draw_findings, init=False)

    @on(EnvironmentTable.Relayout)
    def _relayout(self) -> None:
        if not self._recomposing:
            self._resync_table()

    # --- the needs-you keys and answers ---------------------------------------------------------

    def action_needs_you(self, action: str) -> None:
        self.needs_you_keys.act(action)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The needs-you keys are in the footer only while a request waits."""
        if action == "needs_you" and parameters and parameters[0] in NEEDS_YOU_ACTIONS:
            return self.needs_you_keys.waiting()
        return super().check_action(action, parameters)

    @on(NeedsYouPanel.Answered)
    def _answered(self, event: NeedsYouPanel.Answered) -> None:
        self.needs_you_keys.send(event.answer)

    # --- state -----------------------------------------------------------------------------------

    def watch_paused(self, paused: bool) -> None:
        if paused:
            self.paused_at = self.store.counters["total"]
        else:
            self.flush()  # catch up at once, not a frame later
        self._draw_header()

    def watch_step_number(self) -> None:
        self._draw_step()
        self._draw_header()

    # --- drawing ---------------------------------------------------------------------------------

    def _restyle(self) -> None:
        table = self.query_one(EnvironmentTable)
        table.styles_for = self.status_styles()
        table.restyle()
        self._resync_table()

    def redraw_all(self) -> None:
        self.store.take_changes()
        self.query_one(EnvironmentTable).styles_for = self.status_styles()
        self._resync_table()
        self.query_one(EventLog).show_all()
        self._draw_step()
        self._draw_findings()
        self._draw_needs_you()
        self._draw_header()

    def request_frame(self) -> None:
        """Something arrived: draw it within FRAME (once, however many events follow)."""
        if not self._frame_pending:
            self._frame_pending = True
            self.set_timer(FRAME, self._frame)

    def _frame(self) -> None:
        self._frame_pending = False
        if not self.is_attached or not self.children:
            return  # the app is closing: its widgets go before the timer that drew them
        self.flush()

    def flush(self) -> None:
        """One frame: apply what the store collected since the last one, in one batch.

        A frame in which nothing arrived and the clock's second did not turn draws nothing.
        """
        if self._recomposing:
            return
        now = self.options.clock()
        second = int(now.timestamp())
        new_second, self._second = second != self._second, second
        self.needs_you_keys.requests_changed()  # a confirmation whose request went closes
        if self.paused:
            self._draw_header()
            return
        changes = self.store.take_changes()
        if not changes.any and not new_second:
            return
        table = self.query_one(EnvironmentTable)
        table.latest_at = self.store.latest_at
        if changes.environments or changes.removed:
            table.sync(self.store.environments.values(), changes.environments, changes.removed, now)
        elif new_second:
            table.refresh_times(self.store.environments.values(), now)
        if changes.log_lines:
            self.query_one(EventLog).write_entries(changes.log_lines)
        if changes.steps_restarted:
            self.step_number = None  # the step shown is gone with its run
        if changes.steps or changes.findings:
            self._draw_step()
        if changes.incidents or new_second:  # durations grow with the clock
            self._draw_findings()
        if changes.requests or new_second:  # how long each has waited grows too
            self._draw_needs_you(bindings=changes.requests)
        self._draw_header()

    def _resync_table(self) -> None:
        """Every row again, from the store: the filter, the sort, the width or the theme changed."""
        self.query_one(EnvironmentTable).latest_at = self.store.latest_at
        self.query_one(EnvironmentTable).sync(
            self.store.environments.values(), None, set(), self.options.clock()
        )

    def _draw_step(self) -> None:
        step = self.current_step()
        self.query_one(ContextPanel).show(step)
        self.query_one(ToolsPanel).show(step)

    def _draw_findings(self) -> None:
        """The incidents list, and the banner while any incident is active and not acked."""
        incidents = self.store.incidents
        active = incidents.active()
        self._active_count = len(active)  # the header reads this every frame
        self.query_one(IncidentList).show(incidents, self.options.clock())
        if not self.wide:  # the tab says how many are active, whichever tab is shown
            tab = self.query_one(TabbedContent).get_tab("tab-findings")
            label = f"incidents {len(active)}" if active else "incidents"
            if tab.label_text != label:
                tab.label = label
        banner = self.query_one("#banner", Static)
        if active:
            banner.update(Text(banner_text(active), no_wrap=True, overflow="ellipsis"))
        banner.set_class(bool(active), "-visible")

    def _draw_needs_you(self, *, bindings: bool = True) -> None:
        """The needs-you panel; the footer's keys follow whether anything waits."""
        needs_you = self.store.needs_you
        text = panel_text(
            needs_you,
            self.store.environments,
            self.needs_you_keys.marked,
            self.options.clock(),
            self.options.answers is not None,
        )
        self.query_one(NeedsYouPanel).show(text, len(needs_you.pending))
        if bindings:
            self.refresh_bindings()

    def request_panel(self) -> None:
        self._draw_needs_you(bindings=False)

    def header_text(self) -> str:
        """The header line: what runs, any source that is not up, the step, the clock."""
        now = self.options.clock()
        parts: list[tuple[int, str]] = [(10, f"envtui · {one_line(self.options.source_name)}")]
        for row in self.store.sources.values():
            parts.append((10, source_badge(row, now, self.options.zone)))
        if self.store.thread:
            parts.append((5, f"thread {one_line(self.store.thread)}"))
        status = self.store.needs_you.status
        if status is not None:
            waiting = f"{glyphs().warning} " if self.store.needs_you.waiting else ""
            parts.append((8 if waiting else 3, f"{waiting}{STATUS_WORDS[status]}"))
        step = self.current_step()
        if step is not None:
            latest = self.store.steps[-1].number
            if step.number != latest:
                parts.append((9, f"step {step.number} of {latest} · not live · G: live"))
            else:
                parts.append((4, f"step {step.number}"))
            if step.current_date or step.timezone:  # the date and zone the model is told
                when = f"{step.current_date or '-'} {step.timezone or ''}".rstrip()
                parts.append((1, f"model sees {one_line(when)}"))
        parts.append((6, clock_text(now, self.options.zone)))
        if self._active_count:
            parts.append((7, f"{glyphs().warning} {self._active_count}"))
        if self.paused:
            parts.append((9, f"PAUSED +{self.store.counters['total'] - self.paused_at} events"))
        return fit(parts, max(20, self.size.width - 2))

    def _draw_header(self) -> None:
        text = self.header_text()
        if text != self._header:  # unchanged: no redraw at all; changed: no relayout
            self._header = text
            self.query_one("#header", Static).update(Text(text), layout=False)
