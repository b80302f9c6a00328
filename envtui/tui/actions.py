"""What the main screen's keys and its panels' requests open, send or change.

The screen's own keys (:data:`SCREEN_BINDINGS`) act wherever the focus is: the step
shown, pause, live, copy, export, the screens over the dashboard, going to a panel. A key
that changes a panel's own setting (the table's filter and sort, the context's view, the
incidents shown, acknowledging one) is that panel's binding, so a key typed for one panel
never changes another's; what a panel cannot do alone it posts as a message, which the
screen handles with ``@on`` and hands to :class:`ScreenActions`, an object it holds.
The widgets are held where they are composed (:class:`ScreenWidgets`), not looked up.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, Static, TabbedContent

from envtui.dashboard.store import StepRow, Store, step_export
from envtui.incidents.fold import acknowledgement
from envtui.settings.locations import export_dir
from envtui.tui.details import environment_details, export_file_name
from envtui.tui.format import SORTABLE
from envtui.tui.help_keys import help_sections, sectioned_help
from envtui.tui.history_screen import HistoryScreen
from envtui.tui.incidents_view import IncidentList, episodes_details, incident_details
from envtui.tui.keybar import KeyBar
from envtui.tui.log_widget import EventLog
from envtui.tui.needs_you.panel import NeedsYouPanel
from envtui.tui.options import DashboardOptions
from envtui.tui.screens import TextScreen
from envtui.tui.web.delivery import copy_text, deliver_file
from envtui.tui.widgets import ContextPanel, EnvironmentTable, ToolsPanel
from envtui.vocabulary.events import thread_event

PANELS = ("table", "log", "context", "tools", "findings")
"""The panels, in the order of their digit keys (``1`` the table ... ``5`` the incidents)."""
PANEL_BINDINGS: list[BindingType] = [
    Binding(
        str(n), f"panel('{name}')", "Panel/tab", key_display="1-5", show=n == 1, id=f"panel_{name}"
    )
    for n, name in enumerate(PANELS, start=1)
]
"""A digit per panel, as in lazydocker and btop; in the narrow layout it shows the panel's
tab. The footer shows one item for the five."""
SCREEN_BINDINGS: list[BindingType] = [
    Binding("question_mark", "help", "Help", key_display="?", id="help"),
    Binding("escape", "clear_filter", "Clear filter", show=False, id="clear_filter"),
    Binding("p", "pause", "Pause", id="pause"),
    Binding("left_square_bracket", "step(-1)", "Prev step", key_display="[", id="previous_step"),
    Binding("right_square_bracket", "step(1)", "Next step", key_display="]", id="next_step"),
    Binding("G", "live", "Live", id="live"),
    # a panel without a text box of its own opens the table's filter: keys typed after / in
    # one burst go into a box whatever has focus, and never reach the needs-you keys
    Binding("slash", "filter", "Filter", key_display="/", show=False, id="filter_any_panel"),
    Binding("y", "copy", "Copy", id="copy"),
    Binding("e", "export", "Export", id="export"),
    Binding("t", "theme", "Theme", id="theme"),
    Binding("h", "history", "History", id="history"),
    Binding("o", "needs_you('approve_once')", "Approve once", id="approve_once"),
    Binding(
        "O", "needs_you('approve_session')", "Approve for session", show=False, id="approve_session"
    ),
    Binding("x", "needs_you('decline')", "Decline", id="decline"),
    Binding("r", "needs_you('reply')", "Answer questions", show=False, id="reply"),
    Binding("w", "needs_you('next_request')", "Next request", show=False, id="next_request"),
    Binding("T", "threads", "Threads", id="threads"),
    *PANEL_BINDINGS,
    Binding("q", "quit", "Quit", id="quit"),
]
"""The keys that act wherever the focus is."""
PANEL_CLASSES = (EnvironmentTable, EventLog, ContextPanel, IncidentList)
"""The panels with keys of their own (listed in the help)."""


class ThreadsWanted(Message):
    """``T``: the source's threads, listed by the app (the list opens dashboards of its own)."""


@dataclass
class ScreenWidgets:
    """The main screen's widgets, held from the moment they are composed (a recompose
    composes new ones, and a new set is held)."""

    header: Static
    banner: Static
    needs_you: NeedsYouPanel
    table: EnvironmentTable
    log: EventLog
    context: ContextPanel
    tools: ToolsPanel
    findings: IncidentList
    filter_box: Input
    keys: KeyBar
    tabs: TabbedContent | None = None
    """The narrow layout's tabs; None while the panels sit side by side."""


