"""What the headless commands share: loading the config and reporting errors in one line."""

from __future__ import annotations

import argparse
import contextlib
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from envtui.config import AnyEnvironmentConfig, Config, ConfigError, load_config
from envtui.events import EventSink
from envtui.safe_text import for_terminal, one_line

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
    """Report bad input in one line on standard error; the exit code for it, 2."""
    error_line(f"envtui {command}: error: {message}")
    return 2


def error_line(text: str) -> None:
    """One line on standard error, escaped; a standard error that cannot be written is ignored
    (there is nowhere left to say so)."""
    with contextlib.suppress(OSError, AttributeError):  # AttributeError: stderr closed (None)
        print(one_line(text), file=sys.stderr, flush=True)


class OutputError(Exception):
    """The command's output could not be written (a full disk, ``/dev/full``): exit 1."""


def write_output(text: str) -> None:
    """Write ``text`` to standard output: escaped on a terminal, the exact text in a pipe.

    The exact text is UTF-8, with a lone surrogate from a ``\\ud800`` escape in the input
    kept as its bytes (as Codex would write them). A write that fails is an
    :class:`OutputError` naming standard output; a reader that went away stays a
    BrokenPipeError, which the command line handles.
    """
    if sys.stdout is None:  # started with standard output closed
        raise OutputError("standard output: cannot write: it is closed")
    if sys.stdout.isatty():
        text = for_terminal(text)
    try:
        sys.stdout.flush()  # whatever was printed before comes first
        sys.stdout.buffer.write(text.encode("utf-8", errors="surrogatepass"))
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputError(f"standard output: cannot write: {exc.strerror or exc}") from None


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


def non_negative(text: str) -> float:
    """An argparse type: a finite number, not negative (seconds, a speed)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number, at least 0: {text!r}")
    return value


def end_leftover_processes() -> None:
    """End every process the command started that is still running (the last clean-up step)."""
    from envtui.environments.processes import end_all_started

    end_all_started()
