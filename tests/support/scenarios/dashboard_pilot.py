"""The dashboard under Pilot: a source the test feeds, a bounded wait until the screen has
drawn what it sent, and a command run from the palette."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.command import CommandInput, CommandList
from textual.pilot import Pilot

from tests.support.scenarios.scripted_stream import scripted_events
from tests.support.waiting import pilot_wait_until

from envtui.tui.app import EnvTuiApp
from envtui.tui.log_widget import EventLog
from envtui.tui.main_screen import MainScreen
from envtui.tui.widgets import EnvironmentTable
from envtui.vocabulary.events import Event, EventSink


async def settled(app: EnvTuiApp, pilot: Pilot[Any], events: int | None = None) -> None:
    """Until ``events`` events (the scripted stream's by default) are in the store and drawn.

    One frame draws everything the store collected, so a table with a row per environment
    and an event log with every line the store keeps mean the other panels are drawn too.
    The table takes its rows once it is laid out (its width decides its columns) and
    measures them when idle; its height follows at the screen's next update.
    """
    expected = len(scripted_events()) if events is None else events

    def drawn() -> bool:
        if app.store.counters["total"] < expected or not isinstance(app.screen, MainScreen):
            return False
        tables, logs = app.screen.query(EnvironmentTable), app.screen.query(EventLog)
        if not tables or not logs:  # the screen is still being composed, or recomposed
            return False
        table = tables.first()
        every_row = table.row_count == len(app.store.environments)
        # the rows measured: the table's height, laid out in the same pause, follows them
        measured = table.virtual_size.height == table.row_count + table.header_height
        # identical lines are folded into one: the log counts the entries it was given
        every_line = logs.first().seen >= min(expected, len(app.store.log))
        return every_row and (measured or not table.row_count) and every_line

    await pilot_wait_until(pilot, drawn, what=f"{expected} events in the store and drawn")
    await pilot.pause()  # applies the layout the measured rows asked for (no time passes)


class Feed:
    """A source the test drives: what it is given goes to the dashboard; it stays up."""

    def __init__(self, events: list[Event] | None = None) -> None:
        self.sink: EventSink | None = None
        self._first = events if events is not None else scripted_events()

    async def __call__(self, sink: EventSink, stop: asyncio.Event) -> None:
        self.sink = sink
        for event in self._first:
            sink(event)
        await stop.wait()

    def send(self, *events: Event) -> None:
        assert self.sink is not None
        for event in events:
            self.sink(event)


async def run_from_palette(app: EnvTuiApp, pilot: Pilot[Any], typed: str, label: str) -> None:
    """Open the command palette, enter ``typed``, wait until ``label`` is the top hit, run it.

    The words go into the palette's input at once: typed key by key, Textual searches every
    provider again at each key, which is most of a palette test's time and none of its point."""
    await pilot.press("ctrl+p")
    await pilot_wait_until(pilot, lambda: bool(app.screen.query(CommandList)), what="palette")
    app.screen.query_one(CommandInput).value = typed  # one search, not one per keystroke

    def top_hit() -> str:
        hits = app.screen.query_one(CommandList)
        return str(hits.get_option_at_index(0).prompt) if hits.option_count else ""

    await pilot_wait_until(pilot, lambda: top_hit() == label, what=f"the hit {label!r}")
    await pilot.press("enter")
