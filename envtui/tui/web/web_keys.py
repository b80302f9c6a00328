"""What a browser tab types, as Textual's events: the one private part of Textual a served
tab needs.

The page of ``envtui serve`` is xterm.js: it sends keys, mouse reports and pastes as the
bytes a terminal would. Textual turns such bytes into its events with its xterm parser,
which every driver of its own uses (the web driver included) but which Textual keeps
private (``textual._xterm_parser``); there is no public way to feed it. So it is named
here, once: :func:`key_parser` is the only use, and ``tests/unit/test_serve_upstream.py``
fails by name when a Textual release moves or reshapes it (pyproject.toml pins Textual's
major version for this).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from textual._xterm_parser import XTermParser
from textual.message import Message


class KeyParser(Protocol):
    """What the tab's input thread asks of the parser."""

    def feed(self, data: str) -> Iterable[Message]:
        """The events in ``data`` (a key cut in two waits for its rest)."""
        ...

    def tick(self) -> Iterable[Message]:
        """The events a pause completes (a lone escape is the escape key)."""
        ...


def key_parser() -> KeyParser:
    """A fresh parser for one tab's input (it keeps the state of a key cut in two)."""
    return XTermParser()
