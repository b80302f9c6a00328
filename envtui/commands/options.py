"""The command line's options, each declared once: a command lists the groups it takes.

A flag that several commands take (the config file, ``--record``, the alerts, the codex
app-server, ``--metrics``) is one value here, so it is spelled, typed, defaulted and
explained the same in every command that has it, and a command's parser is a short list:
its own few arguments and the shared groups, in the order ``--help`` shows them. A group
without a title adds its arguments to the parser itself, so grouping changes neither the
help nor the man page.

Only argparse (and the standard library) is needed here: ``envtui --help`` builds every
command's options and loads none of the models.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from envtui.commands import COMMANDS

Container = argparse._ActionsContainer
"""A parser, or one of its argument groups: what ``add_argument`` is called on."""


class Arg:
    """One argument, in ``add_argument``'s own words, added to a parser when it is built."""

    def __init__(self, *flags: str, **settings: Any) -> None:
        self.flags = flags
        self.settings = settings

    def add_to(self, container: Container) -> None:
        container.add_argument(*self.flags, **self.settings)

    def arguments(self) -> Iterator[Arg]:
        yield self


class Group:
    """Options added together, in order: under a heading of their own with ``title``, and
    each excluding the others with ``exclusive``."""

    def __init__(self, *options: Arg | Group, title: str = "", exclusive: bool = False) -> None:
        self.options = options
        self.title = title
        self.exclusive = exclusive

    def add_to(self, container: Container) -> None:
        target = container.add_argument_group(self.title) if self.title else container
        if self.exclusive:
            target = target.add_mutually_exclusive_group()
        for option in self.options:
            option.add_to(target)

    def arguments(self) -> Iterator[Arg]:
        """Every argument of the group, nested groups included."""
        for option in self.options:
            yield from option.arguments()


@dataclass(frozen=True)
class Command:
    """A subcommand as ``envtui NAME --help`` explains it; what ``envtui --help`` lists of it
    (its summary) is :data:`envtui.commands.COMMANDS`'s, read without importing it."""

    name: str
    description: str
    options: Group

    def add_to(
        self, subparsers: argparse._SubParsersAction[argparse.ArgumentParser], **defaults: Any
    ) -> argparse.ArgumentParser:
        """Its parser, with its options and ``defaults`` (the handler, at the least)."""
        summary = COMMANDS[self.name].summary
        parser = subparsers.add_parser(self.name, help=summary, description=self.description)
        self.options.add_to(parser)
        parser.set_defaults(**defaults)
        return parser


def number(
    kind: type[int] | type[float], *, low: float, low_inclusive: bool = True, meaning: str = ""
) -> Callable[[str], float]:
    """An argparse ``type`` that accepts a finite number in range and names the range if not.

    ``--speed -1`` is then refused at once with ``must be 0 or more``, instead of running
    with a value that cannot mean anything.
    """
    allowed = f"{low:g} or more" if low_inclusive else f"more than {low:g}"
    described = f"must be {allowed}{f' ({meaning})' if meaning else ''}"

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{described}; {text!r} is not a number") from None
        in_range = value >= low if low_inclusive else value > low
        if not in_range or value != value or value in (float("inf"), float("-inf")):
            raise argparse.ArgumentTypeError(f"{described}, got {text}")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in some messages
    return parse


_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*([smhd]?)")
_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def duration(text: str) -> float:
    """Seconds from ``90``, ``90s``, ``15m``, ``2h`` or ``7d`` (an argparse ``type``)."""
    match = _DURATION.fullmatch(text.strip())
    if match is None:
        raise argparse.ArgumentTypeError(
            f"must be a duration such as 90s, 15m, 2h or 7d; got {text!r}"
        )
    return float(match.group(1)) * _UNITS[match.group(2)]


def address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:9100`` for IPv6) as (host, port); an argparse ``type``."""
    host, colon, port = text.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not colon or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"must be HOST:PORT, such as 127.0.0.1:9464; got {text!r}")
    return host, int(port)


def switch(flag: str, help: str) -> Arg:
    """A flag that turns something on (off without it)."""
    return Arg(flag, action="store_true", help=help)


def seconds(flag: str, help: str, *, default: float | None = None, zero: bool = True) -> Arg:
    """A number of seconds (``S``): finite, 0 or more (more than 0 without ``zero``)."""
    kind = number(float, low=0, low_inclusive=zero)
    return Arg(flag, type=kind, default=default, metavar="S", help=help)


def lasting(flag: str, help: str, *, default: str | None = None) -> Arg:
    """A ``DURATION``: seconds, or ``90s``, ``15m``, ``2h``, ``7d``."""
    value = None if default is None else duration(default)
    return Arg(flag, type=duration, default=value, metavar="DURATION", help=help)


CONFIG = Arg(
    "--config",
    metavar="F",
    help="config file (default: $ENVTUI_CONFIG, else $XDG_CONFIG_HOME/envtui/config.toml; "
    "without one, a local environment in the current directory)",
)
CODEX_ENVIRONMENTS = Arg(
    "--codex-environments",
    metavar="PATH",
    help="take the environments from Codex's environments.toml (CODEX_HOME/environments.toml), "
    "in Codex's selection order",
)
ENVIRONMENTS = Group(CONFIG, CODEX_ENVIRONMENTS)
"""Which environments a headless command runs: the config's, or Codex's environments.toml."""

RECORD = Group(
    Arg(
        "--record",
        metavar="FILE",
        help="also write every event to FILE as JSONL; an existing FILE is refused "
        "unless --append or --force",
    ),
    Group(
        switch("--append", "with --record: add to an existing FILE"),
        switch("--force", "with --record: overwrite an existing FILE"),
        exclusive=True,
    ),
)
"""A dashboard's recording; :func:`envtui.commands.dashboard_sources.record_problem` checks it."""

