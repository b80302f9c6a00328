"""How a command talks: its output, and errors in one line; nothing heavier to import.

``envtui render`` starts in about the time it takes to import pydantic; this module keeps
the error and output helpers every command uses free of the config and event models.
"""

from __future__ import annotations

import contextlib
import os
import sys

from envtui.vocabulary.safe_text import for_terminal, one_line


def fail(command: str, message: str) -> int:
    """Report bad input in one line on standard error; the exit code for it, 2."""
    error_line(f"envtui {command}: error: {message}")
    return 2


def error_line(text: str) -> None:
    """One line on standard error, escaped; a standard error that cannot be written is ignored
    (there is nowhere left to say so)."""
    with contextlib.suppress(OSError, AttributeError):  # AttributeError: stderr closed (None)
        print(one_line(text), file=sys.stderr, flush=True)


class OutputError(Exception):
    """The command's output could not be written (a full disk, ``/dev/full``): exit 1."""


def write_output(text: str) -> None:
    """Write ``text`` to standard output: escaped on a terminal, the exact text in a pipe.

    The exact text is UTF-8, with a lone surrogate from a ``\\ud800`` escape in the input
    kept as its bytes (as Codex would write them). A write that fails is an
    :class:`OutputError` naming standard output; a reader that went away stays a
    BrokenPipeError, which the command line handles.
    """
    if sys.stdout is None:  # started with standard output closed
        raise OutputError("standard output: cannot write: it is closed")
    if sys.stdout.isatty():
        text = for_terminal(text)
    try:
        sys.stdout.flush()  # whatever was printed before comes first
        sys.stdout.buffer.write(text.encode("utf-8", errors="surrogatepass"))
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputError(f"standard output: cannot write: {exc.strerror or exc}") from None


def terminal_problem() -> str | None:
    """Why a dashboard cannot be drawn here: standard output (or standard error, where
    Textual draws) is not a terminal; None when both are, or when Textual is told to draw
    elsewhere (``TEXTUAL_DRIVER``: textual-serve's browser tab, a headless driver).

    A dashboard drawn into a pipe or a file is escape codes nobody reads, and waits for keys
    that never come: refusing at once is what a script needs.
    """
    if os.environ.get("TEXTUAL_DRIVER"):
        return None
    for name, stream in (("standard output", sys.stdout), ("standard error", sys.stderr)):
        if stream is None or not _isatty(stream):
            return f"{name} is not a terminal"
    return None


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):  # ValueError: a closed file
        return False


def needs_terminal(command: str, instead: str) -> int | None:
    """Exit 2 with one line when :func:`terminal_problem` finds one (``instead`` names the
    headless command that fits); None when the dashboard can be drawn."""
    problem = terminal_problem()
    if problem is None:
        return None
    return fail(command, f"{problem}; use {instead}")
