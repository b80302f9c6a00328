"""The ``envtui`` command line: one argparse tree, each subcommand in its own module.

Only headless commands are imported here, so ``envtui render`` and friends start without
loading Textual.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence

from envtui import __version__
from envtui.commands import check, dashboard, events, render, snapshot
from envtui.commands.common import OutputError, error_line


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="envtui",
        description="A live terminal dashboard for multi-environment agent turns.",
    )
    parser.add_argument("--version", action="version", version=f"envtui {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    render.add_parser(subparsers)
    snapshot.add_parser(subparsers)
    events.add_parser(subparsers)
    check.add_parser(subparsers)
    dashboard.add_parsers(subparsers)
    return parser


def with_default_command(argv: Sequence[str]) -> list[str]:
    """``envtui`` alone starts the dashboard on the embedded demo."""
    return list(argv) if argv else ["demo"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit code: 0 done, 1 a failure while running, 2 bad input.

    Whatever goes wrong ends in one line on standard error, never a traceback: a reader
    that went away is quiet, an output that cannot be written (a full disk) says so, and a
    failure nobody foresaw is reported as an internal error with its type.
    """
    parser = build_parser()
    args = parser.parse_args(with_default_command(sys.argv[1:] if argv is None else argv))
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        code: int = args.handler(args)
        if sys.stdout is not None:  # None when the process was started with it closed
            sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (``envtui render … | head``): not an error worth a traceback.
        _discard_stdout()
        return 1
    except KeyboardInterrupt:
        return 130
    except OutputError as exc:
        _discard_stdout()
        error_line(f"envtui {args.command}: error: {exc}")
        return 1
    except Exception as exc:  # the last resort: a bug must still not print a traceback
        error_line(f"envtui {args.command}: internal error: {type(exc).__name__}: {exc}")
        return 1
    return code


def _discard_stdout() -> None:
    """Point standard output at /dev/null, so the flush at exit cannot fail again."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


if __name__ == "__main__":
    raise SystemExit(main())
