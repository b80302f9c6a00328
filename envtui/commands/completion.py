"""``envtui completion SHELL``: shell completion, generated from the parser itself.

shtab turns the argparse tree into a completion script for bash, zsh or fish, so every
subcommand, option and choice completes, and a new option completes the day it is added.
"""

from __future__ import annotations

import argparse
import sys

from envtui.commands.options import Arg, Command, Group

COMMAND = "completion"
SHELLS = ("bash", "zsh", "fish")


COMPLETION = Command(
    COMMAND,
    description="Print a completion script for SHELL, generated from envtui's own parser. "
    "bash: `envtui completion bash > ~/.local/share/bash-completion/completions/envtui`; "
    "zsh: `envtui completion zsh > ~/.zfunc/_envtui` (with ~/.zfunc on $fpath); "
    "fish: `envtui completion fish > ~/.config/fish/completions/envtui.fish`.",
    options=Group(
        Arg("shell", metavar="SHELL", choices=SHELLS, help="one of: " + ", ".join(SHELLS))
    ),
)


def add_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], root: argparse.ArgumentParser
) -> None:
    COMPLETION.add_to(subparsers, handler=lambda args: run(root, args))


def script(root: argparse.ArgumentParser, shell: str) -> str:
    import shtab  # only when a script is asked for

    text: str = shtab.complete(root, shell=shell)
    return text


def run(root: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    sys.stdout.write(script(root, args.shell))
    return 0
