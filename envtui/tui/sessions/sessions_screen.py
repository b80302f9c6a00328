"""``envtui sessions``: every thread of a sessions tree in one table, and one thread opened.

The table is updated in place by thread id (the cursor stays on the same thread) from
each :class:`SessionsView` the index publishes; it sorts and filters as the main table
does. With hosts, each row leads with its host and live state, the threads that wait on a
person first, and ``f`` (or ``1`` to ``4``) shows Codex's own filters: all, needs you,
working, idle; a sub-agent is drawn under its parent. ``enter`` opens the thread under the
cursor (the main screen over a store of its own, fed by the source the command builds:
through its host's daemon when the daemon holds the thread, so its requests are answered
there, else its rollout followed); ``esc`` there, with no filter to clear, comes back here
and stops that source. A request any host's thread starts waiting on is alerted once.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar, cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static

from envtui.dashboard.store import Store
from envtui.incidents.fleet_alerts import FleetAlerts
from envtui.incidents.fleet_rows import (
    FILTERS,
    HostFreshness,
    host_named,
    live_changes,
    row_facts,
    row_state,
)
from envtui.incidents.sessions_view import (
    SessionsView,
    absent_note,
    misnamed_note,
    outside_note,
)
from envtui.incidents.thread_summary import ThreadSummary
from envtui.tui.details import keys_help
from envtui.tui.format import clean
from envtui.tui.keymap import keys_in_force
from envtui.tui.main_screen import MainScreen
from envtui.tui.options import DashboardOptions
from envtui.tui.screens import TextScreen
from envtui.tui.sessions.sessions_format import (
    SESSION_SORTABLE,
    breadcrumb,
    details_text,
    hosts_text,
    short_id,
)
from envtui.tui.sessions.sessions_table import SessionsTable
from envtui.tui.widgets import EnvironmentTable
from envtui.vocabulary.events import Source
from envtui.vocabulary.safe_text import for_terminal

if TYPE_CHECKING:
    from envtui.vocabulary.answers import Answers

SHARED_KEYS = ("help", "filter", "clear_filter", "theme", "sort", "sort_reverse", "quit")
"""The main screen's bindings the sessions table has too: the same keys, the same keymap ids."""

ThreadOpener = Callable[[ThreadSummary], Source]
"""The source of a thread's dashboard, built by the command (one with an ``answer``
method takes the operator's answers: a daemon's thread)."""
STATE_KEYS = [
    Binding("f", "next_state_filter", "needs you/working/idle", id="state_filter"),
    *(
        Binding(str(n), f"state_filter({n - 1})", f"show {name}", show=False, id=f"show_{n}")
        for n, name in enumerate(FILTERS, start=1)
    ),
]
"""Codex's own filters of the table of hosts: ``f`` steps through them, a digit picks one."""


