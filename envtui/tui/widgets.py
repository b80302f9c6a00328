"""The dashboard's widgets. They only draw what the store holds; none of them does I/O.

Every value that came from outside goes in as ``rich.text.Text`` (or ``markup=False``), so
ids, paths and shells such as ``[/]`` are shown as typed and never parsed as markup.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime

from rich.syntax import Syntax
from rich.text import Text
from textual.containers import VerticalScroll
from textual.markup import escape
from textual.reactive import var
from textual.widgets import DataTable, Log, OptionList, Static
from textual.widgets.option_list import Option

from envtui.events import FindingReported
from envtui.safe_text import for_terminal, one_line
from envtui.store import EnvironmentRow, StepRow
from envtui.tui.format import COLUMNS, clean, matches, row_values

VIEWS = ("full", "diff", "snapshot", "patch")


class EnvironmentTable(DataTable[Text]):
    """Environments, updated in place by key; the cursor stays on the same environment.

    ``filter``, ``sort_key`` and ``sort_reverse`` are reactive: whoever holds the rows (the
    main screen, from the store) watches them and calls :meth:`sync` with every row.
    """

    filter: var[str] = var("", init=False, always_update=True)
    """Only rows with a column containing this (ignoring case) are shown; "" shows all.
    Every assignment re-filters, the same value too, so clearing also brings rows up to date."""

    sort_key: var[str] = var("selection", init=False)
    """The column the rows are sorted by; "selection" is the order they were selected in."""

    sort_reverse: var[bool] = var(False, init=False)
    """Sort descending instead."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)  # type: ignore[arg-type]
        self.styles_for: dict[str, str] = {}

    def on_mount(self) -> None:
        for key, label, width in COLUMNS:
            self.add_column(label, key=key, width=width)

    def selected_id(self) -> str | None:
        if not self.row_count:
            return None
        value = self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        return str(value) if value is not None else None

    def _cells(self, values: dict[str, str]) -> list[Text]:
        status_style = self.styles_for.get(values["status"].split(" ", 1)[-1], "")
        cells = []
        for key, _, _ in COLUMNS:
            style = (
                status_style
                if key == "status"
                else (self.styles_for.get("primary", "") if key == "primary" else "")
            )
            cells.append(Text(values[key], style=style, no_wrap=True, overflow="ellipsis"))
        return cells

    def sync(
        self,
        rows: Iterable[EnvironmentRow],
        changed: set[str] | None,
        removed: set[str],
        now: datetime,
    ) -> None:
        """Apply the store: ``changed`` None means every row (after a filter or theme change)."""
        selected = self.selected_id()
        rows = list(rows)
        wanted: dict[str, dict[str, str]] = {}
        for row in rows:
            values = row_values(row, now)
            if not self.filter or matches(values, self.filter):
                wanted[row.id] = values
        present = {str(key.value) for key in self.rows}
        for gone in (present - wanted.keys()) | (removed & present):
            self.remove_row(gone)
            present.discard(gone)
        for env_id, values in wanted.items():
            cells = self._cells(values)
            if env_id not in present:
                self.add_row(*cells, key=env_id)
            elif changed is None or env_id in changed:
                for (column, _, _), cell in zip(COLUMNS, cells, strict=True):
                    self.update_cell(env_id, column, cell)
        self._apply_sort({clean(row.id): row.order for row in rows})
        if selected is not None and selected in wanted:
            self.move_cursor(row=self.get_row_index(selected), scroll=False)
        self.border_title = (  # titles are markup: the typed filter is escaped for it
            f"environments  filter: {escape(one_line(self.filter))}"
            if self.filter
            else "environments"
        )
        sort = self.sort_key + (" (reversed)" if self.sort_reverse else "")
        self.border_subtitle = f"sort: {sort}"

    def refresh_times(self, rows: Iterable[EnvironmentRow], now: datetime) -> None:
        present = {str(key.value) for key in self.rows}
        for row in rows:
            if row.id in present:
                self.update_cell(
                    row.id, "changed", Text(row_values(row, now)["changed"], no_wrap=True)
                )

    def _apply_sort(self, order: dict[str, int]) -> None:
        if not self.row_count:
            return
        if self.sort_key == "selection":
            self.sort("id", key=lambda cell: order.get(cell.plain, 0), reverse=self.sort_reverse)
        else:
            self.sort(self.sort_key, key=lambda cell: cell.plain, reverse=self.sort_reverse)


class EventLog(Log):
    """The event stream, newest at the bottom, written in batches; bounded."""

    def __init__(self, max_lines: int, **kwargs: object) -> None:
        super().__init__(max_lines=max_lines, **kwargs)  # type: ignore[arg-type]
        self.border_title = "events"


class ContextPanel(VerticalScroll):
    """The selected step's context: full, diff, snapshot or patch."""

    view: var[str] = var("full", init=False)
    """Which of :data:`VIEWS` is shown; reactive, so whoever holds the step (the main screen)
    watches it and calls :meth:`show` again."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.text = ""

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static("", id="context-body", markup=False)

    def show(self, step: StepRow | None) -> None:
        body = self.query_one("#context-body", Static)
        if step is None:
            self.text = ""
            self.border_title = f"context · {self.view}"
            body.update(Text("no step yet"))
            return
        self.border_title = f"context · step {step.number} · {self.view}"
        self.border_subtitle = "d: full/diff/snapshot/patch  [ ]: steps"
        if self.view in ("full", "diff"):
            value = step.text if self.view == "full" else step.diff
            self.text = value if value is not None else ""
            shown = for_terminal(self.text) if value is not None else ""
            renderable = (
                Syntax(shown, "xml", word_wrap=True, theme="ansi_dark")
                if value is not None
                else Text(
                    "no context sent at this step" if self.view == "diff" else "context disabled"
                )
            )
            body.update(renderable)
        else:
            data = step.snapshot if self.view == "snapshot" else step.patch
            self.text = (
                json.dumps(data, indent=2, ensure_ascii=False) if data is not None else "null"
            )
            body.update(Syntax(for_terminal(self.text), "json", word_wrap=True, theme="ansi_dark"))


class ToolsPanel(Static):
    def show(self, step: StepRow | None) -> None:
        self.border_title = "tools"
        if step is None or step.tools is None:
            self.update(Text("no tool list for this step"))
            return
        lines = Text()
        for name, parameter in step.tools:
            marker = {
                "optional": "environment_id?",
                "required": "environment_id",
                "unknown": "environment_id: cannot tell",
            }.get(parameter, "")
            lines.append(f"{one_line(name):<22} {marker}\n")
        self.update(lines)


class FindingsList(OptionList):
    """Findings grouped by code and environment, newest first; ``enter`` explains one."""

    def show(self, groups: list[tuple[FindingReported, int]], total: int) -> None:
        self.border_title = f"findings ({total})"
        highlighted = self.highlighted
        self.clear_options()
        options = []
        for index, (finding, count) in enumerate(groups):
            where = f"step {finding.step}" if finding.step is not None else "thread"
            times = f"  x{count}" if count > 1 else ""
            who = one_line(finding.environment_id or "-")
            label = f"{where}  {one_line(finding.code)}  {who}{times}"
            options.append(Option(Text(label, no_wrap=True), id=str(index)))
        self.add_options(options)
        if groups:
            self.highlighted = min(highlighted or 0, len(groups) - 1)
