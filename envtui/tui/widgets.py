"""The dashboard's widgets. They only draw what the store holds; none of them does I/O.

Every value that came from outside goes in as ``rich.text.Text`` (or ``markup=False``), so
ids, paths and shells such as ``[/]`` are shown as typed and never parsed as markup.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.syntax import Syntax
from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.markup import escape
from textual.message import Message
from textual.reactive import var
from textual.widget import Widget
from textual.widgets import DataTable, Static

from envtui.dashboard.store import EnvironmentRow, StepRow
from envtui.tui.format import (
    SORTABLE,
    STRIP_WORST,
    TIMED,
    UNICODE,
    clean,
    column_layout,
    glyphs,
    matches,
    row_values,
    sort_value,
    strip_statuses,
    timed_values,
)
from envtui.tui.upstream.table_caches import bound_caches
from envtui.vocabulary.safe_text import for_terminal, one_line

VIEWS = ("full", "diff", "snapshot", "patch")
FOCUS_MARK = f"{UNICODE.focus} "
"""Before the title of the panel that has the focus (``> `` in ASCII): the focus is seen
without colour."""


def titled(widget: Widget, title: str) -> str:
    """``title`` as ``widget`` shows it: marked while it has the focus."""
    return f"{glyphs().focus} {title}" if widget.has_focus else title


def mark_focus(widget: Widget) -> None:
    """Mark ``widget``'s title, or take the mark away, after the focus moved to or from it."""
    title = widget.border_title
    if title:
        shown = titled(widget, title.removeprefix(f"{glyphs().focus} "))
        if shown != title:
            widget.border_title = shown


class IdCell(Text):
    """The id column's cell; it also carries its row's key, so rows sort by the store's values
    (times, statuses) rather than by the text shown."""

    def __init__(self, text: str, row_key: str, **kwargs: Any) -> None:
        super().__init__(text, **kwargs)
        self.row_key = row_key


CACHED_CELLS = 2_000
CACHED_ROWS = 200


class KeyedTable(DataTable[Text]):
    """A table whose rows are keyed by the id of what each shows."""

    def selected_id(self) -> str | None:
        """The id of the row under the cursor; None when there is no row."""
        if not self.row_count:
            return None
        value = self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        return str(value) if value is not None else None


