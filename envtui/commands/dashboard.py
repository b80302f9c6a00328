"""The dashboard commands: ``demo`` (also ``envtui`` alone), ``watch``, ``codex``, ``replay``,
``rollout``.

Each command only builds its source (:data:`SOURCE_BUILDERS`); the rest is shared. The
sources and Textual are imported only when one of them runs, so the headless commands stay
light.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from envtui.commands.common import (
    add_codex_environments_argument,
    add_config_argument,
    end_leftover_processes,
    environments_from,
    load,
    number,
)
from envtui.commands.metrics_options import add_metrics_arguments, metrics_for
from envtui.commands.output import fail
from envtui.settings.locations import export_dir
from envtui.settings.ui_state import remembered_theme

if TYPE_CHECKING:  # the config and event models load when a command runs, not for --help
    from envtui.settings.alerts_config import AlertsConfig
    from envtui.settings.config import Config
    from envtui.vocabulary.events import Source
    from envtui.vocabulary.thread_messages import RequestAnswered

SourceBuilder = Callable[[argparse.Namespace, "Config"], "Source | int"]
"""A command's source from its arguments and the config, or the exit code after an error."""


def _common(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)
    parser.add_argument(
        "--record",
        metavar="FILE",
        help="also write every event to FILE as JSONL; an existing FILE is refused "
        "unless --append or --force",
    )
    keep = parser.add_mutually_exclusive_group()
    keep.add_argument(
        "--append", action="store_true", help="with --record: add to an existing FILE"
    )
    keep.add_argument(
        "--force", action="store_true", help="with --record: overwrite an existing FILE"
    )
    parser.add_argument(
        "--theme",
        metavar="NAME",
        help="the theme (default: the last one chosen with t, else the config's, else envtui-dark)",
    )
    parser.add_argument(
        "--export-dir",
        metavar="DIR",
        help="where `e` writes step exports (default: the exports folder `envtui info` names)",
    )
    parser.add_argument(
        "--utc", action="store_true", help="show every time in UTC (default: the local zone)"
    )
    parser.add_argument(
        "--ascii",
        action="store_true",
        help="draw every glyph in ASCII, for terminals and fonts without them (also "
        "`ascii = true` in the config)",
    )
    alerts = parser.add_argument_group("alerts (also [alerts] in the config; not on replays)")
    alerts.add_argument(
        "--bell", action="store_true", help="ring the terminal bell on a new incident or outage"
    )
    alerts.add_argument(
        "--notify",
        action="store_true",
        help="a toast and a desktop notification (OSC 9) on each new or resolved incident",
    )
    alerts.add_argument(
        "--alert-command",
        metavar="CMD",
        help="run CMD (split like a shell would, but no shell runs it) with a JSON object on "
        "its standard input for each burst of alerts",
    )


DESCRIPTIONS = {
    "demo": "The dashboard on the embedded demo: in-process SSH servers on 127.0.0.1 with "
    "environments that start slowly, drop, go away, never finish starting or present a wrong "
    "host key. Needs no set-up; `envtui` alone runs it.",
    "watch": "The dashboard on the configured environments (the config's, or Codex's "
    "environments.toml with --codex-environments): their live status, the primary, the "
    "connection events, and a step every step_interval seconds.",
    "replay": "The dashboard on a recorded JSONL event stream (from --record or `envtui "
    "events`), paced by the events' own times.",
    "codex": "The dashboard attached to a real `codex app-server` (started here, or on an SSH "
    "host with --ssh): the thread's environments, their connection events, and the steps of "
    "its rollout.",
    "rollout": "The dashboard on a Codex rollout file: each step's context, tools and "
    "findings; with --follow, new steps as the file grows.",
}


