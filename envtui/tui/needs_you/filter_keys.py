"""Keys typed after ``/`` go into the filter, however fast they come.

Textual gives a key to the widget that has focus when the app reads it, and the filter's
key opens the box only when its binding runs, once the key has travelled up to the app: by
then the keys read with it, in one burst, were already given to the table. ``/foo⏎`` typed
ahead (over a slow SSH link, through tmux, on a loaded machine, in a browser tab) would
leave ``f``, ``o``, ``o`` to the screen's bindings, where ``o`` is approve once, and the
``⏎`` would open the environment's details instead of closing the filter.

So the main screen hands every key on its way up to :class:`FilterKeys` first: the
filter's key opens the box right there, focus included, before the next key is looked at;
and a key that reaches the screen while the box is open and focused was typed for the box:
it is stopped, and read again as though it had come a moment later, when the app gives it
to the box (and a ``⏎`` closes the filter). None of them reaches an answer key.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from textual import events
from textual.screen import Screen
from textual.widgets import Input

GIVEN_KEPT = 256
"""Keys read again that are remembered (one comes back up when the box does not take it:
enter, esc, a key of the box's bindings; it then goes on to those bindings)."""


class FilterKeys:
    """The keys of the screen's filter box ``#filter`` (see the module); ``open_filter``
    opens the box and focuses it at once (not later, as ``Widget.focus`` does)."""

    def __init__(self, screen: Screen[None], open_filter: Callable[[], None]) -> None:
        self._screen = screen
        self._open_filter = open_filter
        self._given: deque[events.Key] = deque(maxlen=GIVEN_KEPT)

    def route(self, event: events.Key) -> None:
        """One key on its way up to the screen's bindings: opens the filter, is given to
        the filter, or goes on as it was."""
        if any(given is event for given in self._given):
            return  # read again and come back up from the box: its bindings are for it
        box = self._box()
        if box is None:
            return
        if box.has_class("-visible"):
            if self._screen.focused is box:
                self._give(event)
            return
        if self._opens_filter(event.key):
            event.stop()
            event.prevent_default()
            self._open_filter()

    def _box(self) -> Input | None:
        boxes = self._screen.query("#filter")
        box = boxes.first() if boxes else None
        return box if isinstance(box, Input) else None

    def _opens_filter(self, key: str) -> bool:
        """Whether ``key`` opens the screen's filter (the keymap applied): the screen's own
        ``filter`` binding, or a panel's that names it (``screen.filter``); not a key a
        widget keeps for a box of its own."""
        active = self._screen.active_bindings.get(key)
        if active is None:
            return False
        action = active.binding.action
        return action == "screen.filter" or (active.node is self._screen and action == "filter")

    def _give(self, event: events.Key) -> None:
        """``event`` again, as the app had read it a moment later: the app gives it to the
        widget focused then (the box), and runs the bindings of the box on its way up.
        Made by the app (in a callback), so that its way up does not end at this screen."""
        event.stop()
        event.prevent_default()
        self._screen.app.call_later(self._read_again, event.key, event.character)

    def _read_again(self, key: str, character: str | None) -> None:
        given = events.Key(key, character)
        self._given.append(given)
        self._screen.app.post_message(given)
