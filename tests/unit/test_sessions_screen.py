"""The sessions table as drawn, line by line, at 80x24 and 160x45 (Pilot), and a thread
opened from it: state first, a short id, a live glyph that is not the ready glyph, the
keys in the footer and a breadcrumb in the header."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Static

from tests.support.data.session_trees import copy_real, with_wrong_last_context
from tests.support.waiting import pilot_wait_until

from envtui.incidents.sessions_view import SessionsView
from envtui.incidents.thread_summary import EnvironmentState, ThreadSummary
from envtui.sources.sessions.session_files import LocalSessionFiles
from envtui.sources.sessions.sessions_index import SessionsIndex, watch_sessions
from envtui.tui.format import glyphs, use_ascii
from envtui.tui.options import DashboardOptions
from envtui.tui.sessions.sessions_app import SessionsApp
from envtui.tui.sessions.sessions_format import details_text, live_glyph, session_values
from envtui.tui.sessions.sessions_screen import ThreadScreen
from envtui.tui.sessions.sessions_table import SessionsTable

pytestmark = pytest.mark.tui

PINNED = datetime(2026, 11, 30, 15, 9, 0, tzinfo=UTC)
"""About a minute after the last item of the real rollouts: they are live then."""


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch) -> None:
    """Times are drawn in the local zone: UTC here, so the lines are the same anywhere."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()


def pinned_tree(root: Path) -> Path:
    """The real rollouts and one with a context-mismatch at its last step, written 5 s
    before PINNED; the 0.150 one 10 minutes before (not live)."""
    paths = [*copy_real(root), with_wrong_last_context(root)]
    for path in paths:
        moment = PINNED - timedelta(minutes=10 if "896e" in path.name else 0, seconds=5)
        os.utime(path, (moment.timestamp(), moment.timestamp()))
    return root


def pinned_app(root: Path) -> SessionsApp:
    files = LocalSessionFiles(root)
    index = SessionsIndex(files, clock=PINNED.timestamp)

    async def watch(show: object, stop: object) -> None:
        await watch_sessions(index, show, stop, poll=0.05)  # type: ignore[arg-type]

    options = DashboardOptions(source_name="sessions ~/.codex/sessions", clock=lambda: PINNED)
    return SessionsApp(watch, lambda s: files.rollout_source(s.path), options)


def screen_lines(app: App[None]) -> list[str]:
    """The screen as a person reads it, one string a line."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def _shown(app: SessionsApp, size: tuple[int, int]) -> list[str]:
    async with app.run_test(size=size) as pilot:
        table = app.sessions.table
        await pilot_wait_until(pilot, lambda: table.row_count == 4, what="four rows")
        await pilot_wait_until(
            pilot, lambda: "enter open" in screen_lines(app)[-1], what="the footer"
        )
        return screen_lines(app)


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The pinned tree at ``sessions``, a path as short on every machine."""
    monkeypatch.chdir(tmp_path)
    return pinned_tree(Path("sessions"))


ROWS_160 = [
    "│ live    environments            incidents             thread     written     steps  codex     cwd                       started           profile            │",
    "│ ◉ live  1/1 ★ local             ⚠ context-mismatch    …00000999  <1 min ago  ≥1     0.171.0   /home/me/work             2026-11-30 15:07  codex-0.171        │",
    "│ ◉ live  1/1 ★ local                                   …9aa14a85  <1 min ago  ≥1     0.171.0   /home/me/work             2026-11-30 15:07  codex-0.171        │",
    "│ ◉ live  1/1 ★ local                                   …62bf2aaa  <1 min ago  1      0.171.0   /home/me/work             2026-11-30 15:07  codex-0.171        │",
    "│         1/1 ★ local                                   …18667467  10 min ago  3      0.150.0   /home/me/work             2026-11-30 15:07  codex-0.150        │",
]
ROWS_80 = [
    "│ live    environments            incidents             thread     written     │",
    "│ ◉ live  1/1 ★ local             ⚠ context-mismatch    …00000999  <1 min ago  │",
    "│ ◉ live  1/1 ★ local                                   …9aa14a85  <1 min ago  │",
    "│ ◉ live  1/1 ★ local                                   …62bf2aaa  <1 min ago  │",
    "│         1/1 ★ local                                   …18667467  10 min ago  │",
]
HEADER = " envtui · sessions ~/.codex/sessions  ·  4 threads  ·  3 live, 1 with incidents"
DETAILS = " thread 01a22cff-0000-7000-8000-000000000999  ·  "
FOOTER = " enter open  ? Help  / Filter  t Theme  s Sort  q Quit"
ROLLOUT = (
    "sessions/2026/11/30/rollout-2026-11-30T15-07-52-01a22cff-0000-7000-8000-000000000999.jsonl"
)


