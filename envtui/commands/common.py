"""What the commands share when they run: the config, the engine, the metrics server, a
dashboard's options, the writer of an event stream (``envtui events`` and ``envtui serve``).

Their options are :mod:`envtui.commands.options`; output and one-line errors are
:mod:`envtui.commands.output`, which stays light. The config and event models are imported
when a command runs, never to build the command line: ``envtui --help`` loads every
command's arguments and none of the models.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from envtui.commands.output import fail

CLOSE_TIMEOUT = 2.0
"""Seconds the events still queued get to reach the output at the end."""

if TYPE_CHECKING:
    from envtui.settings.config import AnyEnvironmentConfig, Config
    from envtui.sources.engine import Engine
    from envtui.sources.line_writer import LineWriter
    from envtui.sources.metrics_server import MetricsServer
    from envtui.sources.metrics_state import MetricsState
    from envtui.tui.options import DashboardOptions
    from envtui.vocabulary.events import Event, EventSink


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


def metrics_for(
    command: str, args: argparse.Namespace, *, thread: str = ""
) -> tuple[MetricsState, MetricsServer] | int | None:
    """The state and its started server when ``--metrics`` is given; None without it; the
    exit code when the address cannot be bound. The caller closes the server.

    prometheus-client is imported only here, so the commands start without it.
    """
    if args.metrics is None:
        return None
    from envtui.sources.metrics_server import MetricsServer
    from envtui.sources.metrics_state import MetricsState

    host, port = args.metrics
    state = MetricsState(
        retention=args.metrics_retention,
        thread=thread,
        max_environments=args.metrics_max_environments,
        notice=lambda text: print(f"envtui {command}: {text}", file=sys.stderr),
    )
    try:
        return state, MetricsServer(state, host, port).start()
    except OSError as exc:
        return fail(command, f"--metrics {host}:{port}: cannot listen: {exc.strerror or exc}")


def dashboard_options(
    args: argparse.Namespace, config: Config, **specific: Any
) -> DashboardOptions:
    """A dashboard's options with what every dashboard takes from ``--theme``, ``--ascii``
    and the config (the theme chosen with ``t`` is remembered), and ``specific`` added."""
    from envtui.settings.ui_state import remembered_theme
    from envtui.tui.options import DashboardOptions

    return DashboardOptions(
        theme=args.theme or remembered_theme() or config.theme,
        remember_theme=True,
        ascii=args.ascii or config.ascii,
        keymap=dict(config.keymap),
        keymap_where=config.keymap_where,
        max_log_lines=config.event_log_lines,
        max_steps=config.step_history,
        **specific,
    )


def end_leftover_processes() -> None:
    """End every process the command started that is still running (the last clean-up step)."""
    from envtui.environments.processes import end_all_started

    end_all_started()


def event_writer(writer: LineWriter, state: MetricsState | None) -> EventSink:
    """Each event as a line of the output, and into the metrics when they are served; after
    a step's findings, the incidents they opened or resolved (``incident_opened``,
    ``incident_resolved``), as the dashboard's fold derives them. A replay derives them
    again from the steps and findings, so it shows the same incidents."""
    from envtui.incidents.fold import IncidentFold
    from envtui.vocabulary.events import encode_event, thread_event
    from envtui.vocabulary.incident_messages import IncidentOpened, IncidentResolved

    fold = IncidentFold()

    def write(event: Event) -> None:
        derived = [
            thread_event(message, at=event.at)
            for message in fold.apply(event)
            if isinstance(message, IncidentOpened | IncidentResolved)
        ]
        for each in (event, *derived):
            writer.write(encode_event(each))
            if state is not None:
                state.event(each)

    return write
