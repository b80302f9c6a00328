"""What the headless commands share: their arguments, and loading the config.

Output and one-line errors are :mod:`envtui.commands.output`, which stays light. The
config and event models are imported when a command runs, never to build the command
line: ``envtui --help`` loads every command's arguments and none of the models.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from envtui.commands.output import fail

if TYPE_CHECKING:
    from envtui.settings.config import AnyEnvironmentConfig, Config
    from envtui.sources.engine import Engine
    from envtui.vocabulary.events import EventSink


def add_config_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        metavar="F",
        help="config file (default: $ENVTUI_CONFIG, else $XDG_CONFIG_HOME/envtui/config.toml; "
        "without one, a local environment in the current directory)",
    )


def add_codex_environments_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--codex-environments",
        metavar="PATH",
        help="take the environments from Codex's environments.toml (CODEX_HOME/environments.toml), "
        "in Codex's selection order",
    )


def environments_from(
    command: str, args: argparse.Namespace
) -> list[AnyEnvironmentConfig] | int | None:
    """The environments of ``--codex-environments`` (None without it), or an exit code."""
    if not args.codex_environments:
        return None
    from envtui.settings.codex_environments import codex_environment_configs
    from envtui.settings.config import ConfigError

    try:
        return list(codex_environment_configs(Path(args.codex_environments)))
    except ConfigError as exc:
        return fail(command, str(exc))


def load(command: str, args: argparse.Namespace) -> Config | int:
    """The config, or the exit code after printing the error."""
    from envtui.settings.config import ConfigError, load_config

    try:
        return load_config(args.config)
    except ConfigError as exc:
        return fail(command, str(exc))


def engine_for(
    command: str, args: argparse.Namespace, sink: EventSink | None = None
) -> tuple[Config, Engine] | int:
    """The config and an engine over its environments (or ``--codex-environments``).

    Returns the exit code instead when the config or the environments file is bad.
    """
    from envtui.sources.engine import Engine

    config = load(command, args)
    if isinstance(config, int):
        return config
    environments = environments_from(command, args)
    if isinstance(environments, int):
        return environments
    # the config and the environments are validated when read: building the engine
    # cannot fail on them, so there is nothing to catch here
    return config, Engine(config, sink or (lambda event: None), environments=environments)


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


def end_leftover_processes() -> None:
    """End every process the command started that is still running (the last clean-up step)."""
    from envtui.environments.processes import end_all_started

    end_all_started()