async def test_at_160_columns_state_comes_first_and_every_column_fits(
    tree: Path, utc: None
) -> None:
    lines = await _shown(pinned_app(tree), (160, 45))
    assert len(lines) == 45
    assert lines[0] == HEADER.ljust(160)
    assert lines[2:7] == ROWS_160
    assert lines[-2] == (DETAILS + ROLLOUT).ljust(160)
    assert lines[-1] == FOOTER.ljust(148) + "▏^p palette "


async def test_at_80_columns_the_state_and_the_short_id_are_on_screen(
    tree: Path, utc: None
) -> None:
    lines = await _shown(pinned_app(tree), (80, 24))
    assert len(lines) == 24
    assert lines[0] == HEADER + " "
    assert lines[2:7] == ROWS_80
    assert lines[-2] == DETAILS + "sessions/2026/11/30/rollout-2… "  # cut, and says so
    assert lines[-1] == FOOTER.ljust(68) + "▏^p palette "


async def test_enter_opens_the_thread_under_a_breadcrumb_and_esc_goes_back(
    tree: Path, utc: None
) -> None:
    app = pinned_app(tree)
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.sessions.table
        await pilot_wait_until(pilot, lambda: table.row_count == 4, what="four rows")
        await pilot.press("enter")
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, ThreadScreen), what="open")
        await pilot_wait_until(
            pilot, lambda: "esc back" in screen_lines(app)[-1], what="the footer"
        )
        lines = screen_lines(app)
        assert lines[0].startswith(" envtui · sessions › …00000999  ·  ")  # noqa: RUF001
        await pilot.press("escape")
        await pilot_wait_until(pilot, lambda: not isinstance(app.screen, ThreadScreen), what="back")
        assert screen_lines(app)[0] == HEADER + " "


