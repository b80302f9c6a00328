"""What the headless commands share: loading the config and reporting errors in one line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from envtui.config import AnyEnvironmentConfig, Config, ConfigError, load_config
from envtui.events import EventSink
from envtui.safe_text import for_terminal

if TYPE_CHECKING:
    from envtui.sources.engine import Engine


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
    from envtui.codex_environments import codex_environment_configs

    try:
        return list(codex_environment_configs(Path(args.codex_environments)))
    except ConfigError as exc:
        return fail(command, str(exc))


def fail(command: str, message: str) -> int:
    print(for_terminal(f"envtui {command}: error: {message}"), file=sys.stderr)
    return 2


def load(command: str, args: argparse.Namespace) -> Config | int:
    """The config, or the exit code after printing the error."""
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