def add_parsers(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    def add(name: str, summary: str) -> argparse.ArgumentParser:
        parser = subparsers.add_parser(name, help=summary, description=DESCRIPTIONS[name])
        parser.set_defaults(handler=run, mode=name)
        return parser

    demo = add("demo", "the dashboard on the embedded demo (no set-up)")
    _common(demo)
    watch = add("watch", "the dashboard on the configured environments")
    _common(watch)
    add_codex_environments_argument(watch)
    add_metrics_arguments(watch)
    replay = add("replay", "the dashboard on a recorded JSONL event stream")
    replay.add_argument("file", metavar="FILE", help="a JSONL event stream envtui recorded")
    replay.add_argument(
        "--speed",
        type=number(float, low=0, meaning="0 replays as fast as possible"),
        default=1.0,
        help="replay speed: 2 is twice as fast, 0 as fast as possible",
    )
    _common(replay)
    codex = add("codex", "the dashboard attached to a real codex app-server")
    from envtui.commands.codex import add_codex_arguments

    add_codex_arguments(codex, flag_takes_path=True)
    _common(codex)
    add_metrics_arguments(codex)
    rollout = add("rollout", "the dashboard on a Codex rollout file")
    rollout.add_argument(
        "file", metavar="FILE", help="a Codex rollout (CODEX_HOME/sessions/…/rollout-*.jsonl)"
    )
    rollout.add_argument("--follow", action="store_true", help="keep reading as the file grows")
    _common(rollout)


def _demo(args: argparse.Namespace, config: Config) -> Source | int:
    from envtui.sources.demo import run_demo

    return functools.partial(run_demo, step_interval=config.step_interval)


def _watch(args: argparse.Namespace, config: Config) -> Source | int:
    environments = environments_from(args.mode, args)
    if isinstance(environments, int):
        return environments
    from envtui.sources.engine import watch

    return functools.partial(watch, config, environments=environments)


def _codex(args: argparse.Namespace, config: Config) -> Source | int:
    from envtui.commands.codex import codex_options
    from envtui.sources.codex_attach import OperatedCodex

    attach = codex_options(args.mode, args, args.codex)
    if isinstance(attach, int):
        return attach
    # an operator's dashboard outlives the app-server (it is started again and resumed), and
    # answers what Codex asks
    return OperatedCodex(attach)


def _file_problem(path: Path) -> str | None:
    """Why ``path`` cannot be replayed or followed: missing, or not a regular file (a FIFO
    or a device would be read for ever)."""
    if not path.exists():
        return "no such file"
    return None if path.is_file() else "not a regular file"


def _replay(args: argparse.Namespace, config: Config) -> Source | int:
    problem = _file_problem(Path(args.file))
    if problem is not None:
        return fail(args.mode, f"{args.file}: {problem}")
    from envtui.sources.replay import replay

    return functools.partial(replay, Path(args.file), speed=args.speed)


def _rollout(args: argparse.Namespace, config: Config) -> Source | int:
    problem = _file_problem(Path(args.file))
    if problem is not None:
        return fail(args.mode, f"{args.file}: {problem}")
    from envtui.sources.rollout_follow import follow_rollout

    return functools.partial(follow_rollout, Path(args.file), follow=args.follow)


SOURCE_BUILDERS: dict[str, SourceBuilder] = {
    "demo": _demo,
    "watch": _watch,
    "codex": _codex,
    "replay": _replay,
    "rollout": _rollout,
}
"""Each dashboard command's source, by the ``mode`` its parser sets."""


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
    source = SOURCE_BUILDERS[args.mode](args, config)
    return source if isinstance(source, int) else (config, source)


def run(args: argparse.Namespace) -> int:
    command = args.mode
    prepared = source_for(args)
    if isinstance(prepared, int):
        return prepared
    config, source = prepared
    answer = getattr(source, "answer", None)  # the operator's answers, before any wrapping
    served = metrics_for(command, args) if command in ("watch", "codex") else None
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
        return _run_app(args, config, source, answer)
    finally:
        if served is not None:
            served[1].close()


def _run_app(
    args: argparse.Namespace,
    config: Config,
    source: Source,
    answer: Callable[[RequestAnswered], str | None] | None = None,
) -> int:
    command = args.mode
    from datetime import UTC

    from envtui.tui.app import DashboardOptions, EnvTuiApp

    options = DashboardOptions(
        source_name=f"rollout {Path(args.file).name}" if command == "rollout" else command,
        theme=args.theme or remembered_theme() or config.theme,
        remember_theme=True,
        ascii=args.ascii or config.ascii,
        keymap=dict(config.keymap),
        max_log_lines=config.event_log_lines,
        max_steps=config.step_history,
        environment_events=config.environment_events,
        status_history=config.status_history,
        alerts=alerts_for(args, config),
        zone=UTC if args.utc else None,
        export_dir=Path(args.export_dir) if args.export_dir else export_dir(),
        answer=answer,
    )
    try:
        EnvTuiApp(source, options).run()
    finally:
        end_leftover_processes()
    return 0


def alerts_for(args: argparse.Namespace, config: Config) -> AlertsConfig | None:
    """The config's ``[alerts]`` with the flags added; None for a replay or a rollout read
    once, which show the past (nobody needs a bell for an incident of last week)."""
    if args.mode == "replay" or (args.mode == "rollout" and not args.follow):
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
