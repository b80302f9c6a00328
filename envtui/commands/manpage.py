"""``envtui manpage``: a short man page in roff, generated from the parser itself.

Every subcommand with its description, and every option with its help, come from the same
argparse tree the command line uses, so the man page cannot say something the command
does not do. ``envtui manpage | man -l -`` reads it; packagers install it as ``envtui.1``.
"""

from __future__ import annotations

import argparse
import sys
from datetime import date

from envtui import __version__
from envtui.commands.options import Command, Group

COMMAND = "manpage"


MANPAGE = Command(
    COMMAND,
    description="Print a man page for envtui, generated from its own parser; "
    "read it with `envtui manpage | man -l -`.",
    options=Group(),
)


def add_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], root: argparse.ArgumentParser
) -> None:
    MANPAGE.add_to(subparsers, handler=lambda args: run(root))


def _roff(text: str) -> str:
    """Text safe inside a roff line: backslashes and dashes escaped, non-ASCII as ``\\[uXXXX]``,
    and a leading dot or quote guarded (it would start a request)."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    text = "".join(c if ord(c) < 128 else f"\\[u{ord(c):04X}]" for c in text)
    return "\\&" + text if text[:1] in (".", "'") else text


def _subcommands(root: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in root._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _options(parser: argparse.ArgumentParser) -> list[str]:
    lines: list[str] = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
            continue
        if action.help == argparse.SUPPRESS:
            continue
        if action.option_strings:
            name = ", ".join(action.option_strings)
            if action.nargs != 0 and action.metavar is not None:
                name += f" {action.metavar}"
            elif action.nargs != 0:
                name += f" {action.dest.upper()}"
        else:
            name = str(action.metavar or action.dest)
        lines += [".TP", f"\\fB{_roff(name)}\\fR", _roff(action.help or "")]
    return lines


def page(root: argparse.ArgumentParser, today: date | None = None) -> str:
    """The whole man page."""
    when = (today or date.today()).isoformat()
    lines = [
        f'.TH ENVTUI 1 "{when}" "envtui {__version__}" "User Commands"',
        ".SH NAME",
        "envtui \\- " + _roff(root.description or ""),
        ".SH SYNOPSIS",
        "\\fBenvtui\\fR [\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]",
        ".SH DESCRIPTION",
        _roff(
            "Without a command envtui starts the dashboard on its embedded demo. "
            "Every command has --help."
        ),
        ".SH OPTIONS",
        *_options(root),
        ".SH COMMANDS",
    ]
    for name, parser in _subcommands(root).items():
        lines += [".SS " + _roff(f"envtui {name}"), _roff(parser.description or "")]
        lines += _options(parser)
    lines += [
        ".SH FILES",
        _roff("envtui info prints every path envtui reads or writes, and whether it exists."),
        ".SH SEE ALSO",
        "\\fBcodex\\fR(1), \\fBssh\\fR(1)",
    ]
    return "\n".join(lines) + "\n"


def run(root: argparse.ArgumentParser) -> int:
    sys.stdout.write(page(root))
    return 0