class EnvironmentTable(KeyedTable):
    """Environments, updated in place by key; the cursor stays on the same environment.

    ``filter``, ``sort_key`` and ``sort_reverse`` are reactive: whoever holds the rows (the
    main screen, from the store) watches them and calls :meth:`sync` with every row. Only
    the cells whose text changed are redrawn, and the rows are sorted again only when a
    row came, went or changed what it sorts by. The columns follow the table's width.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        # the box is the screen's, opened at once: keys typed after / in one burst go into it
        # (and never reach the needs-you keys), however soon they come
        Binding("slash", "screen.filter", "Filter", key_display="/", id="filter"),
        Binding("s", "sort", "Sort", id="sort"),
        Binding("S", "sort_reverse", "Reverse", show=False, id="sort_reverse"),
        Binding("enter", "details", "Details", id="details"),
        Binding("end", "screen.live", "Live", show=False, id="table_live"),
    ]

    filter: var[str] = var("", init=False, always_update=True)
    """Only rows with a column containing this (ignoring case) are shown; "" shows all.
    Every assignment re-filters, the same value too, so clearing also brings rows up to date."""

    sort_key: var[str] = var("selection", init=False)
    """The column the rows are sorted by; "selection" is the order they were selected in."""

    sort_reverse: var[bool] = var(False, init=False)
    """Sort descending instead."""

    class Details(Message):
        """The person asked for the details of the environment ``env_id``."""

        def __init__(self, env_id: str | None) -> None:
            super().__init__()
            self.env_id = env_id

    class Relayout(Message):
        """The table's width changed: whoever holds the rows syncs them again."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)  # type: ignore[arg-type]
        self.styles_for: dict[str, str] = {}
        self.latest_at: datetime | None = None
        """The newest event's time: a finished replay's strips end there, not now."""
        self._layout: tuple[tuple[str, str, int], ...] = ()
        self._shown: dict[str, dict[str, str]] = {}  # the text of every cell on screen
        self._order: dict[str, Any] = {}  # what each row sorts by
        self._keys: frozenset[str] = frozenset()  # the columns laid out
        self._error_room = (0, 0)  # (for this width, the longest error seen)
        self._to_select: str | None = None  # the row to select once rows come (laid out)
        self._laid_out_width = 0  # the width of the last Relayout
        self._recorded: int | None = None  # the step the rows were recorded at (a rollout)
        self.context_step: int | None = None
        """The past step the context shows (None: the latest), said in the title."""
        bound_caches(self, cells=CACHED_CELLS, rows=CACHED_ROWS)  # see table_caches

    def action_sort(self) -> None:
        self.sort_key = SORTABLE[(SORTABLE.index(self.sort_key) + 1) % len(SORTABLE)]

    def action_sort_reverse(self) -> None:
        self.sort_reverse = not self.sort_reverse

    def action_details(self) -> None:
        self.post_message(self.Details(self.selected_id()))

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        """A click on the row under the cursor asks for its details too."""
        event.stop()
        self.action_details()

    def select(self, env_id: str | None) -> None:
        """Put the cursor on ``env_id``'s row, if it is shown; before the table is laid out
        (and takes its rows), on that row once they come."""
        if env_id is not None and env_id in self._shown:
            self.move_cursor(row=self.get_row_index(env_id), scroll=False)
        elif not self.size.width:
            self._to_select = env_id

    def _cell(self, env_id: str, key: str, values: dict[str, str]) -> Text:
        style = ""
        if key == "status":
            style = self.styles_for.get(values["status"].split(" ", 1)[-1], "")
        elif key == "primary":
            style = self.styles_for.get("primary", "")
        options: dict[str, Any] = {"style": style, "no_wrap": True, "overflow": "ellipsis"}
        if key == "id":
            return IdCell(values[key], env_id, **options)
        if key == "strip":  # each cell in its worst status's colour; the glyphs read without it
            text = Text(no_wrap=True, overflow="crop")
            for char, status in zip(values[key], strip_statuses(values[STRIP_WORST]), strict=True):
                text.append(char, style=self.styles_for.get(status, ""))
            return text
        return Text(values[key], **options)

    def _fit_columns(self, rows: list[EnvironmentRow]) -> bool:
        """Lay the columns out for the current width; True when they changed (rows re-added)."""
        # less the border and room for a scrollbar, so rows that outgrow the height never
        # make the columns wider than the table
        width = self.size.width - 4
        longest = {
            key: max((cell_len(clean(getattr(row, key))) for row in rows), default=0)
            for key in ("id", "kind", "shell", "cwd", "error")
        }
        # the room for errors only grows while the width holds: errors come and go at
        # every retry, and each new layout adds every row again
        if width != self._error_room[0]:
            self._error_room = (width, 0)
        self._error_room = (width, max(self._error_room[1], longest["error"]))
        longest["error"] = self._error_room[1]
        layout = column_layout(width, longest)
        if layout == self._layout:
            return False
        self.clear(columns=True)
        for key, label, column_width in layout:
            self.add_column(label, key=key, width=column_width)
        self._layout, self._shown = layout, {}
        self._keys = frozenset(key for key, _, _ in layout)
        return True

    def sync(
        self,
        rows: Iterable[EnvironmentRow],
        changed: set[str] | None,
        removed: set[str],
        now: datetime,
    ) -> None:
        """Apply the store: ``changed`` None means every row (after a filter or theme change).

        Before its first layout the table's width, and so its columns, are not known: it
        takes no rows then (each would be added again, a thousand rows measured twice, once
        the width is known), and the :class:`Relayout` of that layout brings every row.
        """
        if not self.size.width:
            return
        rows = list(rows)
        selected, self._to_select = self.selected_id() or self._to_select, None
        if self._fit_columns(rows):
            changed = None
        resort = changed is None
        wanted: set[str] = set()
        for row in rows:
            if changed is not None and row.id not in changed and row.id in self._shown:
                wanted.add(row.id)
                continue
            values = row_values(row, now, self.latest_at, self._keys)
            if self.filter and not matches(values, self.filter):
                continue
            wanted.add(row.id)
            order = sort_value(row, self.sort_key, values)
            resort |= self._order.get(row.id) != order
            self._order[row.id] = order
            self._show(row.id, values)
        for gone in (set(self._shown) - wanted) | (removed & set(self._shown)):
            self.remove_row(gone)
            del self._shown[gone]
            self._order.pop(gone, None)
        if resort:
            self.sort(
                "id", key=lambda cell: self._order.get(cell.row_key), reverse=self.sort_reverse
            )
        self.select(selected)
        self._retitle(rows)

    def _retitle(self, rows: list[EnvironmentRow]) -> None:
        """The border's title (recorded or live, the filter) and subtitle (the sort)."""
        self._recorded = max(
            (r.recorded_step for r in rows if r.recorded_step is not None), default=None
        )
        self.show_title()

    def show_title(self) -> None:
        """The title: the step the rows are of when it is not the context's (the context
        shows a past step: the rows are live, or as recorded), the filter, the focus."""
        title = "environments"
        if self._recorded is not None:
            title += f" · as recorded at step {self._recorded}, not live"
            if self.context_step is not None and self.context_step != self._recorded:
                title += f" (context: step {self.context_step})"
        elif self.context_step is not None:
            title += f" · live (context: step {self.context_step})"
        # titles are markup: the typed filter is escaped for it
        if self.filter:
            title += f"  filter: {escape(one_line(self.filter))}"
        self.border_title = titled(self, title)
        self.border_subtitle = f"sort: {self.sort_key}" + (
            " (reversed)" if self.sort_reverse else ""
        )

    def _show(self, env_id: str, values: dict[str, str]) -> None:
        """Add the row, or redraw just the cells whose text changed."""
        shown = self._shown.get(env_id)
        if shown is None:
            self.add_row(
                *(self._cell(env_id, key, values) for key, _, _ in self._layout), key=env_id
            )
        else:
            for key, _, _ in self._layout:
                if _differs(shown, values, key):
                    self.update_cell(env_id, key, self._cell(env_id, key, values))
        self._shown[env_id] = values

    def restyle(self) -> None:
        """The theme changed: every cell again, in the new colours."""
        self._shown = {key: {} for key in self._shown}

    def refresh_times(self, rows: Iterable[EnvironmentRow], now: datetime) -> None:
        """Time moves on: redraw the timed cells (relative times, strips, availability,
        flaps) whose text is now different."""
        keys = self._keys & TIMED
        if not keys:
            return
        for row in rows:
            shown = self._shown.get(row.id)
            if shown is not None:
                values = timed_values(row, now, self.latest_at, keys)
                for key in keys:
                    if _differs(shown, values, key):
                        shown[key] = values[key]
                        if key == "strip":
                            shown[STRIP_WORST] = values[STRIP_WORST]
                        self.update_cell(row.id, key, self._cell(row.id, key, shown))

    def on_resize(self) -> None:
        # its height follows its rows (a thousand rows that come make it taller): only a new
        # width lays the columns out again, and syncing every row for nothing costs a frame
        if self.size.width != self._laid_out_width:
            self._laid_out_width = self.size.width
            self.post_message(self.Relayout())


