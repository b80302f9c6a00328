"""The ``envtui`` command line: one argparse tree, each subcommand in its own module.

Only headless commands are imported here, so ``envtui render`` and friends start without
loading Textual.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from envtui import __version__
from envtui.commands import check, dashboard, events, render, serve, snapshot


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
    serve.add_parser(subparsers)
    return parser


def with_default_command(argv: Sequence[str]) -> list[str]:
    """``envtui`` alone starts the dashboard on the embedded demo."""
    return list(argv) if argv else ["demo"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(with_default_command(sys.argv[1:] if argv is None else argv))
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        code: int = args.handler(args)
    except BrokenPipeError:
        # The reader went away (``envtui render … | head``): not an error worth a traceback.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        return 130
    return code


if __name__ == "__main__":
    raise SystemExit(main())
