"""The main screen: one view that answers, at a glance, what each environment is doing.

It owns the frame timer: every FRAME it takes what the store collected since the last frame
and redraws just that, in one batch (table rows by key, log lines in one write, panels only
when a step changed). Events are never drawn one by one, which is what keeps a burst of
thousands of events smooth. What the user changes (pause, the step shown, filter, sort,
context view) is reactive state; its watchers redraw, and the actions only assign it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, OptionList, Static, TabbedContent, TabPane

from envtui.safe_text import one_line
from envtui.store import StepRow, Store, step_export
from envtui.tui.details import (
    environment_details,
    export_file_name,
    finding_details,
    keys_help,
)
from envtui.tui.format import SORTABLE, WARNING
from envtui.tui.options import DashboardOptions
from envtui.tui.screens import TextScreen
from envtui.tui.widgets import (
    VIEWS,
    ContextPanel,
    EnvironmentTable,
    EventLog,
    FindingsList,
    ToolsPanel,
)

WIDE = 120
"""From this many columns on, the panels sit side by side; below it, they are tabs."""
FRAME = 1 / 15
"""Seconds between two redraws of what changed."""
TICKS_PER_SECOND = round(1 / FRAME)
"""Frames per second: relative times ("4s ago") are redrawn once a second, not every frame."""


class MainScreen(Screen[None]):
    """The dashboard's one screen: environments, events, the step's context, tools, findings."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help", id="help"),
        Binding("slash", "filter", "Filter", id="filter"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="clear_filter"),
        Binding("p", "pause", "Pause", id="pause"),
        Binding("d", "cycle_view", "Diff/full", id="view"),
        Binding("left_square_bracket", "step(-1)", "Prev step", id="previous_step"),
        Binding("right_square_bracket", "step(1)", "Next step", id="next_step"),
        Binding("enter", "details", "Details", id="details"),
        Binding("y", "copy", "Copy", id="copy"),
        Binding("e", "export", "Export", id="export"),
        Binding("t", "theme", "Theme", id="theme"),
        Binding("s", "sort", "Sort", id="sort"),
        Binding("S", "sort_reverse", "Reverse", show=False, id="sort_reverse"),
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
        self.paused_at = 0  # the store's event count when the view was paused
        self.wide = True
        self._ticks = 0
        self._recomposing = False
        self._finding_count = 0

    # --- layout ----------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        self.wide = self.app.size.width >= WIDE
        yield Static("", id="header", markup=False)
        yield Static("", id="banner", markup=False)
        yield EnvironmentTable(id="table")
        log = EventLog(self.options.max_log_lines, id="log")
        context = ContextPanel(id="context")
        tools = ToolsPanel("", id="tools")
        findings = FindingsList(id="findings")
        if self.wide:
            with Horizontal(id="lower", classes="-wide"):
                yield log
                with Vertical(id="side"):
                    yield context
                    yield tools
                    yield findings
        else:
            with TabbedContent(id="lower"):
                with TabPane("events", id="tab-events"):
                    yield log
                with TabPane("context", id="tab-context"):
                    yield context
                with TabPane("tools", id="tab-tools"):
                    yield tools
                with TabPane("findings", id="tab-findings"):
                    yield findings
        yield Input(placeholder="filter environments (esc clears)", id="filter")
        yield Footer()

    def on_mount(self) -> None:
        self.set_interval(FRAME, self.flush)  # owned by the screen: it stops with it
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.redraw_all())
        self._watch_widgets()
        self.redraw_all()
        self.query_one(EnvironmentTable).focus()

    async def on_resize(self) -> None:
        if (self.app.size.width >= WIDE) != self.wide and not self._recomposing:
            self._recomposing = True  # the frame timer waits until the new layout is mounted
            try:
                await self.recompose()
            finally:
                self._recomposing = False
            self._watch_widgets()
            self.redraw_all()

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

    def _styles(self) -> dict[str, str]:
        variables = self.app.theme_variables
        return {
            "ready": variables.get("status-ready", ""),
            "starting": variables.get("status-starting", ""),
            "unavailable": variables.get("status-unavailable", ""),
            "primary": variables.get("status-primary", ""),
        }

    def redraw_all(self) -> None:
        self.store.take_changes()
        self.query_one(EnvironmentTable).styles_for = self._styles()
        self._resync_table()
        log = self.query_one(EventLog)
        log.clear()
        log.write_lines(list(self.store.log))
        self._draw_step()
        self._draw_findings()
        self._draw_header()

    def flush(self) -> None:
        """One frame: apply what the store collected since the last one, in one batch."""
        self._ticks += 1
        if self._recomposing:
            return
        if self.paused:
            self._draw_header()
            return
        changes = self.store.take_changes()
        now = self.options.clock()
        with self.app.batch_update():
            table = self.query_one(EnvironmentTable)
            if changes.environments or changes.removed:
                table.sync(
                    self.store.environments.values(), changes.environments, changes.removed, now
                )
            elif self._ticks % TICKS_PER_SECOND == 0:
                table.refresh_times(self.store.environments.values(), now)
            if changes.log_lines:
                self.query_one(EventLog).write_lines(changes.log_lines)
            if changes.steps or changes.findings:
                self._draw_step()
                self._draw_findings()
            self._draw_header()

    def _resync_table(self) -> None:
        """Every row again, from the store: the filter, the sort or the theme changed."""
        self.query_one(EnvironmentTable).sync(
            self.store.environments.values(), None, set(), self.options.clock()
        )

    def current_step(self) -> StepRow | None:
        if not self.store.steps:
            return None
        if self.step_number is None:
            return self.store.steps[-1]
        return self.store.step(self.step_number) or self.store.steps[-1]

    def _draw_step(self) -> None:
        step = self.current_step()
        self.query_one(ContextPanel).show(step)
        self.query_one(ToolsPanel).show(step)

    def _draw_findings(self) -> None:
        findings = self.store.findings()
        self._finding_count = len(findings)  # the header reads this every frame
        self.query_one(FindingsList).show(self.store.finding_groups(), len(findings))
        banner = self.query_one("#banner", Static)
        if findings:
            codes = ", ".join(dict.fromkeys(one_line(f.code) for f in findings))
            banner.update(
                Text(
                    f"{WARNING} {len(findings)} finding(s): {codes}"
                    "  (enter on a finding explains it)"
                )
            )
        banner.set_class(bool(findings), "-visible")

    def _draw_header(self) -> None:
        step = self.current_step()
        parts = [f"envtui · {one_line(self.options.source_name)}"]
        if self.store.thread:
            parts.append(f"thread {one_line(self.store.thread)}")
        if step is not None:
            parts.append(f"step {step.number}")
            if step.current_date or step.timezone:
                when = f"{step.current_date or '-'} {step.timezone or ''}".strip()
                parts.append(one_line(when))
        parts.append(self.options.clock().astimezone().strftime("%H:%M:%S"))
        findings = self._finding_count
        if findings:
            parts.append(f"{WARNING} {findings}")
        if self.paused:
            parts.append(f"PAUSED +{self.store.counters['total'] - self.paused_at} events")
        self.query_one("#header", Static).update(Text("  ·  ".join(parts)))

    # --- actions ----------------------------------------------------------------------------------

    def action_help(self) -> None:
        keys = [(b.key, b.description) for b in self.BINDINGS if isinstance(b, Binding)]
        self.app.push_screen(TextScreen("help", keys_help(keys)))

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

    def action_details(self) -> None:
        findings_list = self.query_one(FindingsList)
        if self.focused is findings_list and findings_list.highlighted is not None:
            groups = self.store.finding_groups()
            if findings_list.highlighted < len(groups):
                finding, count = groups[findings_list.highlighted]
                step = self.store.step(finding.step) if finding.step is not None else None
                body = finding_details(finding, count, step)
                self.app.push_screen(TextScreen(f"finding · {finding.code}", body))
            return
        env_id = self.query_one(EnvironmentTable).selected_id()
        row = self.store.environments.get(env_id) if env_id is not None else None
        if row is not None:
            self.app.push_screen(TextScreen(f"environment · {row.id}", environment_details(row)))

    def action_copy(self) -> None:
        text = self.query_one(ContextPanel).text
        self.app.copy_to_clipboard(text)
        self.notify(
            f"copied {len(text)} characters of the {self.query_one(ContextPanel).view} view",
            markup=False,
        )

    def action_export(self) -> None:
        step = self.current_step()
        if step is None:
            self.notify("no step to export yet", severity="warning", markup=False)
            return
        directory = self.options.export_dir or Path.cwd()
        path = directory / export_file_name(step, self.store.thread)
        text = json.dumps(step_export(step), indent=2, ensure_ascii=False) + "\n"
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            self.notify(
                f"could not write {path}: {exc.strerror or exc}", severity="error", markup=False
            )
            return
        self.notify(f"wrote {path}", markup=False)

    def action_theme(self) -> None:
        self.app.action_change_theme()

    def action_sort(self) -> None:
        table = self.query_one(EnvironmentTable)
        table.sort_key = SORTABLE[(SORTABLE.index(table.sort_key) + 1) % len(SORTABLE)]

    def action_sort_reverse(self) -> None:
        table = self.query_one(EnvironmentTable)
        table.sort_reverse = not table.sort_reverse

    def action_quit(self) -> None:
        self.app.exit()

    @on(OptionList.OptionSelected, "#findings")
    def _finding_selected(self) -> None:
        self.action_details()

    @on(DataTable.RowSelected, "#table")
    def _environment_selected(self) -> None:
        self.action_details()
