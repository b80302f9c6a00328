"""The terminal's driver, made to end the dashboard when its terminal goes away.

Textual's Linux driver reads keys in a thread that loops until the app stops it. When the
terminal's other end closes (a tmux server killed, an SSH session dropped), every read
returns at once with nothing, and that loop goes round again: about 21,000 empty reads a
second, a core spent for ever. The kernel's SIGHUP normally ends the dashboard first, but
not always: a process outside the terminal's foreground group gets none, and a shutdown
that a loaded machine left stuck (the signal's handler already gone) lived on at 96 % of a
core for half an hour.

:class:`TerminalDriver` reads keys as Textual's does (the same parser, the same messages),
and takes an end of input on a terminal for what it is: the terminal is gone. The thread
stops reading, the app is told (:class:`TerminalClosed`, which quits as ``q`` does) and a
last resort is armed: if the process still runs :data:`LAST_RESORT` seconds later, whatever
it is stuck on, what it started is ended and it exits with the status a SIGHUP gives
(129). A SIGHUP or SIGTERM arms the same last resort (:meth:`TerminalDriver.end_within`).

Any end of input counts, whatever ``isatty`` says: a terminal that has gone away is no
terminal to ``isatty`` any more, and a dashboard whose keys can never come (``< /dev/null``)
could only be ended by a signal.
"""

from __future__ import annotations

import os
import selectors
import signal
import threading
from codecs import getincrementaldecoder
from collections.abc import Callable

from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message

from envtui.tui.web.web_keys import key_parser

LAST_RESORT = 5.0
"""Seconds the dashboard gets to quit cleanly once its terminal is gone (or a SIGHUP or
SIGTERM came) before the process exits regardless."""
HANGUP_STATUS = 128 + signal.SIGHUP
"""The exit status of a process that a closed terminal ended, as a shell reports it."""
POLL = 0.1
"""Seconds between two looks at whether the app stopped the input (Textual's own value)."""


class TerminalClosed(Message):
    """The terminal the dashboard reads its keys from has gone away: quit."""


class TerminalDriver(LinuxDriver):
    """Textual's Linux driver, whose input thread notices that its terminal went away."""

    before_last_resort: Callable[[], object] | None = None
    """What the last resort does before the process exits (end the processes the
    dashboard started); set by the app."""

    _last_resort: threading.Timer | None = None

    def end_within(self, seconds: float = LAST_RESORT, status: int = HANGUP_STATUS) -> None:
        """Make sure the process ends within ``seconds``: the clean way out has that long.

        Armed once; a daemon thread, so a process that ended cleanly is not kept waiting.
        """
        if self._last_resort is not None:
            return
        timer = threading.Timer(seconds, self._exit_now, (status,))
        timer.daemon = True
        self._last_resort = timer
        timer.start()

    def _exit_now(self, status: int) -> None:
        cleanup = self.before_last_resort
        try:
            if cleanup is not None:
                cleanup()
        finally:
            os._exit(status)

    def start_application_mode(self) -> None:
        """Textual's start; a terminal gone before it (closed while envtui was loading)
        makes Textual give up quietly, with no input thread and nothing to draw on: the
        dashboard would run unseen for ever, so that is a closed terminal too."""
        super().start_application_mode()  # type: ignore[no-untyped-call]
        if not self.input_started():
            self._terminal_gone()

    def input_started(self) -> bool:
        """Whether Textual started its input thread: the one private part of the driver
        this module reads (``tests/unit/test_terminal_input.py`` fails when it changes)."""
        return self._key_thread is not None

    def _terminal_gone(self) -> None:
        self.end_within()
        self.send_message(TerminalClosed())

    def run_input_thread(self) -> None:
        """Read keys until the app stops the input, or until the terminal's input ends."""
        fileno = self.fileno
        parser = key_parser()
        decode = getincrementaldecoder("utf-8")(errors="replace").decode
        with selectors.DefaultSelector() as selector:
            selector.register(fileno, selectors.EVENT_READ)
            while not self.exit_event.is_set():
                ready = selector.select(POLL)
                data = self._read(fileno) if ready else b""
                if ready and not data:
                    break  # the end of input: nothing will ever come again
                for message in parser.feed(decode(data)) if data else ():
                    self.process_message(message)
                for message in parser.tick():
                    self.process_message(message)
            else:
                return  # stopped by the app
        self._terminal_gone()

    @staticmethod
    def _read(fileno: int) -> bytes:
        """What the terminal has for us; an error (``EIO`` on a pty whose other end closed)
        is an end of input like an empty read."""
        try:
            return os.read(fileno, 4096)
        except OSError:
            return b""
