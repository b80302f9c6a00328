"""Modal screens: the key list, and details of an environment or a finding."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.markup import escape
from textual.screen import ModalScreen
from textual.widgets import Static

from envtui.safe_text import for_terminal, one_line


class TextScreen(ModalScreen[None]):
    """A scrollable text shown over the dashboard; ``esc`` or ``q`` closes it."""

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

    def __init__(self, title: str, body: str) -> None:
        super().__init__()
        self.title_text = title
        self.body = body

    def compose(self) -> ComposeResult:
        scroll = VerticalScroll()
        scroll.border_title = escape(one_line(self.title_text))  # titles are markup
        with scroll:
            yield Static(Text(for_terminal(self.body)), markup=False, id="text-body")

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
