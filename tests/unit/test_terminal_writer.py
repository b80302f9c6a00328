"""The screen's writer thread survives its terminal going away: writes after a failed one
are dropped, ``stop()`` returns; Textual's own thread, in the same case, blocks the writer
for ever (when Textual fixes that, the second test fails and the replacement can go)."""

from __future__ import annotations

import errno
import inspect
import io
import threading

import pytest
from textual.drivers import linux_driver

from envtui.tui.app import EnvTuiApp
from envtui.tui.upstream.terminal_writer import SurvivingWriter, TextualWriter, writer_queue

WRITES = 100  # more than the queue holds (30)


class ClosedTerminal(io.StringIO):
    """A terminal whose other end closed after ``good`` writes: EIO from then on."""

    def __init__(self, good: int) -> None:
        super().__init__()
        self.good = good

    def write(self, text: str) -> int:
        if self.good <= 0:
            raise OSError(errno.EIO, "Input/output error")
        self.good -= 1
        return super().write(text)


def write_then_stop(writer: TextualWriter) -> threading.Thread:
    def run() -> None:
        for n in range(WRITES):
            writer.write(f"frame {n}\n")
        writer.stop()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_writes_after_the_terminal_went_away_are_dropped_and_stop_returns() -> None:
    terminal = ClosedTerminal(good=3)
    writer = SurvivingWriter(terminal)
    writer.start()
    app_side = write_then_stop(writer)
    app_side.join(timeout=60)  # a guard against the hang, not a timing
    assert not app_side.is_alive(), "the app's writes or stop() blocked"
    assert not writer.is_alive()
    assert terminal.getvalue() == "frame 0\nframe 1\nframe 2\n"
    assert writer.terminal_lost is not None
    assert writer.terminal_lost.errno == errno.EIO


def test_a_writer_on_a_working_terminal_writes_everything() -> None:
    terminal = ClosedTerminal(good=WRITES)
    writer = SurvivingWriter(terminal)
    writer.start()
    write_then_stop(writer).join(timeout=60)
    assert terminal.getvalue() == "".join(f"frame {n}\n" for n in range(WRITES))
    assert writer.terminal_lost is None


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_textuals_own_writer_still_blocks_the_app_after_a_failed_write() -> None:
    terminal = ClosedTerminal(good=3)
    writer = TextualWriter(terminal)
    writer.start()
    app_side = write_then_stop(writer)
    writer.join(timeout=60)  # it dies at the 4th write...
    assert not writer.is_alive()
    app_side.join(timeout=0.3)  # its 34 writes take microseconds unless one waits
    blocked = app_side.is_alive()  # ...and the app's 34th write waits for it for ever
    while app_side.is_alive():  # let the app's side finish: nobody else takes the queue
        queue = writer_queue(writer)
        while not queue.empty():
            queue.get_nowait()
        app_side.join(timeout=0.05)
    assert blocked, "Textual's writer no longer blocks: SurvivingWriter may go"


def test_the_dashboard_puts_the_surviving_writer_in_the_linux_drivers_place() -> None:
    EnvTuiApp(None)
    assert linux_driver.WriterThread is SurvivingWriter  # type: ignore[attr-defined]
    # the driver makes its writer by that module-level name; a change upstream fails here
    source = inspect.getsource(linux_driver.LinuxDriver.start_application_mode)
    assert "WriterThread(self._file)" in source
    assert isinstance(writer_queue(TextualWriter(io.StringIO())).maxsize, int)
