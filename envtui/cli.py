"""The ``envtui`` command line: one argparse tree, each subcommand in its own module.

A command's module is imported only when that command runs (or when the whole tree is
needed: ``--help``, a mistyped command), so ``envtui render`` pays neither for the config
and event models nor for asyncio, and nothing here loads Textual.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from envtui import __version__

COMMAND_MODULES: dict[str, str] = {
    "render": "envtui.commands.render",
    "snapshot": "envtui.commands.snapshot",
    "events": "envtui.commands.events",
    "check": "envtui.commands.check",
    **dict.fromkeys(("demo", "watch", "replay", "codex", "rollout"), "envtui.commands.dashboard"),
}
"""Which module adds each subcommand (its ``add_parser``, or ``add_parsers`` for several)."""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; with a known ``command``, only that command's module is loaded."""
    parser = argparse.ArgumentParser(
        prog="envtui",
        description="A live terminal dashboard for multi-environment agent turns.",
    )
    parser.add_argument("--version", action="version", version=f"envtui {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = [COMMAND_MODULES[command]] if command in COMMAND_MODULES else COMMAND_MODULES.values()
    for name in dict.fromkeys(wanted):
        module = importlib.import_module(name)
        adder = getattr(module, "add_parser", None) or module.add_parsers
        adder(subparsers)
    return parser


def with_default_command(argv: Sequence[str]) -> list[str]:
    """``envtui`` alone starts the dashboard on the embedded demo."""
    return list(argv) if argv else ["demo"]


def main(argv: Sequence[str] | None = None) -> int:
    arguments = with_default_command(sys.argv[1:] if argv is None else argv)
    parser = build_parser(arguments[0])
    args = parser.parse_args(arguments)
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