class ScreenActions:
    """What the screen's keys and its panels' messages open or send; held by the screen."""

    def __init__(self, screen: Screen[None], store: Store, options: DashboardOptions) -> None:
        self.screen = screen
        self.store = store
        self.options = options

    def help(self, screen_bindings: list[BindingType]) -> None:
        """Every key in force (the config's keymap applied), as it is typed, by section."""
        app = self.screen.app
        keymap: dict[str, str] = getattr(app, "keymap_in_force", {})
        bindings = [
            *screen_bindings,
            *(b for panel in PANEL_CLASSES for b in panel.BINDINGS),
            *HistoryScreen.BINDINGS,
            *TextScreen.BINDINGS,
            *app.BINDINGS,
        ]
        body = sectioned_help(
            help_sections([b for b in bindings if isinstance(b, Binding)], keymap)
        )
        app.push_screen(TextScreen("help", body, fit=True))

    def threads(self) -> None:
        """The daemon's threads; the one chosen opens in a dashboard of its own."""
        if self.options.threads is not None:
            self.screen.post_message(ThreadsWanted())

    def history(self, styles: dict[str, str]) -> None:
        """Every environment's timeline with the steps, on one axis."""
        self.screen.app.push_screen(HistoryScreen(self.store, self.options, styles))

    def environment_details(self, env_id: str | None) -> None:
        """One environment, every value whole, kept true while it is open."""
        row = self.store.environments.get(env_id) if env_id is not None else None
        if row is None:
            return
        environments, options, shown = self.store.environments, self.options, row

        def live() -> str:  # asked again every second while the details are open
            current = environments.get(shown.id, shown)
            return environment_details(current, options.clock(), options.zone)

        self.screen.app.push_screen(TextScreen(f"environment · {row.id}", live))

    def incident_history(self, number: int | None) -> None:
        """The incident's whole history, kept true while it is open (it may resolve); for
        a fold of resolved episodes, each of them."""
        incident = self.store.incidents.find(number) if number is not None else None
        if incident is None:
            return
        fold, store, options = self.store.incidents, self.store, self.options
        tally = fold.episodes.get(incident.key)
        if incident.state == "resolved" and tally is not None and tally.count > 1:
            key = incident.key

            def episodes() -> str:
                held = [i for i in reversed(fold.resolved) if i.key == key]
                now = options.clock()
                return episodes_details(key, held, fold.episodes.get(key), now, options.zone)

            subject = key[1] or key[2] or "thread"
            self.screen.app.push_screen(TextScreen(f"incidents · {key[0]} · {subject}", episodes))
            return

        def history() -> str:
            current = fold.find(incident.number) or incident
            return incident_details(current, store.step, options.clock(), options.zone)

        title = f"incident · {incident.code} · {incident.environment_id or incident.tool or ''}"
        self.screen.app.push_screen(TextScreen(title, history))

    def acknowledge(self, number: int | None) -> None:
        """Acknowledge an active incident, as an event: it is logged, and folded like any
        other (a recording of it replays the same)."""
        incident = self.store.incidents.find(number) if number is not None else None
        if incident is None or incident.state != "active":
            what = "no incident" if incident is None else f"the incident is {incident.state}"
            self.screen.notify(f"{what}: nothing to acknowledge", severity="warning", markup=False)
            return
        event = thread_event(acknowledgement(incident), at=self.options.clock())
        deliver = getattr(self.screen.app, "operator_event", None)
        if callable(deliver):
            deliver(event)
        else:  # an app without a source of its own
            self.store.apply(event)
        who = incident.environment_id or incident.tool or "thread"
        self.screen.notify(f"acknowledged: {incident.code} ({who})", markup=False)

    def copy(self, panel: ContextPanel) -> None:
        """The context text, to the clipboard (or wherever the terminal can put it)."""
        what = f"{len(panel.text)} characters of the {panel.view} view"
        self.screen.run_worker(
            copy_text(self.screen.app, panel.text, what), group="copy", exclusive=True
        )

    def export(self, step: StepRow | None) -> None:
        """The step shown, as a JSON file (in a browser, a download)."""
        if step is None:
            self.screen.notify("no step to export yet", severity="warning", markup=False)
            return
        deliver_file(
            self.screen.app,
            json.dumps(step_export(step), indent=2, ensure_ascii=False) + "\n",
            file_name=export_file_name(step, self.store.thread),
            directory=self.options.export_dir or export_dir(),
            mime_type="application/json",
            name="step export",
        )

    @staticmethod
    def open_filter(widgets: ScreenWidgets) -> None:
        box = widgets.filter_box
        box.set_class(True, "-visible")
        box.value = widgets.table.filter
        box.screen.set_focus(box)  # now: keys typed ahead go to the box (needs_you/filter_keys.py)

    @staticmethod
    def clear_filter(widgets: ScreenWidgets) -> None:
        """No filter, the box closed, the table focused."""
        box = widgets.filter_box
        box.value = ""
        box.set_class(False, "-visible")
        widgets.table.filter = ""
        widgets.table.focus()

    @staticmethod
    def sort_by(widgets: ScreenWidgets, column: str) -> None:
        """Sort the table by ``column`` (one of the sortable ones), from the palette."""
        if column in SORTABLE:
            widgets.table.sort_key = column

    def go_to(self, widgets: ScreenWidgets, env_id: str) -> None:
        """Put the table's cursor on ``env_id`` (clearing a filter that hides it), from the
        palette."""
        table = widgets.table
        if env_id not in self.store.environments:
            return
        table.select(env_id)
        if table.selected_id() != env_id:  # filtered out: every row again
            self.clear_filter(widgets)
            table.select(env_id)
        table.focus()