def _differs(shown: dict[str, str], values: dict[str, str], key: str) -> bool:
    """Whether the cell ``key`` must be drawn again: its text changed (or, for the strip,
    the colours of its cells)."""
    if shown.get(key) != values[key]:
        return True
    return key == "strip" and shown.get(STRIP_WORST) != values[STRIP_WORST]


class ContextPanel(VerticalScroll):
    """The selected step's context: full, diff, snapshot or patch.

    A new step whose text is the one already shown (a step with no context change) only
    renames the border: the highlighted text is not built and laid out again.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "cycle_view", "Diff/full", id="view"),
    ]

    view: var[str] = var("full", init=False)
    """Which of :data:`VIEWS` is shown; reactive, so whoever holds the step (the main screen)
    watches it and calls :meth:`show` again."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.text = ""
        self._shown: tuple[str, str | None] | None = None  # (view, text) in the body
        self._text_widget = Static("", id="context-body", markup=False)
        """Held, not queried: a step may be shown while the panel is still being mounted (a
        layout swap on a loaded machine), before its child could be found."""

    def compose(self):  # type: ignore[no-untyped-def]
        yield self._text_widget

    def action_cycle_view(self) -> None:
        self.view = VIEWS[(VIEWS.index(self.view) + 1) % len(VIEWS)]

    def show(self, step: StepRow | None) -> None:
        if step is None:
            self._titles(f"context · {self.view}", "")
            self._body(None, Text("no step yet"))
            return
        self._titles(
            f"context · step {step.number} · {self.view}", "d: full/diff/snapshot/patch  [ ]: steps"
        )
        if self.view in ("full", "diff"):
            value = step.text if self.view == "full" else step.diff
            if value is None:
                self._body(None, Text(_no_block(step)))
            else:
                self._body(value, "xml")
        else:
            data = step.snapshot if self.view == "snapshot" else step.patch
            text = json.dumps(data, indent=2, ensure_ascii=False) if data is not None else "null"
            self._body(text, "json")

    def _titles(self, title: str, subtitle: str) -> None:
        """Set the border's titles; an unchanged one is not set (that would repaint)."""
        title = titled(self, title)
        if self.border_title != title:
            self.border_title = title
        if self.border_subtitle != subtitle:
            self.border_subtitle = subtitle

    def _body(self, text: str | None, shown: Text | str) -> None:
        """Show ``text`` highlighted as ``shown`` (a lexer), or ``shown`` itself when it is
        Text; nothing is redrawn when the same view of the same text is already there."""
        key = (self.view if text is not None else str(shown), text)
        self.text = text or ""
        if key == self._shown:
            return
        self._shown = key
        renderable = (
            Syntax(for_terminal(text), shown, word_wrap=True, theme="ansi_dark")
            if text is not None and isinstance(shown, str)
            else shown
        )
        self._text_widget.update(renderable)


