"""envtui's entries in the command palette (``ctrl+p``), beside Textual's own.

Every action of the dashboard's keys is here, with the key it is on (the config's keymap
applied), so the palette also teaches the keys; and what no single key does: sort by a
named column, go to an environment by its id, switch to a named theme. A panel's key runs
on that panel, wherever the focus is. Labels are built as plain content, never as markup,
so an environment id from outside is shown as it is.

:class:`ThemesToKeep` is the theme picker ``t`` opens: a theme chosen there (or as a
palette entry) is the one kept for the next run, and the picker says so; a theme changed
any other way is for this run only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.dom import DOMNode
from textual.fuzzy import Matcher
from textual.theme import ThemeProvider

from envtui.tui.format import SORTABLE, clean
from envtui.tui.keymap import keys_in_force
from envtui.tui.main_screen import MainScreen

ACTIONS: tuple[tuple[str, str], ...] = (
    ("Pause or resume the view", "pause"),
    ("Context: next view (full, diff, snapshot, patch)", "view"),
    ("Previous step", "previous_step"),
    ("Next step", "next_step"),
    ("Back to live: the latest step", "live"),
    ("Details of the selected environment", "details"),
    ("Acknowledge the incident under the cursor", "acknowledge"),
    ("Hide or show the resolved incidents", "toggle_resolved"),
    ("Copy the context text", "copy"),
    ("Export the selected step", "export"),
    ("Filter environments", "filter"),
    ("Sort by the next column", "sort"),
    ("Reverse the sort", "sort_reverse"),
    ("Pick a theme (kept for the next run)", "theme"),
    ("Status history of every environment", "history"),
    ("Show the keys", "help"),
    ("Quit", "quit"),
)
"""(what it does, binding id) of each key's entry, in the order they are offered."""

Command = tuple[str, Callable[[], object]]


class EnvtuiCommands(Provider):
    """envtui's own actions in the command palette, next to Textual's system commands."""

    ACTIONS = ACTIONS

    def commands(self) -> Iterator[Command]:
        """Every entry: the keys' actions, then sorting, environments and themes."""
        screen = self.screen
        if not isinstance(screen, MainScreen):
            return  # a screen over the dashboard: its own keys only
        keymap: dict[str, str] = getattr(self.app, "keymap_in_force", {})
        w, actions = screen.widgets, screen.actions
        bindings: dict[str, tuple[Binding, DOMNode]] = {}
        owners: tuple[DOMNode, ...] = (screen, w.table, w.log, w.context, w.findings)
        for owner in owners:  # a panel's key runs on that panel
            for binding in owner.BINDINGS:
                if isinstance(binding, Binding) and binding.id:
                    bindings.setdefault(binding.id, (binding, owner))
        for text, binding_id in self.ACTIONS:
            if binding_id in bindings:
                binding, node = bindings[binding_id]
                keys = keys_in_force([binding], keymap)[0][0]
                yield f"envtui: {text} · key {keys}", self._run(binding.action, node)
        for column in SORTABLE:
            yield f"envtui: Sort by {column}", self._call(lambda c: actions.sort_by(w, c), column)
        for row in sorted(screen.store.environments.values(), key=lambda r: r.order):
            label = f"envtui: Go to environment {clean(row.id)}"
            yield label, self._call(lambda e: actions.go_to(w, e), row.id)
        for theme in sorted(self.app.available_themes):
            yield f"envtui: Theme {clean(theme)}", self._call(self._theme, theme)

    def _run(self, action: str, node: DOMNode) -> Callable[[], object]:
        return lambda: self.app.run_action(action, node)

    @staticmethod
    def _call(function: Callable[[str], object], value: str) -> Callable[[], object]:
        return lambda: function(value)

    def _theme(self, name: str) -> None:
        choose_theme(self.app, name)

    async def discover(self) -> Hits:
        for label, command in self.commands():
            yield DiscoveryHit(Content(label), command, text=label)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for label, command in self.commands():
            score = matcher.match(label)
            if score > 0:
                yield Hit(score, highlighted(label, matcher), command, text=label)


def highlighted(label: str, matcher: Matcher) -> Content:
    """``label`` as plain content (no markup is read in it), the letters matched marked."""
    content = Content(label)
    _score, offsets = matcher.fuzzy_search.match(matcher.query, label)
    for offset in offsets:
        if not label[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


PICKER_WORDS = "Pick a theme: enter uses it and keeps it for the next run · esc keeps this one"
"""The theme picker's placeholder: choosing is what keeps a theme."""


def choose_theme(app: App[Any], name: str) -> None:
    """Use theme ``name``, kept for the next run by an app that keeps one."""
    keep = getattr(app, "keep_theme", None)
    app.theme = name
    if callable(keep):
        keep(name)


class ThemesToKeep(ThemeProvider):
    """The theme picker (``t``): the theme chosen with enter is used and kept (see the
    module); moving through the list changes nothing."""

    @property
    def commands(self) -> list[tuple[str, Callable[[], None]]]:
        return [(name, partial(choose_theme, self.app, name)) for name, _ in super().commands]
