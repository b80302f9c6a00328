"""The headless commands: each one a module, none importing Textual.

:data:`COMMANDS` is what ``envtui --help`` lists: each command's name, the module that adds
its parser and the line that says what it does. The list is read from here, so printing it
imports no command's module (each loads its options, and some the config and event
models, as they are built); a command's own ``--help`` loads its module alone.
"""

from typing import NamedTuple


class Listed(NamedTuple):
    """A subcommand as ``envtui --help`` lists it."""

    module: str
    """The module that adds its parser (``add_parser``, or ``add_parsers`` for several)."""
    summary: str
    """What it does, in one line: the list's words and the start of its own ``--help``."""


_DASHBOARD = "envtui.commands.dashboard"

COMMANDS: dict[str, Listed] = {
    "render": Listed("envtui.commands.render", "print the <environment_context> block for a state"),
    "snapshot": Listed(
        "envtui.commands.snapshot", "resolve the configured environments once and print them"
    ),
    "events": Listed("envtui.commands.events", "write the environments' event stream as JSONL"),
    "check": Listed(
        "envtui.commands.check", "report divergences between tools, context and snapshot"
    ),
    "demo": Listed(_DASHBOARD, "the dashboard on the embedded demo (no set-up)"),
    "watch": Listed(_DASHBOARD, "the dashboard on the configured environments"),
    "replay": Listed(_DASHBOARD, "the dashboard on a recorded JSONL event stream"),
    "codex": Listed(_DASHBOARD, "the dashboard attached to a real codex app-server"),
    "rollout": Listed(_DASHBOARD, "the dashboard on a Codex rollout file"),
    "info": Listed(
        "envtui.commands.info",
        "print the version, the profile and every path envtui reads or writes",
    ),
    "serve": Listed(
        "envtui.commands.serve.command", "a dashboard command in the browser (textual-serve)"
    ),
    "sessions": Listed("envtui.commands.sessions", "every Codex thread of a sessions tree, live"),
    "completion": Listed(
        "envtui.commands.completion", "print a shell completion script (bash, zsh or fish)"
    ),
    "manpage": Listed("envtui.commands.manpage", "print envtui's man page (roff)"),
}
"""Every subcommand, in the order ``envtui --help`` lists them."""
