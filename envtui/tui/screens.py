"""Modal screens: the key list, and details of an environment or a finding."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.markup import escape
from textual.screen import ModalScreen
from textual.widgets import Static

from envtui.vocabulary.safe_text import for_terminal, one_line


class TextScreen(ModalScreen[None]):
    """A scrollable text shown over the dashboard; ``esc`` or ``q`` closes it.

    ``body`` may be a function: it is asked again every second and the text redrawn when it
    changed, so relative times ("in 5 s") and a live status stay true while it is open.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close", id="close"),
        Binding("q", "dismiss", "Close", show=False, id="close_q"),
    ]
    DEFAULT_CSS = """
    TextScreen { align: center middle; }
    TextScreen > VerticalScroll {
        width: 90%; height: 80%; border: round $primary; background: $panel; padding: 0 1;
    }
    """

    def __init__(self, title: str, body: str | Callable[[], str], fit: bool = False) -> None:
        """``fit``: as wide and as high as the text (up to 90 % of the screen), not a fixed
        share of it, for a short text such as the keys."""
        super().__init__()
        self.title_text = title
        self._source = body
        self.body = body() if callable(body) else body
        self.fit = fit

    def compose(self) -> ComposeResult:
        scroll = VerticalScroll()
        scroll.border_title = escape(one_line(self.title_text))  # titles are markup
        with scroll:
            yield Static(Text(for_terminal(self.body)), markup=False, id="text-body")

    def on_mount(self) -> None:
        self._fit()
        if callable(self._source):
            self.set_interval(1.0, self._redraw)

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        """As wide and as high as the text (with the border and padding), at most 90 % of
        the screen; a text that does not fit scrolls."""
        if not self.fit:
            return
        lines = self.body.splitlines() or [""]
        width = max(cell_len(line) for line in [*lines, self.title_text]) + 6
        scroll = self.query_one(VerticalScroll)
        scroll.styles.width = min(width, int(self.app.size.width * 0.9))
        scroll.styles.height = min(len(lines) + 2, int(self.app.size.height * 0.9))

    def _redraw(self) -> None:
        assert callable(self._source)
        body = self._source()
        if body != self.body:
            self.body = body
            self.query_one("#text-body", Static).update(Text(for_terminal(body)))

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
