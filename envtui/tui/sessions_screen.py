"""``envtui sessions``: every thread of a sessions tree in one table, and one thread opened.

The table is updated in place by thread id (the cursor stays on the same thread) from
each :class:`SessionsView` the index publishes; it sorts and filters as the main table
does. ``enter`` opens the thread under the cursor in the rollout dashboard (the main
screen over a store of its own, fed by the rollout source, following the file); ``esc``
there, with no filter to clear, comes back here and stops that source.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static

from envtui.dashboard.store import Store
from envtui.incidents.thread_summary import ThreadSummary
from envtui.sources.sessions_index import SessionsView
from envtui.tui.details import keys_help
from envtui.tui.format import matches
from envtui.tui.keymap import keys_in_force
from envtui.tui.main_screen import MainScreen
from envtui.tui.options import DashboardOptions
from envtui.tui.screens import TextScreen
from envtui.tui.sessions_format import SESSION_COLUMNS, SESSION_SORTABLE, session_values, sort_value
from envtui.vocabulary.events import Source
from envtui.vocabulary.safe_text import for_terminal

SHARED_KEYS = ("help", "filter", "clear_filter", "sort", "sort_reverse", "theme", "quit")
"""The main screen's bindings the sessions table has too: the same keys, the same keymap ids."""

ThreadOpener = Callable[[ThreadSummary], Source]
"""The rollout source of a thread (its file followed), built by the command."""


class ThreadScreen(MainScreen):
    """The rollout dashboard of one thread; ``esc`` with no filter goes back to the list."""

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
        *(b for b in MainScreen.BINDINGS if isinstance(b, Binding) and b.id in SHARED_KEYS),
        Binding("enter", "open", "Open thread", id="open"),
    ]
    DEFAULT_CSS = """
    #sessions { height: 1fr; border: round $primary; }
    """

    def __init__(self, options: DashboardOptions, opener: ThreadOpener) -> None:
        super().__init__()
        self.options = options
        self.opener = opener
        self.threads: dict[str, ThreadSummary] = {}
        self.problem: str | None = None
        self.filter = ""
        self.sort_key = SESSION_SORTABLE[0]
        self.sort_reverse = False
        self._order: list[str] = []
        self._tasks: set[asyncio.Task[None]] = set()

    def compose(self) -> ComposeResult:
        yield Static("", id="header", markup=False)
        yield DataTable[Text](id="sessions", cursor_type="row", zebra_stripes=True)
        yield Input(placeholder="filter threads (esc clears)", id="filter")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#sessions", DataTable)
        for key, label, width in SESSION_COLUMNS:
            table.add_column(label, key=key, width=width)
        self.set_interval(1.0, self.redraw)  # "written 4s ago" and live move with the clock
        table.focus()
        self.redraw()

    # --- the rows --------------------------------------------------------------------------

    def show(self, view: SessionsView) -> None:
        """One poll of the index: new, changed and gone threads."""
        self.threads = {summary.thread_id: summary for summary in view.threads}
        self.problem = view.problem
        if self.is_mounted:
            self.redraw()

    def _visible(self) -> list[ThreadSummary]:
        now = self.options.clock()
        rows = [
            s
            for s in self.threads.values()
            if not self.filter or matches(session_values(s, now), self.filter)
        ]
        rows.sort(key=lambda s: (sort_value(s, self.sort_key), s.thread_id))
        return rows[::-1] if self.sort_reverse else rows

    def redraw(self) -> None:
        table = self.query_one("#sessions", DataTable)
        now = self.options.clock()
        rows = self._visible()
        order = [s.thread_id for s in rows]
        values = [session_values(s, now) for s in rows]
        with self.app.batch_update():
            if order != self._order:
                selected = self.selected_id()
                table.clear()
                for thread_id, cells in zip(order, values, strict=True):
                    table.add_row(*self._cells(cells), key=thread_id)
                self._order = order
                if selected in order:
                    table.move_cursor(row=order.index(selected))
            else:
                for thread_id, cells in zip(order, values, strict=True):
                    for (key, _, _), cell in zip(SESSION_COLUMNS, self._cells(cells), strict=True):
                        table.update_cell(thread_id, key, cell)
            self._draw_header(len(rows))

    def _cells(self, values: dict[str, str]) -> list[Text]:
        return [
            Text(values[key], no_wrap=True, overflow="ellipsis") for key, _, _ in SESSION_COLUMNS
        ]

    def _draw_header(self, shown: int) -> None:
        live = sum(1 for s in self.threads.values() if s.live)
        troubled = sum(1 for s in self.threads.values() if s.live and s.incidents)
        parts = [f"envtui · {self.options.source_name}", f"{len(self.threads)} threads"]
        parts += [f"{live} live", f"{troubled} live with incidents"]
        if shown != len(self.threads):
            parts.append(f"{shown} shown")
        if self.problem:
            parts.append(for_terminal(self.problem))
        self.query_one("#header", Static).update(Text("  ·  ".join(parts)))

    def selected_id(self) -> str | None:
        table = self.query_one("#sessions", DataTable)
        if not table.row_count:
            return None
        value = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return str(value) if value is not None else None

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
        name = summary.path.rpartition("/")[2]
        options = dataclasses.replace(self.options, source_name=f"rollout {name}")
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

    def action_help(self) -> None:
        """Every key in force (the config's keymap applied), as it is typed."""
        keymap: dict[str, str] = getattr(self.app, "keymap_in_force", {})
        bindings = [*self.BINDINGS, *self.app.BINDINGS]
        self.app.push_screen(TextScreen("help", keys_help(keys_in_force(bindings, keymap))))

    def action_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.set_class(True, "-visible")
        box.value = self.filter
        box.focus()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.filter = event.value
        self.redraw()

    @on(Input.Submitted, "#filter")
    def _filter_done(self) -> None:
        self.query_one("#filter", Input).set_class(False, "-visible")
        self.query_one("#sessions", DataTable).focus()

    def action_clear_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.value = ""
        box.set_class(False, "-visible")
        self.filter = ""
        self.query_one("#sessions", DataTable).focus()
        self.redraw()

    def action_sort(self) -> None:
        index = SESSION_SORTABLE.index(self.sort_key)
        self.sort_key = SESSION_SORTABLE[(index + 1) % len(SESSION_SORTABLE)]
        self.notify(f"sorted by {self.sort_key}", markup=False, timeout=2)
        self.redraw()

    def action_sort_reverse(self) -> None:
        self.sort_reverse = not self.sort_reverse
        self.redraw()

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
