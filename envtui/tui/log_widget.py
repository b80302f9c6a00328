"""The event log widget: folded lines, a filter and a search, and it follows the newest.

It reads the store's log entries (it does no I/O) and shows them through a
:class:`~envtui.dashboard.log_fold.FoldedLog`: repeated lines, lines that take turns and a
window of steps are each one line with its count first, rewritten as the count grows.
While it is focused, ``f`` filters (``env:ghost type:status words``), ``/`` searches
(``n`` older, ``N`` newer match) and ``esc`` clears both. Following is its own state, as
before: it follows unless scrolled up, counts the lines that arrive below, and ``end`` or
``G`` follows again and, as anywhere on the dashboard, goes live (:class:`EventLog.GoLive`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar, Self

from rich.cells import cell_len
from rich.style import Style
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.markup import escape
from textual.message import Message
from textual.reactive import Reactive
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.widgets import Input, Log

from envtui.dashboard.log_fold import FoldedLog, LogFilter
from envtui.dashboard.log_lines import LogEntry
from envtui.tui.format import ASCII, glyphs
from envtui.tui.widgets import titled
from envtui.vocabulary.safe_text import one_line

MARKED = Style(reverse=True)
"""The match shown by a search: reversed, so it reads in any theme and without colour."""
OWN_GLYPHS = "\N{RIGHTWARDS ARROW}\N{MULTIPLICATION SIGN}\N{EN DASH}\N{MIDDLE DOT}"
"""What envtui itself writes into a log line besides printable ASCII (a status's arrow, a
fold's count and run of steps, a cycle's partner): each one cell wide."""


def line_cells(line: str) -> int:
    """How many cells ``line`` takes in the log, as Textual's Log measures it; a line of
    printable ASCII and envtui's own glyphs (nearly every one) without looking the width
    of each character up."""
    rest = line
    if not rest.isascii():
        for glyph in OWN_GLYPHS:
            rest = rest.replace(glyph, "")
    if rest.isascii() and rest.isprintable():
        return len(line)
    return cell_len(Log._process_line(line))


class QueryScreen(ModalScreen[str | None]):
    """One line of input over the dashboard: ``enter`` gives it, ``esc`` gives None."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", show=False)]
    DEFAULT_CSS = """
    QueryScreen { align: center bottom; }
    QueryScreen > Input { width: 80%; margin-bottom: 3; }
    """

    def __init__(self, placeholder: str, value: str) -> None:
        super().__init__()
        self._placeholder, self._value = placeholder, value

    def compose(self) -> ComposeResult:
        yield Input(self._value, placeholder=self._placeholder, id="query")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class EventLog(Log):
    """The event stream, newest at the bottom, folded, filtered, bounded."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("end,G", "follow", "Live", key_display="G", id="follow_log"),
        Binding("slash", "search", "Search log", key_display="/", id="log_search"),
        Binding("f", "filter", "Filter log", id="log_filter"),
        Binding("n", "match(-1)", "Older match", show=False, id="log_older_match"),
        Binding("N", "match(1)", "Newer match", show=False, id="log_newer_match"),
        Binding("escape", "clear", "Clear log filter", show=False, id="log_clear"),
    ]
    DEFAULT_CSS = "EventLog { overflow-x: scroll; overflow-y: scroll; }"

    virtual_size: Reactive[Size] = Reactive(Size(0, 0))
    """As Textual's, but a new line does not lay the whole screen out again: the scrollbars
    are always shown, so growing only moves their thumbs (see :meth:`watch_virtual_size`)."""

    def watch_virtual_size(self, size: Size) -> None:
        self._scroll_update(size)  # the scrollbars' thumbs, as a layout would set them
        self.refresh()

    def _update_size(self, updates: int, lines: list[str]) -> None:  # type: ignore[override]
        """The widest of the new lines, measured at once (:func:`line_cells`). Log measures
        each line a character at a time in a worker thread: 5 us a line with an arrow in
        it, more than folding the line costs."""
        if lines:
            self._update_maximum_width(updates, max(map(line_cells, lines)))

    def __init__(self, max_lines: int, entries: Iterable[LogEntry] = (), **kwargs: object) -> None:
        super().__init__(max_lines=max_lines, auto_scroll=False, **kwargs)  # type: ignore[arg-type]
        self.entries = entries
        """The store's log: what a new filter is applied to."""
        self.folded = FoldedLog(max_lines, ascii=glyphs() == ASCII)
        self.following = True
        self.unseen = 0  # lines that arrived below while not following
        self.seen = 0  # entries handed to the log, shown or filtered out
        self.search_text = ""
        self._matches: list[int] = []
        self._match = -1
        self._marked: int | None = None  # the line of the match shown, drawn reversed
        self._show_state()

    # --- writing ----------------------------------------------------------------------------

    def write_entries(self, entries: Iterable[LogEntry]) -> Self:
        """Fold new entries in: lines whose fold grew are rewritten, new ones appended."""
        entries = list(entries)
        self.seen += len(entries)
        before = len(self.folded.folds)
        kept, lines = self.folded.add(entries)
        if kept < len(self._lines):
            # Log has no "replace lines": its list and render cache are cut as its own
            # pruning does, and the lines written again
            del self._lines[kept:]
            self._render_line_cache.clear()
            self.refresh()
        shown = len(self._lines) + len(lines)
        self._append(lines, new=max(0, len(self.folded.folds) - before))
        if self._marked is not None:  # the match shown moves up as lines leave the top
            pruned = shown - len(self._lines)
            moved = self._marked >= kept or self._marked < pruned
            self._marked = None if moved else self._marked - pruned
        return self

    def show_all(self) -> None:
        """Every entry of the store again, through the filter (it changed, or a redraw)."""
        entries = list(self.entries)
        self.seen = len(entries)
        lines = self.folded.rebuild(entries)
        self.clear()
        super().write_lines(lines, scroll_end=False)
        self.unseen = 0
        self._search()
        if self.following:
            self.scroll_end(animate=False, immediate=True, x_axis=False)
        self._show_state()

    def _append(self, lines: list[str], new: int) -> None:
        """Write ``lines`` below; ``new`` of them are lines that were not shown before."""
        before = self.line_count
        super().write_lines(lines, scroll_end=False)
        if self.following:
            self.scroll_end(animate=False, immediate=True, x_axis=False)
        elif lines:
            pruned = max(0, before + len(lines) - self.line_count)
            if pruned:  # keep the lines being read in view while older ones are dropped
                self.scroll_to(y=max(0, self.scroll_y - pruned), animate=False, immediate=True)
            self.unseen += new
            self._show_state()

    # --- following --------------------------------------------------------------------------

    def follow(self) -> None:
        """Show the newest line and keep following."""
        self.following = True
        self.unseen = 0
        self.scroll_end(animate=False, immediate=True, x_axis=False)
        self._show_state()

    def action_follow(self) -> None:
        """``G`` (or ``end``) here, as anywhere: follow the newest line, and go live."""
        self.follow()
        self.post_message(self.GoLive())

    class GoLive(Message):
        """The person asked for live: the latest step (the log follows already)."""

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        at_end = new_value >= self.max_scroll_y
        if at_end != self.following:
            self.following = at_end
            if at_end:
                self.unseen = 0
            self._show_state()

    def on_resize(self) -> None:
        if self.following:
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    # --- filter and search ------------------------------------------------------------------

    def set_filter(self, text: str) -> None:
        self.folded.filter = LogFilter.parse(text)
        self.show_all()

    def action_filter(self) -> None:
        current = self.folded.filter.text
        placeholder = "filter the log: env:ID type:status|connection|step|finding|warning words"
        self.app.push_screen(QueryScreen(placeholder, current), self._filter_given)

    def _filter_given(self, text: str | None) -> None:
        if text is not None:
            self.set_filter(text)

    def action_search(self) -> None:
        self.app.push_screen(QueryScreen("search the log", self.search_text), self._search_given)

    def _search_given(self, text: str | None) -> None:
        if text is not None:
            self.search_text = text.strip()
            self._search()
            if self._matches:
                self._go_to(len(self._matches) - 1)

    def _search(self) -> None:
        self._matches = self.folded.search(self.search_text) if self.search_text else []
        self._match = -1
        self._mark(None)
        self._show_state()

    def _mark(self, line: int | None) -> None:
        """Draw ``line`` reversed (the match shown), and the one marked before plainly."""
        for old in (self._marked, line):
            if old is not None and old < len(self._lines):
                self.refresh_lines(old)
        self._marked = line

    def _render_line_strip(self, y: int, rich_style: Style) -> Strip:
        strip = super()._render_line_strip(y, rich_style)
        return strip.apply_style(MARKED) if y == self._marked else strip

    def action_match(self, step: int) -> None:
        self._search()  # lines came or went since the search: look again
        if self._matches:
            self._go_to(max(0, min(len(self._matches) - 1, self._match_near() + step)))

    def _match_near(self) -> int:
        """The match at the middle of the view (or the nearest above it)."""
        middle = self.scroll_y + self.size.height // 2
        above = [i for i, line in enumerate(self._matches) if line <= middle]
        return above[-1] if above else -1

    def _go_to(self, match: int) -> None:
        self._match = match
        line = self._matches[match]
        self._mark(line)
        self.following = False
        self.scroll_to(y=max(0, line - self.size.height // 2), animate=False, immediate=True)
        self.following = self.scroll_y >= self.max_scroll_y and line >= self.line_count - 1
        self._show_state()

    async def action_clear(self) -> None:
        """``esc``: no filter, no search; the screen's own ``esc`` when there is neither."""
        if not self.folded.filter and not self.search_text:
            await self.run_action("screen.clear_filter")
            return
        self.search_text = ""
        self.set_filter("")

    def _show_state(self) -> None:
        """The border says what is shown: the filter, the search, lines waiting below."""
        title = "events"
        if self.folded.filter:
            title += f" · filter: {escape(one_line(self.folded.filter.text))}"
        self.border_title = titled(self, title)
        parts = []
        if self.search_text:
            where = f"{self._match + 1}/{len(self._matches)}" if self._match >= 0 else "-"
            found = f"{where} · n/N" if self._matches else "no match"
            parts.append(f"search {escape(one_line(self.search_text))}: {found}")
        if not self.following:
            parts.append(f"{glyphs().below} {self.unseen} new below · end: follow")
        self.border_subtitle = "  ·  ".join(parts)
