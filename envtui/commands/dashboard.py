"""The dashboard commands: ``demo`` (also ``envtui`` alone), ``watch``, ``codex``, ``replay``,
``rollout``.

Each command is a row of :data:`~envtui.commands.dashboard_sources.SOURCES`, which builds
its source and the app on it (``envtui serve`` builds both from there too); running it is
here and the same for all: the metrics, the recording, the terminal.
The sources and Textual are imported only when one of them runs, so the headless commands
stay light.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from envtui.commands.common import end_leftover_processes, metrics_for
from envtui.commands.dashboard_sources import (
    SOURCES,
    add_dashboard_parsers,
    app_for,
    record_problem,
    source_for,
)
from envtui.commands.output import fail, needs_terminal

if TYPE_CHECKING:  # the config and event models load when a command runs, not for --help
    from envtui.settings.config import Config
    from envtui.vocabulary.answers import Answers
    from envtui.vocabulary.events import Source


def add_parsers(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    add_dashboard_parsers(subparsers, handler=run)


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
