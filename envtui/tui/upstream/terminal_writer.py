"""Textual's writer thread, made to survive the terminal going away.

Textual writes the screen from a thread fed by a queue of 30 writes. When a write to the
terminal fails (``EIO`` once the pty's other end is closed: a tmux pane or server killed, an
SSH session dropped), that thread dies with the error, and nothing takes from the queue any
more: the next 30 writes fill it, the 31st blocks the app for ever, and ``stop()`` (a put
and a join) never returns either. A dashboard that was quitting as its terminal went away
(``q`` and a killed tmux server at once) lived on, orphaned, in about 1 run in 7.

:class:`SurvivingWriter` writes as Textual's thread does; once a write fails with
``OSError`` it discards what follows (there is no terminal to draw on) and still ends at
the stop mark, so the app's shutdown runs to its end. :func:`install` puts it in the Linux
driver's place. The upstream report, with a reproduction, is ``docs/upstream/``.
"""

from __future__ import annotations

from queue import Queue

from textual.drivers import _writer_thread, linux_driver

TextualWriter = _writer_thread.WriterThread
"""Textual's own writer thread (its module is private: named here, once)."""


def writer_queue(writer: TextualWriter) -> Queue[str | None]:
    """The queue a writer thread takes its writes from: the one private part of Textual's
    writer this module relies on (its test fails when it changes)."""
    return writer._queue


class SurvivingWriter(TextualWriter):
    """A writer thread that keeps taking writes, and ends at the stop mark, after its
    terminal went away."""

    terminal_lost: OSError | None = None
    """The error that ended the writes, when one did."""

    def run(self) -> None:
        try:
            super().run()
        except OSError as exc:
            self.terminal_lost = exc
            self._discard_until_stopped()

    def _discard_until_stopped(self) -> None:
        queue = writer_queue(self)
        while queue.get() is not None:
            pass


def install() -> None:
    """Make Textual's Linux driver start a :class:`SurvivingWriter` for its output.

    The driver names the class in its module (``WriterThread(self._file)`` in
    ``start_application_mode``); the test of this module fails when that changes.
    """
    linux_driver.WriterThread = SurvivingWriter  # type: ignore[attr-defined]