SCREEN = Group(
    Arg(
        "--theme",
        metavar="NAME",
        help="the theme (default: the last one chosen with t, else the config's, else envtui-dark)",
    ),
    Arg(
        "--export-dir",
        metavar="DIR",
        help="where `e` writes step exports (default: the exports folder `envtui info` names)",
    ),
    switch("--utc", "show every time in UTC (default: the local zone)"),
    switch(
        "--ascii",
        "draw every glyph in ASCII, for terminals and fonts without them (also "
        "`ascii = true` in the config)",
    ),
)
"""How a dashboard shows things (theme, zone, glyphs) and where ``e`` writes them."""

ALERTS = Group(
    switch("--bell", "ring the terminal bell on a new incident or outage"),
    switch(
        "--notify",
        "a toast and a desktop notification (OSC 9) on each new or resolved incident",
    ),
    Arg(
        "--alert-command",
        metavar="CMD",
        help="run CMD (split like a shell would, but no shell runs it) with a JSON object on "
        "its standard input for each burst of alerts",
    ),
    title="alerts (also [alerts] in the config; not on replays)",
)

DASHBOARD = Group(CONFIG, RECORD, SCREEN, ALERTS)
"""What every dashboard command takes."""

CODEX_BINARY = Arg(
    "--codex", metavar="PATH", help="the codex binary (default: $ENVTUI_CODEX, then PATH)"
)
CODEX = Group(
    Arg("--codex-home", metavar="DIR", help="CODEX_HOME for the app-server (default: ~/.codex)"),
    Group(
        Arg("--cwd", metavar="DIR", help="start a thread in DIR (default: here)"),
        Arg("--thread", metavar="ID", help="resume the thread ID"),
        exclusive=True,
    ),
    Arg("--ssh", metavar="HOST", help="run the app-server on HOST (a host or ~/.ssh/config alias)"),
    seconds("--poll-interval", "environment/status every S seconds", default=1.0, zero=False),
    Arg("--enable", action="append", default=[], metavar="FEATURE", help="a codex feature flag"),
    Arg("--prompt", metavar="TEXT", help="send one user turn once the thread starts"),
    Arg(
        "--read-only",
        action="store_true",
        help="on the daemon: only watch (send nothing but reads, answer nothing); on an "
        "app-server of envtui's own: decline every approval and question of Codex at once, and "
        "say so in the log (without it, a request waits for the operator: `o`, `O`, `x`, `r` "
        "in the dashboard)",
    ),
    Group(
        Arg(
            "--no-daemon",
            action="store_true",
            help="start an app-server of envtui's own instead of attaching to the daemon of "
            "CODEX_HOME (implied by --codex PATH, --cwd, --prompt, --enable and --ssh)",
        ),
        Arg(
            "--remote",
            metavar="ADDR",
            help="attach to the app-server at ADDR: unix:// (the daemon of CODEX_HOME), "
            "unix://PATH, ws://HOST:PORT or wss://...",
        ),
        exclusive=True,
    ),
    Arg(
        "--remote-token-file",
        metavar="FILE",
        help="the bearer token for --remote, read from FILE (never given on the command line)",
    ),
    Arg(
        "--remote-auth-token-env",
        metavar="VAR",
        help="the bearer token for --remote, read from the environment variable VAR",
    ),
)
"""The app-server and its thread, for ``envtui codex`` and ``envtui events --codex``;
:func:`envtui.commands.codex_options.codex_options` reads them."""

METRICS = Group(
    Arg(
        "--metrics",
        type=address,
        metavar="HOST:PORT",
        help="serve Prometheus metrics at http://HOST:PORT/metrics (listens only there)",
    ),
    lasting(
        "--metrics-retention",
        "how long the series of a thread that ended stay (seconds, or 90s, 15m, 2h)",
        default="15m",
    ),
    Arg(
        "--metrics-max-environments",
        type=number(int, low=1),
        default=500,
        metavar="N",
        help="the most environments of one thread that get series; the rest are counted in "
        "envtui_environments_dropped",
    ),
)
"""``--metrics``, for ``events``, ``watch``, ``codex`` and ``sessions``; prometheus-client
loads only when it is given (:func:`envtui.commands.common.metrics_for`)."""