class Touches:
    """Every call that changes the table or a line of text, by method and row."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[tuple[str, str]] = []
        for name in ("add_row", "update_cell", "remove_row", "sort", "clear"):
            self._spy(monkeypatch, SessionsTable, name)
        self._spy(monkeypatch, Static, "update")

    def _spy(self, monkeypatch: pytest.MonkeyPatch, owner: type, name: str) -> None:
        original = getattr(owner, name)
        calls = self.calls

        def spy(widget: object, *args: object, **kwargs: object) -> object:
            row = kwargs.get("key", args[0] if args and name != "add_row" else "")
            calls.append((name, str(row)))
            return original(widget, *args, **kwargs)

        monkeypatch.setattr(owner, name, spy)


def counted_app(root: Path, polls: list[int]) -> SessionsApp:
    """:func:`pinned_app`, counting the polls published."""
    files = LocalSessionFiles(root)
    index = SessionsIndex(files, clock=PINNED.timestamp)

    async def watch(show: Callable[[SessionsView], None], stop: asyncio.Event) -> None:
        def counted(view: SessionsView) -> None:
            show(view)
            polls.append(len(view.changed))

        await watch_sessions(index, counted, stop, poll=0.02)

    options = DashboardOptions(source_name="sessions ~/.codex/sessions", clock=lambda: PINNED)
    return SessionsApp(watch, lambda s: files.rollout_source(s.path), options)


@pytest.fixture
def touches(monkeypatch: pytest.MonkeyPatch) -> Touches:
    return Touches(monkeypatch)


@contextlib.asynccontextmanager
async def settled_app(
    tree: Path, touches: Touches
) -> AsyncIterator[tuple[SessionsApp, Pilot[Any], list[int]]]:
    """:func:`counted_app` at 160x45 with its four rows, three polls in (the counts of each
    poll's changes), and what it touched until then forgotten."""
    polls: list[int] = []
    app = counted_app(tree, polls)
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot_wait_until(pilot, lambda: app.sessions.table.row_count == 4, what="rows")
        await pilot_wait_until(pilot, lambda: len(polls) >= 3, what="polls")
        touches.calls.clear()
        yield app, pilot, polls


async def test_a_poll_that_changes_nothing_touches_no_widget(
    tree: Path, utc: None, touches: Touches
) -> None:
    async with settled_app(tree, touches) as (_, pilot, polls):
        seen = len(polls)
        await pilot_wait_until(pilot, lambda: len(polls) >= seen + 30, what="30 more polls")
        await pilot.pause(1.2)  # a tick of the clock too (pinned: no age moves)
        assert polls[seen:] == [0] * len(polls[seen:])
        assert touches.calls == []


async def test_a_changed_thread_updates_its_own_row_only(
    tree: Path, utc: None, touches: Touches
) -> None:
    async with settled_app(tree, touches) as (app, pilot, _):
        path = next(tree.rglob("*896e*.jsonl"))
        thread = "01a22cff-896e-72e3-9e88-aa3318667467"
        before = app.sessions.threads[thread].bad_lines
        with path.open("a") as out:
            out.write("{not json\n")
        await pilot_wait_until(
            pilot, lambda: app.sessions.threads[thread].bad_lines == before + 1, timeout=30
        )
        await pilot.pause(0.2)
    rows = {row for name, row in touches.calls if name == "update_cell"}
    assert rows == {thread}
    assert not [call for call in touches.calls if call[0] in ("add_row", "remove_row", "clear")]


@pytest.mark.parametrize("ascii_only", [False, True])
def test_the_live_glyph_is_not_the_ready_glyph(ascii_only: bool) -> None:
    use_ascii(ascii_only)
    try:
        assert live_glyph() not in (glyphs().ready, glyphs().starting, glyphs().unavailable)
        assert live_glyph() == ("@" if ascii_only else "◉")
    finally:
        use_ascii(False)


def test_a_thread_whose_state_is_unknown_says_so_in_its_row() -> None:
    unknown = ThreadSummary("01a22cff-865d-7af0-9cfb-fce462bf2aaa", "/s/f.jsonl")
    unknown.environments_known = False
    values = session_values(unknown, PINNED)
    assert (values["environments"], values["thread"]) == ("? unknown", "…62bf2aaa")
    assert "environments unknown" in details_text(unknown)
    known = ThreadSummary("01a22cff-865d-7af0-9cfb-fce462bf2aaa", "/s/f.jsonl")
    assert session_values(known, PINNED)["environments"] == "0/0"
    assert known.as_json()["unavailable"] == []
    assert unknown.as_json()["unavailable"] is None


@pytest.mark.parametrize("ascii_only", [False, True])
def test_the_environments_cell_says_ready_of_all_the_primary_and_the_unavailable(
    ascii_only: bool,
) -> None:
    """Ready of all, the primary, then each unavailable environment by id (the first
    three; the rest counted), as the latest step recorded them."""
    summary = ThreadSummary("01a22cff-865d-7af0-9cfb-fce462bf2aaa", "/s/f.jsonl")
    statuses = ["ready", "unavailable", "starting", "unavailable", "unavailable", "unavailable"]
    for n, status in enumerate(statuses):
        summary.environments[f"env{n}"] = EnvironmentState("exec", status, primary=n == 2)
    use_ascii(ascii_only)
    try:
        cell = session_values(summary, PINNED)["environments"]
        mark, down = glyphs().primary, glyphs().unavailable
    finally:
        use_ascii(False)
    assert cell == f"1/6 {mark} env2 {down} env1 {down} env3 {down} env4 +1"
    assert summary.as_json()["unavailable"] == ["env1", "env3", "env4", "env5"]
    summary.environments["env2"].primary = False
    summary.environments["env1"] = EnvironmentState("exec", "ready", primary=True)
    assert session_values(summary, PINNED)["environments"] == (
        f"2/6 {glyphs().primary} env1 {glyphs().unavailable} env3 "
        f"{glyphs().unavailable} env4 {glyphs().unavailable} env5"
    )
