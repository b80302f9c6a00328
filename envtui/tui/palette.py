"""envtui's entries in the command palette (``ctrl+p``), beside Textual's own.

Every action of the dashboard's keys is here, with the key it is on (the config's keymap
applied), so the palette also teaches the keys; and what no single key does: sort by a
named column, go to an environment by its id, switch to a named theme. Labels are built as
plain content, never as markup, so an environment id from outside is shown as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.fuzzy import Matcher

from envtui.tui.actions import DashboardActions
from envtui.tui.format import SORTABLE, clean
from envtui.tui.keymap import keys_in_force

ACTIONS: tuple[tuple[str, str], ...] = (
    ("Pause or resume the view", "pause"),
    ("Context: next view (full, diff, snapshot, patch)", "view"),
    ("Previous step", "previous_step"),
    ("Next step", "next_step"),
    ("Back to live: the latest step", "live"),
    ("Details of the selected environment or incident", "details"),
    ("Acknowledge the incident under the cursor", "acknowledge"),
    ("Hide or show the resolved incidents", "toggle_resolved"),
    ("Copy the context text", "copy"),
    ("Export the selected step", "export"),
    ("Filter environments", "filter"),
    ("Sort by the next column", "sort"),
    ("Reverse the sort", "sort_reverse"),
    ("Pick a theme", "theme"),
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
        if not isinstance(screen, DashboardActions):
            return  # a screen over the dashboard: its own keys only
        keymap: dict[str, str] = getattr(self.app, "keymap_in_force", {})
        bindings = {b.id: b for b in screen.BINDINGS if isinstance(b, Binding) and b.id}
        for text, binding_id in self.ACTIONS:
            binding = bindings.get(binding_id)
            if binding is not None:
                keys = keys_in_force([binding], keymap)[0][0]
                yield f"envtui: {text} · key {keys}", self._run(binding.action)
        for column in SORTABLE:
            yield f"envtui: Sort by {column}", self._call(screen.sort_by, column)
        for row in sorted(screen.store.environments.values(), key=lambda r: r.order):
            yield f"envtui: Go to environment {clean(row.id)}", self._call(screen.go_to, row.id)
        for theme in sorted(self.app.available_themes):
            yield f"envtui: Theme {clean(theme)}", self._call(self._theme, theme)

    def _run(self, action: str) -> Callable[[], object]:
        return lambda: self.app.run_action(f"screen.{action}")

    @staticmethod
    def _call(function: Callable[[str], object], value: str) -> Callable[[], object]:
        return lambda: function(value)

    def _theme(self, name: str) -> None:
        self.app.theme = name

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