class ThreadScreen(MainScreen):
    """One thread's dashboard opened from a list (the sessions table, the daemon's threads);
    ``esc`` with no filter goes back to the list."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "clear_filter", "back", key_display="esc", id="clear_filter"),
    ]
    KEY_PRIORITY: ClassVar[dict[str, int]] = {"clear_filter": 95}
    """``esc back`` stays on the footer however narrow: it is the way back to the list."""

    def __init__(self, store: Store, options: DashboardOptions, stop: asyncio.Event) -> None:
        super().__init__(store, options)
        self.stop = stop

    def action_clear_filter(self) -> None:
        box = self.query_one("#filter", Input)
        if box.has_class("-visible") or box.value:
            super().action_clear_filter()
        else:
            self.app.pop_screen()

    def on_unmount(self) -> None:
        self.stop.set()


class SessionsScreen(Screen[None]):
    """The threads table; see the module."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *(
            b
            for key in SHARED_KEYS
            for b in (*MainScreen.BINDINGS, *EnvironmentTable.BINDINGS)
            if isinstance(b, Binding) and b.id == key
        ),
        *STATE_KEYS,
    ]
    DEFAULT_CSS = """
    #sessions { height: 1fr; border: round $primary; }
    #details { height: 1; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(
        self, options: DashboardOptions, opener: ThreadOpener, *, hosts: bool = False
    ) -> None:
        """``hosts``: the table of configured hosts, each row's host and state leading."""
        super().__init__()
        self.options = options
        self.opener = opener
        self.with_hosts = hosts
        self.hosts: list[HostFreshness] = []
        self.poll_interval = 1.0
        self.threads: dict[str, ThreadSummary] = {}
        self.problem: str | None = None
        self.outside: list[str] = []
        self.misnamed: list[str] = []
        self.absent: list[str] = []
        self._header = ""
        self._details = ""
        self._tasks: set[asyncio.Task[None]] = set()
        self._alerts = FleetAlerts()

    def compose(self) -> ComposeResult:
        yield Static("", id="header", markup=False)
        yield SessionsTable(id="sessions", state_of=self._state if self.with_hosts else None)
        yield Static("", id="details", markup=False)
        yield Input(placeholder="filter threads (esc clears)", id="filter")
        yield Footer()

    @property
    def table(self) -> SessionsTable:
        return self.query_one("#sessions", SessionsTable)

    @property
    def filter(self) -> str:
        return self.table.filter

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick)  # "written 4 s ago" moves with the clock
        self.table.focus()
        self._sync(None, set())

    # --- the rows --------------------------------------------------------------------------

    def show(self, view: SessionsView) -> None:
        """One poll of the index: only what it changed reaches the table."""
        moved = (
            live_changes(self.hosts, view.hosts, self.threads.keys()) if self.with_hosts else set()
        )
        quiet = not view.changed and not view.gone and not moved
        hosts_moved = self.with_hosts and self._hosts_text() != self._hosts_text(view.hosts)
        same_notes = (view.outside, view.misnamed, view.absent) == (
            self.outside,
            self.misnamed,
            self.absent,
        )
        if quiet and view.problem == self.problem and same_notes and not hosts_moved:
            return  # nothing changed: no widget is touched
        self.hosts = view.hosts
        self._alert(view.hosts)
        if view.changed:
            for summary in view.changed_threads():
                self.threads[summary.key] = summary
        for key in view.gone:
            self.threads.pop(key, None)
        self.problem, self.outside, self.misnamed = view.problem, view.outside, view.misnamed
        self.absent = view.absent
        if self.is_mounted:
            self._sync(view.changed | view.gone | moved, view.gone)

    def _alert(self, hosts: list[HostFreshness]) -> None:
        """Each request a thread of any host waits on, queued as an alert once."""
        queue = getattr(self.app, "store", None)
        for alert in self._alerts.new(hosts, self.options.clock()):
            if queue is not None:
                queue.alerts.add(alert)

    def _sync(self, changed: set[str] | None, gone: set[str]) -> None:
        now = self.options.clock()
        with self.app.batch_update():
            self.table.sync(self.threads, changed, gone, now)
            self._draw_header()
            self._draw_details()

    def _tick(self) -> None:
        self.table.tick(self.threads, self.options.clock())

    def _draw_header(self) -> None:
        live = sum(1 for s in self.threads.values() if s.live)
        troubled = sum(1 for s in self.threads.values() if s.live and s.incidents)
        name = self.options.source_name.removeprefix("sessions ")
        parts = [f"envtui · sessions {name}", f"{len(self.threads)} threads"]
        parts.append(f"{live} live" + (f", {troubled} with incidents" if troubled else ""))
        shown = self.table.row_count
        if shown != len(self.threads):
            parts.append(f"{shown} shown")
        note = outside_note(self.outside)
        if note is not None:
            parts.append(note)
        misnamed = misnamed_note(self.misnamed)
        if misnamed is not None:
            parts.append(misnamed)
        absent = absent_note(self.absent)
        if absent is not None:
            parts.append(absent)
        if self.table.state_filter != "all":
            parts.append(f"showing {self.table.state_filter}")
        if self.with_hosts and self.hosts:
            parts.append(self._hosts_text())
        if self.problem:
            parts.append(for_terminal(self.problem))
        text = "  ·  ".join(parts)
        if text != self._header:
            self._header = text
            self.query_one("#header", Static).update(Text(text))

    def _state(self, summary: ThreadSummary) -> tuple[str, str | None]:
        """The row's live state, and its name (else its preview) as the host's daemon
        lists it, loaded or not."""
        host = host_named(self.hosts, summary.host)
        live = host.live if host is not None else None
        facts = row_facts(summary, host)
        return row_state(summary, live), facts.title if facts is not None else None

    def _hosts_text(self, hosts: list[HostFreshness] | None = None) -> str:
        now = self.options.clock()
        return hosts_text(self.hosts if hosts is None else hosts, now, self.poll_interval)

    def _draw_details(self) -> None:
        thread_id = self.selected_id()
        summary = self.threads.get(thread_id) if thread_id is not None else None
        text = details_text(summary) if summary is not None else ""
        if text != self._details:
            self._details = text
            line = Text(text, no_wrap=True, overflow="ellipsis")
            # one line of fixed height: no layout, so a key that moves the cursor redraws
            # the rows it changed and this line, not the whole screen
            self.query_one("#details", Static).update(line, layout=False)

    @on(DataTable.RowHighlighted, "#sessions")
    def _row_highlighted(self) -> None:
        self._draw_details()

    def selected_id(self) -> str | None:
        return self.table.selected_id()

    # --- actions ---------------------------------------------------------------------------

    def action_open(self) -> None:
        thread_id = self.selected_id()
        summary = self.threads.get(thread_id) if thread_id is not None else None
        if summary is None:
            return
        store = Store(max_log_lines=self.options.max_log_lines, max_steps=self.options.max_steps)
        stop = asyncio.Event()
        source = self.opener(summary)
        task = asyncio.get_running_loop().create_task(self._follow(source, store, stop))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        host = f"{clean(summary.host)} " if summary.host else ""
        crumb = f"sessions {breadcrumb()} {host}{short_id(summary.thread_id)}"
        answers = source if callable(getattr(source, "answer", None)) else None
        options = dataclasses.replace(
            self.options, source_name=crumb, answers=cast("Answers | None", answers)
        )
        self.app.push_screen(ThreadScreen(store, options, stop))

    async def _follow(self, source: Source, store: Store, stop: asyncio.Event) -> None:
        try:
            await source(store.apply, stop)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a source failure is a notice, never a crash
            self.notify(f"the thread's rollout: {exc}", severity="error", markup=False)

    @on(DataTable.RowSelected, "#sessions")
    def _row_selected(self) -> None:
        self.action_open()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Codex's filters need each row's live state: only the table of hosts has them."""
        if action in ("next_state_filter", "state_filter"):
            return self.with_hosts
        return True

    def action_next_state_filter(self) -> None:
        table = self.table
        self.action_state_filter((FILTERS.index(table.state_filter) + 1) % len(FILTERS))

    def action_state_filter(self, index: int) -> None:
        self.table.state_filter = FILTERS[index]
        self.notify(f"showing {FILTERS[index]}", markup=False, timeout=2)
        self._sync(None, set())

    def action_help(self) -> None:
        """Every key in force (the config's keymap applied), as it is typed."""
        keymap: dict[str, str] = getattr(self.app, "keymap_in_force", {})
        shown = self.BINDINGS if self.with_hosts else [*self.BINDINGS][: -len(STATE_KEYS)]
        bindings = [*shown, *SessionsTable.BINDINGS, *self.app.BINDINGS]
        self.app.push_screen(TextScreen("help", keys_help(keys_in_force(bindings, keymap))))

    def action_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.set_class(True, "-visible")
        box.value = self.table.filter
        box.focus()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.table.filter = event.value
        self._sync(None, set())

    @on(Input.Submitted, "#filter")
    def _filter_done(self) -> None:
        self.query_one("#filter", Input).set_class(False, "-visible")
        self.table.focus()

    def action_clear_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.value = ""
        box.set_class(False, "-visible")
        self.table.filter = ""
        self.table.focus()
        self._sync(None, set())

    def action_sort(self) -> None:
        table = self.table
        index = SESSION_SORTABLE.index(table.sort_key)
        table.sort_key = SESSION_SORTABLE[(index + 1) % len(SESSION_SORTABLE)]
        self.notify(f"sorted by {table.sort_key}", markup=False, timeout=2)
        self._sync(None, set())

    def action_sort_reverse(self) -> None:
        self.table.sort_reverse = not self.table.sort_reverse
        self._sync(None, set())

    def action_theme(self) -> None:
        self.app.action_change_theme()

    def action_quit(self) -> None:
        self.app.exit()

    async def stop_threads(self) -> None:
        """Every opened thread's source, ended (the app is closing)."""
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=5)
