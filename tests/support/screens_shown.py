"""Waiting for a screen a key opened, until it can be used.

A key reaches the screen it opens through posted messages (the key, the message its widget
posts, the handler that pushes the screen), and ``push_screen`` puts the screen on the stack
before it is composed, mounted and given its focus. A test that reads the new screen's
widgets, or types into it, waits for that, not for the screen to be on the stack.
"""

from __future__ import annotations

from typing import Any, TypeVar

from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget

from tests.support.waiting import pilot_wait_until

S = TypeVar("S", bound=Screen[Any])
W = TypeVar("W", bound=Widget)


async def screen_shown(app: App[Any], pilot: Pilot[Any], kind: type[S]) -> S:
    """The app's screen, once it is a ``kind`` that is mounted with its widgets."""

    def shown() -> bool:
        screen = app.screen
        return isinstance(screen, kind) and screen.is_mounted

    await pilot_wait_until(pilot, shown, what=f"a {kind.__name__} shown")
    screen = app.screen
    assert isinstance(screen, kind)
    return screen


async def focused_in(app: App[Any], pilot: Pilot[Any], kind: type[S], widget: type[W]) -> W:
    """The focused ``widget`` of the app's screen, once that screen is a mounted ``kind``
    whose focus is on a ``widget``: the keys typed next go to it."""

    def ready() -> bool:
        screen = app.screen
        return isinstance(screen, kind) and screen.is_mounted and isinstance(screen.focused, widget)

    await pilot_wait_until(pilot, ready, what=f"a {widget.__name__} focused in a {kind.__name__}")
    focused = app.screen.focused
    assert isinstance(focused, widget)
    return focused
