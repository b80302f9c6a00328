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
from typing import ClassVar, Literal

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Input, Static, TabbedContent, TabPane

from envtui.dashboard.store import StepRow, Store
from envtui.tui.actions import PANELS, SCREEN_BINDINGS, ScreenActions, ScreenWidgets
from envtui.tui.format import header_line
from envtui.tui.incidents_view import IncidentList, banner_text
from envtui.tui.keybar import KeyBar
from envtui.tui.log_widget import EventLog
from envtui.tui.needs_you.filter_keys import FilterKeys
from envtui.tui.needs_you.keys import NEEDS_YOU_ACTIONS, NeedsYouKeys
from envtui.tui.needs_you.panel import NeedsYouPanel, panel_text
from envtui.tui.options import DashboardOptions
from envtui.tui.widgets import ContextPanel, EnvironmentTable, ToolsPanel, mark_focus

WIDE = 120
"""From this many columns on, the panels sit side by side; below it, they are tabs."""
FRAME = 1 / 15
"""Seconds from an event to the frame that draws it; at most one frame per FRAME."""
TAB_OF = {
    "log": "tab-events",
    "context": "tab-context",
    "tools": "tab-tools",
    "findings": "tab-findings",
}
"""The narrow layout's tab that holds each panel below the table."""
TAB_WORDS = {"log": "events", "context": "context", "tools": "tools", "findings": "incidents"}
"""Each tab's label, after its panel's digit (``2 events``): the digit says how to get there."""


def tab_label(panel: str, count: str = "") -> str:
    return f"{PANELS.index(panel) + 1} {TAB_WORDS[panel]}{count}"


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


