"""What a program's standard error says about why it stopped.

A program that exits on its own usually says why on stderr. For a Rust program such as
Codex that is the ``Error: …`` line its ``main`` prints; with ``RUST_BACKTRACE`` set in the
environment a backtrace follows (``Stack backtrace:``, then frames such as ``   6: <unknown>``),
so the last line is a frame and never the reason. Codex's log lines are coloured; the
colour is not part of the words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

STDERR_LINE_LENGTH = 2000
"""Characters of one stderr line kept."""
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_NOT_A_REASON = re.compile(r"\s*(\d+: |at \S+:\d+|[Ss]tack backtrace:\s*$)")
"""A backtrace's header and frames (``   6: <unknown>``, ``at src/main.rs:3:5``)."""
_ERROR = "Error: "


def stderr_text(line: bytes) -> str:
    """One line of stderr as text: bounded, decoded, without colour or trailing space."""
    text = line[:STDERR_LINE_LENGTH].decode("utf-8", errors="replace")
    return _ANSI.sub("", text).rstrip()


def error_line(lines: Iterable[bytes]) -> str | None:
    """The first ``Error: `` line among ``lines``, or None (cheap: only such lines are
    decoded, so a flood of stderr costs little)."""
    for line in lines:
        if _ERROR.encode() in line[:80]:
            text = stderr_text(line)
            if text.startswith(_ERROR):
                return text
    return None


def exit_reason(lines: Sequence[str]) -> str | None:
    """The line that says why the program stopped: the first ``Error: `` line, else the
    last line that is neither blank nor part of a backtrace."""
    error = next((line for line in lines if line.startswith(_ERROR)), None)
    if error is not None:
        return error
    return next(
        (line for line in reversed(lines) if line.strip() and not _NOT_A_REASON.match(line)),
        None,
    )
