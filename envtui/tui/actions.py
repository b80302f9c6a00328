"""What the dashboard's keys do, and the state they change.

The actions only assign state (pause, the step shown, the table's filter and sort, the
context view) or open a screen; :class:`~envtui.tui.main_screen.MainScreen` watches that
state and redraws. Kept apart from the drawing so each reads on its own.
"""

from __future__ import annotations

import json
from typing import ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import DataTable, Input, OptionList

from envtui.dashboard.store import StepRow, Store, step_export
from envtui.incidents.fold import acknowledgement
from envtui.settings.locations import export_dir
from envtui.tui.details import environment_details, export_file_name
from envtui.tui.format import SORTABLE
from envtui.tui.help_keys import help_sections, sectioned_help
from envtui.tui.history_screen import HistoryScreen
from envtui.tui.incidents_view import IncidentList, episodes_details, incident_details
from envtui.tui.log_widget import EventLog
from envtui.tui.options import DashboardOptions
from envtui.tui.screens import TextScreen
from envtui.tui.web.delivery import copy_text, deliver_file
from envtui.tui.widgets import VIEWS, ContextPanel, EnvironmentTable
from envtui.vocabulary.events import thread_event


class DashboardActions(Screen[None]):
    """The main screen's keys and the state they assign; the drawing is the subclass's."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help", key_display="?", id="help"),
        Binding("slash", "filter", "Filter", key_display="/", id="filter"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="clear_filter"),
        Binding("p", "pause", "Pause", id="pause"),
        Binding("d", "cycle_view", "Diff/full", id="view"),
        Binding(
            "left_square_bracket", "step(-1)", "Prev step", key_display="[", id="previous_step"
        ),
        Binding("right_square_bracket", "step(1)", "Next step", key_display="]", id="next_step"),
        Binding("G", "live", "Live", id="live"),
        Binding("enter", "details", "Details", id="details"),
        Binding("a", "acknowledge", "Ack incident", id="acknowledge"),
        Binding("y", "copy", "Copy", id="copy"),
        Binding("e", "export", "Export", id="export"),
        Binding("t", "theme", "Theme", id="theme"),
        Binding("s", "sort", "Sort", id="sort"),
        Binding("S", "sort_reverse", "Reverse", show=False, id="sort_reverse"),
        Binding("h", "history", "History", id="history"),
        Binding("o", "needs_you('approve_once')", "Approve once", id="approve_once"),
        Binding(
            "O",
            "needs_you('approve_session')",
            "Approve for session",
            show=False,
            id="approve_session",
        ),
        Binding("x", "needs_you('decline')", "Decline", id="decline"),
        Binding("r", "needs_you('reply')", "Answer questions", show=False, id="reply"),
        Binding("w", "needs_you('next_request')", "Next request", show=False, id="next_request"),
        Binding("R", "toggle_resolved", "Resolved", show=False, id="toggle_resolved"),
        Binding("T", "threads", "Threads", id="threads"),
        Binding("q", "quit", "Quit", id="quit"),
    ]

    paused: var[bool] = var(False, init=False)
    """The view stops drawing while the store keeps collecting; the header counts what waits."""

    step_number: var[int | None] = var[int | None](None, init=False, always_update=True)
    """The step the panels show; None follows the latest. Assigning it always redraws."""

    def __init__(self, store: Store, options: DashboardOptions) -> None:
        super().__init__()
        self.store = store
        self.options = options

    def current_step(self) -> StepRow | None:
        if not self.store.steps:
            return None
        if self.step_number is None:
            return self.store.steps[-1]
        return self.store.step(self.step_number) or self.store.steps[-1]

    def status_styles(self) -> dict[str, str]:
        """The theme's status colours, by status (and "primary")."""
        variables = self.app.theme_variables
        return {
            "ready": variables.get("status-ready", ""),
            "starting": variables.get("status-starting", ""),
            "unavailable": variables.get("status-unavailable", ""),
            "primary": variables.get("status-primary", ""),
        }

    # --- actions ----------------------------------------------------------------------------------

    class ThreadsWanted(Message):
        """``T``: the daemon's threads, listed by the app (the list opens dashboards)."""

    def action_threads(self) -> None:
        """The daemon's threads; the one chosen opens in a dashboard of its own."""
        if self.options.threads is not None:
            self.post_message(self.ThreadsWanted())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``T`` is in the footer only where there are threads to list."""
        if action == "threads":
            return self.options.threads is not None
        return super().check_action(action, parameters)

    def action_history(self) -> None:
        """Every environment's timeline with the steps, on one axis."""
        self.app.push_screen(HistoryScreen(self.store, self.options, self.status_styles()))

    def action_help(self) -> None:
        """Every key in force (the config's keymap applied), as it is typed, by section."""
        keymap: dict[str, str] = getattr(self.app, "keymap_in_force", {})
        bindings = [
            *self.BINDINGS,
            *EnvironmentTable.BINDINGS,
            *EventLog.BINDINGS,
            *HistoryScreen.BINDINGS,
            *TextScreen.BINDINGS,
            *self.app.BINDINGS,
        ]
        body = sectioned_help(
            help_sections([b for b in bindings if isinstance(b, Binding)], keymap)
        )
        self.app.push_screen(TextScreen("help", body, fit=True))

    def action_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.set_class(True, "-visible")
        box.value = self.query_one(EnvironmentTable).filter
        box.focus()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.query_one(EnvironmentTable).filter = event.value

    @on(Input.Submitted, "#filter")
    def _filter_done(self) -> None:
        self.query_one("#filter", Input).set_class(False, "-visible")
        self.query_one(EnvironmentTable).focus()

    def action_clear_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.value = ""
        box.set_class(False, "-visible")
        table = self.query_one(EnvironmentTable)
        table.filter = ""
        table.focus()

    def action_pause(self) -> None:
        self.paused = not self.paused

    def action_cycle_view(self) -> None:
        panel = self.query_one(ContextPanel)
        panel.view = VIEWS[(VIEWS.index(panel.view) + 1) % len(VIEWS)]

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
        self.query_one(EventLog).follow()

    def action_details(self) -> None:
        incidents = self.query_one(IncidentList)
        if self.focused is incidents:
            self._incident_history(incidents.selected_number())
            return
        env_id = self.query_one(EnvironmentTable).selected_id()
        row = self.store.environments.get(env_id) if env_id is not None else None
        if row is not None:
            environments, shown = self.store.environments, row

            def live() -> str:  # asked again every second while the details are open
                current = environments.get(shown.id, shown)
                return environment_details(current, self.options.clock(), self.options.zone)

            self.app.push_screen(TextScreen(f"environment · {row.id}", live))

    def _incident_history(self, number: int | None) -> None:
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
            self.app.push_screen(TextScreen(f"incidents · {key[0]} · {subject}", episodes))
            return

        def history() -> str:
            current = fold.find(incident.number) or incident
            return incident_details(current, store.step, options.clock(), options.zone)

        title = f"incident · {incident.code} · {incident.environment_id or incident.tool or ''}"
        self.app.push_screen(TextScreen(title, history))

    def action_acknowledge(self) -> None:
        """Acknowledge the active incident under the incidents' cursor, as an event: it is
        logged, and folded like any other (a recording of it replays the same)."""
        number = self.query_one(IncidentList).selected_number()
        incident = self.store.incidents.find(number) if number is not None else None
        if incident is None or incident.state != "active":
            what = "no incident" if incident is None else f"the incident is {incident.state}"
            self.notify(f"{what}: nothing to acknowledge", severity="warning", markup=False)
            return
        event = thread_event(acknowledgement(incident), at=self.options.clock())
        deliver = getattr(self.app, "operator_event", None)
        if callable(deliver):
            deliver(event)
        else:  # an app without a source of its own
            self.store.apply(event)
        who = incident.environment_id or incident.tool or "thread"
        self.notify(f"acknowledged: {incident.code} ({who})", markup=False)

    def action_copy(self) -> None:
        panel = self.query_one(ContextPanel)
        what = f"{len(panel.text)} characters of the {panel.view} view"
        self.run_worker(copy_text(self.app, panel.text, what), group="copy", exclusive=True)

    def action_export(self) -> None:
        step = self.current_step()
        if step is None:
            self.notify("no step to export yet", severity="warning", markup=False)
            return
        deliver_file(
            self.app,
            json.dumps(step_export(step), indent=2, ensure_ascii=False) + "\n",
            file_name=export_file_name(step, self.store.thread),
            directory=self.options.export_dir or export_dir(),
            mime_type="application/json",
            name="step export",
        )

    def action_theme(self) -> None:
        self.app.action_change_theme()

    def action_sort(self) -> None:
        table = self.query_one(EnvironmentTable)
        table.sort_key = SORTABLE[(SORTABLE.index(table.sort_key) + 1) % len(SORTABLE)]

    def action_sort_reverse(self) -> None:
        table = self.query_one(EnvironmentTable)
        table.sort_reverse = not table.sort_reverse

    def action_toggle_resolved(self) -> None:
        """Hide the resolved incidents, or show them again."""
        incidents = self.query_one(IncidentList)
        incidents.show_resolved = not incidents.show_resolved

    def sort_by(self, column: str) -> None:
        """Sort the table by ``column`` (one of the sortable ones), from the palette."""
        if column in SORTABLE:
            self.query_one(EnvironmentTable).sort_key = column

    def go_to(self, env_id: str) -> None:
        """Put the table's cursor on ``env_id`` (clearing a filter that hides it), from the
        palette."""
        table = self.query_one(EnvironmentTable)
        if env_id not in self.store.environments:
            return
        table.select(env_id)
        if table.selected_id() != env_id:  # filtered out: every row again
            self.action_clear_filter()
            table.select(env_id)
        table.focus()

    def action_quit(self) -> None:
        self.app.exit()

    @on(OptionList.OptionSelected, "#findings")
    def _finding_selected(self) -> None:
        self.action_details()

    @on(DataTable.RowSelected, "#table")
    def _environment_selected(self) -> None:
        self.action_details()