class MainScreen(Screen[None]):
    """The dashboard's one screen: environments, events, the step's context, tools, incidents.

    It keeps the keys that act anywhere (:data:`~envtui.tui.actions.SCREEN_BINDINGS`); the
    panels keep their own and post what they cannot do alone, handled here with ``@on``.
    What the keys open or send is :class:`~envtui.tui.actions.ScreenActions`'s, and the
    needs-you keys are :class:`~envtui.tui.needs_you.keys.NeedsYouKeys`'s, objects it holds.
    """

    BINDINGS: ClassVar[list[BindingType]] = SCREEN_BINDINGS

    paused: var[bool] = var(False, init=False)
    """The view stops drawing while the store keeps collecting; the header counts what waits."""

    step_number: var[int | None] = var[int | None](None, init=False, always_update=True)
    """The step the panels show; None follows the latest. Assigning it always redraws."""

    def __init__(self, store: Store, options: DashboardOptions) -> None:
        super().__init__()
        self.store = store
        self.options = options
        self.paused_at = 0  # the store's event count when the view was paused
        self.wide = True
        self.chosen = Chosen()
        self._recomposing = False
        self._laid_out = False  # mounted once: from then on a resize may change the layout
        self._active_count = 0
        self._header = ""
        self._second = 0  # the clock's second the last frame drew
        self._frame_pending = False
        self.actions = ScreenActions(self, store, options)
        self.needs_you_keys = NeedsYouKeys(self, store, options, self.BINDINGS, self.request_panel)
        self.filter_keys = FilterKeys(self, self.action_filter)
        self.widgets: ScreenWidgets

    # --- layout ----------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        self.wide = self.app.size.width >= WIDE
        w = self.widgets = ScreenWidgets(
            header=Static("", id="header", markup=False),
            banner=Static("", id="banner", markup=False),
            needs_you=NeedsYouPanel("", id="needs-you", markup=False),
            table=EnvironmentTable(id="table"),
            log=EventLog(self.options.max_log_lines, self.store.log, id="log"),
            context=ContextPanel(id="context"),
            tools=ToolsPanel("", id="tools"),
            findings=IncidentList(id="findings"),
            filter_box=Input(placeholder="filter environments (esc clears)", id="filter"),
            keys=KeyBar(id="keys"),
        )
        yield from (w.header, w.banner, w.needs_you, w.table)
        if self.wide:
            with Horizontal(id="lower", classes="-wide"):
                yield w.log
                with Vertical(id="side"):
                    yield from (w.context, w.tools, w.findings)
        else:
            initial = TAB_OF.get(self.chosen.focus or "", "")
            with TabbedContent(id="lower", initial=initial) as w.tabs:
                for name in TAB_OF:
                    with TabPane(tab_label(name), id=TAB_OF[name]):
                        yield getattr(w, name)
        yield from (w.filter_box, w.keys)

    def on_mount(self) -> None:
        if not self.app.is_running:  # it quits as it starts (a tab closed as it opened):
            return  # its widgets are being removed, some already gone
        self.set_interval(1.0, self.flush)  # the clock and relative times; stops with the screen
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._restyle())
        self._restore()
        self._laid_out = True
        self.call_after_refresh(self._fit_layout)  # a resize that came while it mounted

    def on_key(self, event: events.Key) -> None:
        self.filter_keys.route(event)  # a filter's keys never reach the answer keys

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
            if not (self.app.is_running and self.is_attached):
                return  # it quit while the new layout mounted: its widgets are going
            self._restore()

    @property
    def layout_shown(self) -> Literal["wide", "narrow", "changing"]:
        """The layout on screen, drawn and holding what the user chose; ``changing`` from
        the moment the other one is asked for until it is (:attr:`wide` says what is asked
        as soon as the new widgets are made, before they are mounted)."""
        if self._recomposing or not self._laid_out:
            return "changing"
        return "wide" if self.wide else "narrow"

    def _remember(self) -> Chosen:
        """What the user chose, read from the widgets about to be replaced."""
        w = self.widgets
        return Chosen(
            filter=w.table.filter,
            filter_open=w.filter_box.has_class("-visible"),
            sort_key=w.table.sort_key,
            sort_reverse=w.table.sort_reverse,
            view=w.context.view,
            cursor=w.table.selected_id(),
            incident=w.findings.selected_number(),
            focus=self.focused.id if self.focused is not None else None,
            log_following=w.log.following,
            log_filter=w.log.folded.filter.text,
            show_resolved=w.findings.show_resolved,
        )

    def _restore(self) -> None:
        """Give the new widgets what the user chose, then watch them and draw everything."""
        chosen, w = self.chosen, self.widgets
        w.table.set_reactive(EnvironmentTable.filter, chosen.filter)
        w.table.set_reactive(EnvironmentTable.sort_key, chosen.sort_key)
        w.table.set_reactive(EnvironmentTable.sort_reverse, chosen.sort_reverse)
        w.context.set_reactive(ContextPanel.view, chosen.view)
        w.findings.set_reactive(IncidentList.show_resolved, chosen.show_resolved)
        w.filter_box.value = chosen.filter
        w.filter_box.set_class(chosen.filter_open, "-visible")
        w.log.set_filter(chosen.log_filter)
        self._watch_widgets()
        self._header = ""  # the header widget is new too
        self.redraw_all()
        w.table.select(chosen.cursor)
        w.findings.select_number(chosen.incident)
        if not chosen.log_following:
            w.log.following = False
            w.log.scroll_home(animate=False, immediate=True)
        focused = self.query(f"#{chosen.focus}") if chosen.focus else None
        (focused.first() if focused else w.table).focus()

    def _watch_widgets(self) -> None:
        """Redraw from the store when the user changes how a widget shows it.

        The table's filter and sort and the context panel's view are the widgets' reactive
        state; the rows and steps are the store's, so the screen redraws. Called again after
        a recompose, whose widgets are new.
        """
        w = self.widgets
        for name in ("filter", "sort_key", "sort_reverse"):
            self.watch(w.table, name, self._resync_table, init=False)
        self.watch(w.context, "view", self._draw_step, init=False)
        self.watch(w.findings, "show_resolved", self._draw_findings, init=False)

    @on(EnvironmentTable.Relayout)
    def _relayout(self) -> None:
        if not self._recomposing:
            self._resync_table()

    @on(events.DescendantFocus)
    @on(events.DescendantBlur)
    def _focus_moved(self, event: events.DescendantFocus | events.DescendantBlur) -> None:
        """The focused panel's title is marked (the focus is seen without colour)."""
        mark_focus(event.widget)

    # --- what the panels ask ---------------------------------------------------------------------

    @on(EnvironmentTable.Details)
    def _environment_details(self, event: EnvironmentTable.Details) -> None:
        self.actions.environment_details(event.env_id)

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.widgets.table.filter = event.value

    @on(Input.Submitted, "#filter")
    def _filter_done(self) -> None:
        self.widgets.filter_box.set_class(False, "-visible")
        self.widgets.table.focus()

    @on(IncidentList.Details)
    def _incident_details(self, event: IncidentList.Details) -> None:
        self.actions.incident_history(event.number)

    @on(IncidentList.Acknowledge)
    def _acknowledge(self, event: IncidentList.Acknowledge) -> None:
        self.actions.acknowledge(event.number)

    @on(EventLog.GoLive)
    def _log_went_live(self) -> None:
        self.step_number = None

    @on(NeedsYouPanel.Answered)
    def _answered(self, event: NeedsYouPanel.Answered) -> None:
        self.needs_you_keys.send(event.answer)

    # --- the screen's keys -----------------------------------------------------------------------

    def action_help(self) -> None:
        self.actions.help(self.BINDINGS)

    def action_history(self) -> None:
        self.actions.history(self.status_styles())

    def action_threads(self) -> None:
        self.actions.threads()

    def action_filter(self) -> None:
        self.actions.open_filter(self.widgets)

    def action_clear_filter(self) -> None:
        self.actions.clear_filter(self.widgets)

    def action_pause(self) -> None:
        self.paused = not self.paused

    def action_step(self, delta: int) -> None:
        numbers = [s.number for s in self.store.steps]
        if not numbers:
            return
        current = self.current_step()
        index = numbers.index(current.number) if current is not None else len(numbers) - 1
        index = max(0, min(len(numbers) - 1, index + delta))
        self.step_number = None if index == len(numbers) - 1 else numbers[index]

    def action_live(self) -> None:
        """Back to live: the latest step, and the event log following its newest line."""
        self.step_number = None
        self.widgets.log.follow()

    def action_copy(self) -> None:
        self.actions.copy(self.widgets.context)

    def action_export(self) -> None:
        self.actions.export(self.current_step())

    def action_theme(self) -> None:
        choose = getattr(self.app, "pick_theme", self.app.action_change_theme)
        choose()

    def action_panel(self, name: str) -> None:
        """Go to a panel (its digit): in the narrow layout its tab is shown first."""
        if self.widgets.tabs is not None and name in TAB_OF:
            self.widgets.tabs.active = TAB_OF[name]
        getattr(self.widgets, name).focus()

    def action_quit(self) -> None:
        self.app.exit()

    def action_needs_you(self, action: str) -> None:
        self.needs_you_keys.act(action)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The needs-you keys are in the footer only while a request waits."""
        if action == "needs_you" and parameters and parameters[0] in NEEDS_YOU_ACTIONS:
            return self.needs_you_keys.waiting()
        if action == "threads":  # only where there are threads to list
            return self.options.threads is not None
        return super().check_action(action, parameters)

    def current_step(self) -> StepRow | None:
        if not self.store.steps:
            return None
        if self.step_number is None:
            return self.store.steps[-1]
        return self.store.step(self.step_number) or self.store.steps[-1]

    def status_styles(self) -> dict[str, str]:
        """The theme's status colours, by status (and "primary")."""
        variables = self.app.theme_variables
        names = ("ready", "starting", "unavailable", "primary")
        return {name: variables.get(f"status-{name}", "") for name in names}

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
        table = self.widgets.table
        table.styles_for = self.status_styles()
        table.restyle()
        self._resync_table()

    def redraw_all(self) -> None:
        self.store.take_changes()
        self.widgets.table.styles_for = self.status_styles()
        self._resync_table()
        self.widgets.log.show_all()
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
        table = self.widgets.table
        table.latest_at = self.store.latest_at
        if changes.environments or changes.removed:
            table.sync(self.store.environments.values(), changes.environments, changes.removed, now)
        elif new_second:
            table.refresh_times(self.store.environments.values(), now)
        if changes.log_lines:
            self.widgets.log.write_entries(changes.log_lines)
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
        self.widgets.table.latest_at = self.store.latest_at
        self.widgets.table.sync(self.store.environments.values(), None, set(), self.options.clock())

    def _draw_step(self) -> None:
        step = self.current_step()
        self.widgets.context.show(step)
        self.widgets.tools.show(step)
        table = self.widgets.table  # says it is live while the context shows a past step
        past = step.number if step and step is not self.store.steps[-1] else None
        if table.context_step != past:
            table.context_step = past
            table.show_title()

    def _draw_findings(self) -> None:
        """The incidents list, and the banner while any incident is active and not acked."""
        incidents = self.store.incidents
        active = incidents.active()
        self._active_count = len(active)  # the header reads this every frame
        self.widgets.findings.show(incidents, self.options.clock())
        if self.widgets.tabs is not None:  # the tab says how many are active, whichever is shown
            tab = self.widgets.tabs.get_tab(TAB_OF["findings"])
            label = tab_label("findings", f" {len(active)}" if active else "")
            if tab.label_text != label:
                tab.label = label
        banner = self.widgets.banner
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
        self.widgets.needs_you.show(text, len(needs_you.pending))
        if bindings:
            self.refresh_bindings()

    def request_panel(self) -> None:
        self._draw_needs_you(bindings=False)

    def header_text(self) -> str:
        """The header line (:func:`~envtui.tui.format.header_line`) for this screen's width."""
        paused_for = self.store.counters["total"] - self.paused_at if self.paused else None
        width = max(20, self.size.width - 2)
        return header_line(
            self.store, self.options, self.current_step(), self._active_count, paused_for, width
        )

    def _draw_header(self) -> None:
        text = self.header_text()
        if text != self._header:  # unchanged: no redraw at all; changed: no relayout
            self._header = text
            self.widgets.header.update(Text(text), layout=False)
