"""What the headless commands share: loading the config and reporting errors in one line."""

from __future__ import annotations

import argparse
import sys

from envtui.config import Config, ConfigError, load_config
from envtui.safe_text import for_terminal


def add_config_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        metavar="F",
        help="config file (default: $ENVTUI_CONFIG, else $XDG_CONFIG_HOME/envtui/config.toml; "
        "without one, a local environment in the current directory)",
    )


def fail(command: str, message: str) -> int:
    print(for_terminal(f"envtui {command}: error: {message}"), file=sys.stderr)
    return 2


def load(command: str, args: argparse.Namespace) -> Config | int:
    """The config, or the exit code after printing the error."""
    try:
        return load_config(args.config)
    except ConfigError as exc:
        return fail(command, str(exc))


CONFIG_ERRORS = (ConfigError,)
