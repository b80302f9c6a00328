"""The dashboard commands: ``demo`` (also ``envtui`` alone), ``watch``, ``codex``, ``replay``,
``rollout``.

Each command is a row of :data:`~envtui.commands.dashboard_sources.SOURCES`, which builds
its source; the rest is here and the same for all: the metrics, the recording, the app.
The sources and Textual are imported only when one of them runs, so the headless commands
stay light.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from envtui.commands.common import dashboard_options, end_leftover_processes, load, metrics_for
from envtui.commands.dashboard_sources import SOURCES
from envtui.commands.output import fail, needs_terminal
from envtui.settings.locations import export_dir

if TYPE_CHECKING:  # the config and event models load when a command runs, not for --help
    from envtui.settings.alerts_config import AlertsConfig
    from envtui.settings.config import Config
    from envtui.tui.app import DriverClass, EnvTuiApp
    from envtui.vocabulary.answers import Answers
    from envtui.vocabulary.events import Source


def add_parsers(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    for source in SOURCES.values():
        source.add_to(subparsers, handler=run, mode=source.name)


def record_problem(path: Path, *, append: bool, force: bool) -> str | None:
    """Why ``--record path`` cannot be used as given, checked before the screen opens.

    A recording is evidence: an existing file is never replaced by accident. (A device such
    as ``/dev/null`` is no file to lose; where the folder is missing or the path cannot be
    written, :func:`~envtui.sources.recording.check_record_path` says so next.)
    """
    if path.is_file() and not (append or force):
        return f"--record {path}: the file exists; --append adds to it, --force replaces it"
    return None


def source_for(args: argparse.Namespace) -> tuple[Config, Source] | int:
    """The config and the command's source, or the exit code after an error.

    Building a source starts nothing, so ``envtui serve`` calls this to check a dashboard
    command before it serves it.
    """
    config = load(args.mode, args)
    if isinstance(config, int):
        return config
    source = SOURCES[args.mode].build(args, config)
    return source if isinstance(source, int) else (config, source)


def run(args: argparse.Namespace) -> int:
    command = args.mode
    prepared = source_for(args)
    if isinstance(prepared, int):
        return prepared
    config, source = prepared
    from envtui.vocabulary.answers import answers_of

    answers = answers_of(source)  # the operator's answers, before any wrapping
    served = metrics_for(command, args) if "metrics" in args else None  # its options hold METRICS
    if isinstance(served, int):
        return served
    if served is not None:
        from envtui.sources.metrics_server import with_metrics

        source = with_metrics(source, served[0], command)
    if args.record:  # outermost, so the dashboard can record what the operator does
        problem = record_problem(Path(args.record), append=args.append, force=args.force)
        if problem is None:
            from envtui.sources.recording import check_record_path, recorded

            unwritable = check_record_path(Path(args.record))
            problem = None if unwritable is None else f"--record {unwritable}"
        if problem is not None:
            if served is not None:
                served[1].close()
            return fail(command, problem)
        source = recorded(source, Path(args.record), append=args.append)
    try:
        refused = needs_terminal(command, SOURCES[command].headless)  # after the input's errors
        return refused if refused is not None else _run_app(args, config, source, answers)
    finally:
        if served is not None:
            served[1].close()


def _run_app(
    args: argparse.Namespace,
    config: Config,
    source: Source,
    answers: Answers | None = None,
) -> int:
    try:
        app_for(args, config, source, answers).run()
    finally:
        end_leftover_processes()
    return 0


def app_for(
    args: argparse.Namespace,
    config: Config,
    source: Source,
    answers: Answers | None = None,
    driver_class: DriverClass | None = None,
) -> EnvTuiApp:
    """The dashboard of a command on its source, drawn by ``driver_class`` (None: in the
    terminal); ``envtui serve`` makes one per browser tab."""
    from datetime import UTC

    from envtui.commands.run_parts import RunProcesses, alert_command_for
    from envtui.tui.app import EnvTuiApp

    alerts = alerts_for(args, config)
    options = dashboard_options(
        args,
        config,
        source_name=SOURCES[args.mode].title(args),
        environment_events=config.environment_events,
        status_history=config.status_history,
        alerts=alerts,
        alert_command=alert_command_for(alerts),
        zone=UTC if args.utc else None,
        export_dir=Path(args.export_dir) if args.export_dir else export_dir(),
        answers=answers,
        processes=RunProcesses(),
    )
    return EnvTuiApp(source, options, driver_class=driver_class)


def alerts_for(args: argparse.Namespace, config: Config) -> AlertsConfig | None:
    """The config's ``[alerts]`` with the flags added; None for a replay or a rollout read
    once, which show the past (nobody needs a bell for an incident of last week)."""
    if SOURCES[args.mode].past(args):
        return None
    import shlex

    update: dict[str, object] = {}
    if args.bell:
        update["bell"] = True
    if args.notify:
        update["notify"] = True
    if args.alert_command:
        update["command"] = shlex.split(args.alert_command)
    return config.alerts.model_copy(update=update)
