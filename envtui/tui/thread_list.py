"""The daemon's threads in one list, and the dashboard of the one chosen (``T``).

``envtui codex`` attached to Codex's app-server daemon hears every thread of it. This
screen lists them as the source says them now (:class:`~envtui.vocabulary.thread_choices.
ThreadChoices`, handed in by the command): a thread that waits on the operator first and
marked, then the loaded ones, each with its name, status, cwd and where it came from;
redrawn twice a second, by thread id, so the cursor stays on its thread. While the source
cannot list them (the daemon stopped, restarting, unreachable) the header says so, with the
source's reason and when it tries again, and the rows come back once it is attached again:
an empty table never stands for "no threads" by mistake. ``enter`` opens
the thread under the cursor: a dashboard over a store of its own, fed by the source the
list hands back for it (its environments, steps, context, divergence and requests);
``esc`` there goes back to the list, ``esc`` here to the main dashboard.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from envtui.dashboard.store import Store
from envtui.tui.format import ASCII, glyphs
from envtui.tui.options import DashboardOptions
from envtui.tui.sessions.sessions_screen import ThreadScreen
from envtui.vocabulary.events import Source
from envtui.vocabulary.safe_text import one_line
from envtui.vocabulary.terms import duration_words
from envtui.vocabulary.thread_choices import ThreadChoice, ThreadChoices, ThreadsUnavailable

REFRESH = 0.5
"""Seconds between two looks at the source's threads."""
COLUMNS = ("", "thread", "name", "status", "cwd", "source")
WAITING_MARK = "\N{WARNING SIGN}"
FOLLOWED_MARK = "\N{BLACK CIRCLE}"


def waiting_mark() -> str:
    return "!" if glyphs() is ASCII else WAITING_MARK


def unavailable_words(away: ThreadsUnavailable) -> str:
    """The source away, in words: why (its reason, inert), and that it comes back by itself."""
    if away.retry_in is None:
        return one_line(away.reason)
    when = f"next try in {duration_words(away.retry_in)}" if away.retry_in else "trying now"
    tries = f", tried {away.restarts} times" if away.restarts else ""
    return (
        f"source unavailable: {one_line(away.reason)}"
        f"  ·  reconnecting by itself ({when}{tries}); the threads are listed again once it is back"
    )


def row_of(choice: ThreadChoice) -> tuple[str, ...]:
    """One thread's cells (the user's names and paths on one line, inert)."""
    followed = "*" if glyphs() is ASCII else FOLLOWED_MARK
    mark = waiting_mark() if choice.waiting else (followed if choice.followed else "")
    status = (choice.status or "unknown").replace("_", " ")
    return (
        mark,
        choice.id,
        one_line(choice.name or ""),
        status,
        one_line(choice.cwd or ""),
        one_line(choice.source or ""),
    )


class ThreadListScreen(Screen[None]):
    """The threads table; see the module."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "back", key_display="esc", id="threads_back"),
        Binding("q", "back", "back", show=False, id="threads_back_q"),
    ]
    DEFAULT_CSS = """
    #threads { height: 1fr; border: round $primary; }
    """

    def __init__(self, options: DashboardOptions, threads: ThreadChoices) -> None:
        super().__init__()
        self.options = options
        self.threads = threads
        self.shown: dict[str, tuple[str, ...]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def compose(self) -> ComposeResult:
        yield Static("", id="threads-header", markup=False)
        yield DataTable(id="threads", cursor_type="row")
        yield Footer()

    @property
    def table(self) -> DataTable[str]:
        return self.query_one("#threads", DataTable)

    def on_mount(self) -> None:
        for column in COLUMNS:
            self.table.add_column(column, key=column or "mark")
        self.refresh_rows()
        self.set_interval(REFRESH, self.refresh_rows)
        self.table.focus()

    def refresh_rows(self) -> None:
        """Update the rows by thread id: changed cells, new rows, gone rows."""
        choices = self.threads.thread_choices()
        wanted = {c.id: row_of(c) for c in choices}
        table = self.table
        with self.app.batch_update():
            for gone in [t for t in self.shown if t not in wanted]:
                table.remove_row(gone)
                del self.shown[gone]
            for thread_id, cells in wanted.items():
                before = self.shown.get(thread_id)
                if before is None:
                    table.add_row(*cells, key=thread_id)
                elif before != cells:
                    for column, old, new in zip(COLUMNS, before, cells, strict=True):
                        if old != new:
                            table.update_cell(thread_id, column or "mark", new)
                self.shown[thread_id] = cells
            self._header(choices, self.threads.unavailable())

    def _header(self, choices: list[ThreadChoice], away: ThreadsUnavailable | None) -> None:
        waiting = sum(1 for c in choices if c.waiting)
        parts = [f"envtui · {self.options.source_name} · {len(choices)} threads"]
        if away is not None:
            parts[0] = f"envtui · {self.options.source_name}"
            parts.append(unavailable_words(away))
        if waiting:
            parts.append(f"{waiting_mark()} {waiting} waiting on you")
        parts.append("enter opens a thread, esc goes back")
        self.query_one("#threads-header", Static).update(Text("  ·  ".join(parts)))

    def selected_id(self) -> str | None:
        table = self.table
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        return str(key.value) if key.value is not None else None

    @on(DataTable.RowSelected, "#threads")
    def _row_selected(self) -> None:
        self.action_open()

    def action_open(self) -> None:
        """The thread under the cursor, in a dashboard of its own."""
        thread_id = self.selected_id()
        if thread_id is None:
            return
        crumb = f"{self.options.source_name} {'>' if glyphs() is ASCII else '/'} {thread_id}"
        options = dataclasses.replace(self.options, source_name=crumb, threads=None)
        store = Store(max_log_lines=options.max_log_lines, max_steps=options.max_steps)
        stop = asyncio.Event()
        task = asyncio.get_running_loop().create_task(
            self._run(self.threads.open_thread(thread_id), store, stop)
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        self.app.push_screen(ThreadScreen(store, options, stop))

    async def _run(self, source: Source, store: Store, stop: asyncio.Event) -> None:
        try:
            await source(store.apply, stop)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a source failure is a notice, never a crash
            self.notify(f"the thread: {exc}", severity="error", markup=False)

    def action_back(self) -> None:
        self.app.pop_screen()
