"""The footer: the keys that matter, as many as the width holds, in the order of the keys.

Textual's footer lists every shown binding and cuts the line where the terminal ends: at
80 columns ``q Quit`` and ``h History`` were never on screen. This bar drops the keys that
matter least first (:data:`PRIORITY`, by binding id, so a keymap that moves a key moves it
here too), keeps ``?`` first (it says ``All keys`` once any is left out), then the focused
panel's keys, then the screen's, among them the digits that go to each panel (at 80
columns they say how to reach the tabs), and the command palette's key at the right. A
click on a key presses it, as in Textual's footer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.widget import Widget

PRIORITY: dict[str, int] = {
    "help": 100,
    "quit": 90,
    "panel_table": 85,
    "history": 80,
    "log_search": 75,
    "filter": 70,
    "log_filter": 70,
    "pause": 65,
    "acknowledge": 60,
    "live": 55,
    "follow_log": 55,
    "sort": 45,
    "view": 40,
    "previous_step": 35,
    "next_step": 35,
    "copy": 30,
    "export": 25,
    "theme": 20,
    "approve_once": 88,
    "decline": 87,
    "reply": 86,
    "approve_session": 50,
    "next_request": 50,
}
"""Which keys stay longest as the bar narrows (a binding not named here leaves first); a
screen may rank its own keys higher with a ``KEY_PRIORITY`` of the same shape (the sessions
table's thread screen keeps ``esc back``)."""
PAIRED = {"previous_step": "steps", "next_step": "steps"}
"""Keys that leave the bar together: one of the two alone would read as the only way."""
GAP = 2
"""Spaces between two keys."""
HELP_WHEN_CUT = "All keys"


@dataclass(frozen=True)
class KeyItem:
    """One key on the bar: what is pressed, how it is shown, what it does."""

    key: str
    shown: str
    description: str
    priority: int
    pair: str = ""
    """Items of one pair leave together (see :data:`PAIRED`)."""

    @property
    def width(self) -> int:
        return cell_len(self.shown) + 1 + cell_len(self.description)


def fit_keys(items: list[KeyItem], width: int) -> list[KeyItem]:
    """``items`` in their order, as many as fit ``width`` cells: taken by priority (the
    earlier of equals first, a pair as one), each that fits in what is left; the help key
    says there is more once any is left out."""

    def total(chosen: list[KeyItem]) -> int:
        return sum(item.width for item in chosen) + GAP * max(0, len(chosen) - 1)

    units: list[list[KeyItem]] = []
    for item in items:
        paired = next((u for u in units if item.pair and u[0].pair == item.pair), None)
        if paired is not None:
            paired.append(item)
        else:
            units.append([item])
    chosen: set[int] = set()
    for unit in sorted(units, key=lambda u: -u[0].priority):  # stable: earlier first
        wanted = [i for i in items if id(i) in chosen or any(i is u for u in unit)]
        if total(_marked(wanted, len(wanted) < len(items))) <= width or not chosen:
            chosen.update(id(i) for i in unit)
    kept = [item for item in items if id(item) in chosen]
    return _marked(kept, len(kept) < len(items))


def _marked(kept: list[KeyItem], cut: bool) -> list[KeyItem]:
    if not cut:
        return kept
    return [
        KeyItem(i.key, i.shown, HELP_WHEN_CUT, i.priority, i.pair) if i.priority >= 100 else i
        for i in kept
    ]


class KeyBar(Widget):
    """The dashboard's footer (see the module); it draws from the screen's active keys."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"keybar--key", "keybar--description"}
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom; height: 1; padding: 0 1;
        background: $footer-background; color: $footer-foreground;
    }
    KeyBar > .keybar--key {
        color: $footer-key-foreground; background: $footer-key-background; text-style: bold;
    }
    KeyBar > .keybar--description {
        color: $footer-description-foreground; background: $footer-description-background;
    }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.shown: list[KeyItem] = []
        """The keys on the bar now, left to right (the palette's last)."""
        self._places: list[tuple[int, int, str]] = []  # (start, end, key) of each, for clicks

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, lambda _screen: self.refresh())

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def items(self) -> tuple[list[KeyItem], KeyItem | None]:
        """The screen's shown keys, one per action, and the palette's key."""
        active = self.screen.active_bindings
        items: list[KeyItem] = []
        actions: set[str] = set()
        for _node, binding, enabled, _tooltip in active.values():
            if binding.show and enabled and binding.action not in actions:
                actions.add(binding.action)
                items.append(self._item(binding))
        items.sort(key=lambda item: item.priority < PRIORITY["help"])  # ? first, then in order
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        if palette is None or not self.app.ENABLE_COMMAND_PALETTE:
            return items, None
        return items, self._item(palette.binding)

    def _item(self, binding: Binding) -> KeyItem:
        ranks = {**PRIORITY, **getattr(self.screen, "KEY_PRIORITY", {})}
        rank = ranks.get(binding.id or "", 0)
        shown = self.app.get_key_display(binding)
        pair = PAIRED.get(binding.id or "", "")
        return KeyItem(binding.key, shown, binding.description, rank, pair)

    def render(self) -> Text:
        items, palette = self.items()
        room = self.content_size.width
        if palette is not None:
            room -= palette.width + GAP
        self.shown = fit_keys(items, max(0, room))
        key_style = self.get_component_rich_style("keybar--key")
        description_style = self.get_component_rich_style("keybar--description")
        line = Text(no_wrap=True, overflow="crop")
        self._places = []
        for index, item in enumerate(self.shown):
            if index:
                line.append(" " * GAP)
            self._add(line, item, key_style, description_style)
        if palette is not None:
            line.append(" " * max(GAP, room - line.cell_len + GAP))
            self._add(line, palette, key_style, description_style)
            self.shown = [*self.shown, palette]
        return line

    def _add(self, line: Text, item: KeyItem, key_style: Style, description_style: Style) -> None:
        start = line.cell_len
        line.append(item.shown, style=key_style)
        line.append(" " + item.description, style=description_style)
        self._places.append((start, line.cell_len, item.key))

    def on_click(self, event: events.Click) -> None:
        column = event.x - self.styles.padding.left
        for start, end, key in self._places:
            if start <= column < end:
                self.app.simulate_key(key)
                return

    def text(self) -> str:
        """The bar as plain text (what a test or a copy reads)."""
        return self.render().plain