def _no_block(step: StepRow) -> str:
    """Why a step shows no block: the context switch is off (there is no section at all),
    the full state is not known (a block was sent against a snapshot nobody recorded), or
    nothing changed, so nothing was sent."""
    if step.snapshot is None and step.text is None and step.diff is None:
        return "context disabled: no environments section at this step"
    if step.text is None and step.diff is not None:
        return "the full context is not known at this step (no snapshot was recorded)"
    return "no context sent at this step (nothing changed)"


class ToolsPanel(Static, can_focus=True):
    """The step's tools and their environment parameter; redrawn only when they change.
    It takes the focus (its digit, Tab) so that going to it is seen."""

    _shown: object = None

    def on_mount(self) -> None:
        self.border_title = titled(self, "tools")

    def show(self, step: StepRow | None) -> None:
        tools = None if step is None else step.tools
        if tools == self._shown and self._shown is not None:
            return
        self._shown = tools
        if tools is None:
            self.update(Text("no tool list for this step"))
            return
        lines = Text()
        for name, parameter in tools:
            marker = {
                "optional": "environment_id?",
                "required": "environment_id",
                "unknown": "environment_id: cannot tell",
            }.get(parameter, "")
            lines.append(f"{one_line(name):<22} {marker}\n")
        self.update(lines)
