"""The dashboard's sources, one row each: a new source is a row of :data:`SOURCES`.

A row is a dashboard command: what ``--help`` says of it, its options, and how its source
is built from the parsed arguments and the config; then the app on it, the same for all
(:mod:`envtui.commands.dashboard` runs it in a terminal, ``envtui serve`` once per browser
tab), with the parts that do I/O for it built here and handed in (the dashboard only holds
them): the alert command and the bookkeeping of the processes a run starts. Building a
source starts nothing; the sources themselves, with asyncio and the
runtime, are imported by the builders when a command runs.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from envtui.commands.common import dashboard_options, environments_from, load
from envtui.commands.options import (
    CODEX,
    CODEX_BINARY,
    CODEX_ENVIRONMENTS,
    DASHBOARD,
    METRICS,
    Arg,
    Command,
    Group,
    number,
    switch,
)
from envtui.commands.output import fail
from envtui.settings.locations import export_dir

if TYPE_CHECKING:  # the config and event models load when a command runs, not for --help
    import asyncio

    from envtui.environments.processes import ProcessTree
    from envtui.settings.alerts_config import AlertsConfig
    from envtui.settings.config import Config
    from envtui.sources.alerts import AlertCommand
    from envtui.tui.app import DriverClass, EnvTuiApp
    from envtui.tui.options import AlertCommandFactory
    from envtui.vocabulary.answers import Answers
    from envtui.vocabulary.events import EventSink, Source
    from envtui.vocabulary.thread_messages import RequestAnswered

SourceBuilder = Callable[[argparse.Namespace, "Config"], "Source | int"]
"""A command's source from its arguments and the config, or the exit code after an error."""


def _never(args: argparse.Namespace) -> bool:
    return False


def _titled_by_command(args: argparse.Namespace) -> str:
    return str(args.mode)


@dataclass(frozen=True)
class DashboardSource(Command):
    """A dashboard command and how its source is built."""

    build: SourceBuilder
    past: Callable[[argparse.Namespace], bool] = _never
    """Whether the source shows only the past (then it has no alerts)."""
    title: Callable[[argparse.Namespace], str] = _titled_by_command
    """The source's name in the dashboard's header."""
    headless: str = "`envtui events`"
    """What to run instead where there is no terminal (a pipe, a file, CI)."""


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
    from envtui.commands.codex_options import codex_options, daemon_options, own_app_server

    if not own_app_server(args):
        from envtui.sources.daemon.attach import DaemonSource

        daemon = daemon_options(args.mode, args, config.codex_profile)
        return daemon if isinstance(daemon, int) else DaemonSource(daemon)
    from envtui.sources.codex_attach import OperatedCodex

    attach = codex_options(args.mode, args, args.codex)
    if isinstance(attach, int):
        return attach
    # an operator's dashboard outlives the app-server (it is started again and resumed), and
    # answers what Codex asks
    return OperatedCodex(attach)


def _codex_title(args: argparse.Namespace) -> str:
    from envtui.commands.codex_options import codex_title

    return codex_title(args)


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

    replayed = functools.partial(replay, Path(args.file), speed=args.speed, follow=args.follow)
    if args.answers is None:
        return replayed
    from envtui.commands.serve.shared_answers import AnswerRelay

    return Answering(replayed, AnswerRelay(Path(args.answers)))


@dataclass(frozen=True)
class Answering:
    """A source with a way to answer what Codex asks: a served tab's replay, whose
    answers go to the server (:mod:`envtui.commands.serve.shared_answers`)."""

    source: Source
    answer: Callable[[RequestAnswered], str | None]

    async def __call__(self, sink: EventSink, stop: asyncio.Event) -> None:
        await self.source(sink, stop)


HEAD_LINE_BYTES = 1 << 23
"""A line of the head read to tell a rollout longer than this is read in pieces (a
``session_meta`` with its instructions is tens of KiB)."""


def _rollout_problem(path: Path, *, follow: bool) -> str | None:
    """Why ``path`` is no rollout to open: missing, not a regular file, or no rollout item
    in its head. An empty file is fine to follow (Codex has just created it)."""
    from envtui.rollout.reader import not_a_rollout

    problem = _file_problem(path)
    if problem is not None:
        return problem
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            problem = not_a_rollout(iter(lambda: handle.readline(HEAD_LINE_BYTES), ""))
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    if follow and problem is not None and path.stat().st_size == 0:
        return None
    return problem


def _rollout(args: argparse.Namespace, config: Config) -> Source | int:
    problem = _rollout_problem(Path(args.file), follow=args.follow)
    if problem is not None:
        return fail(args.mode, f"{args.file}: {problem}")
    from envtui.sources.rollout_follow import follow_rollout

    return functools.partial(follow_rollout, Path(args.file), follow=args.follow)


SOURCES: dict[str, DashboardSource] = {
    source.name: source
    for source in (
        DashboardSource(
            "demo",
            description="The dashboard on the embedded demo: in-process SSH servers on "
            "127.0.0.1 with environments that start slowly, drop, go away, never finish "
            "starting or present a wrong host key. Needs no set-up; `envtui` alone runs it.",
            options=DASHBOARD,
            build=_demo,
        ),
        DashboardSource(
            "watch",
            description="The dashboard on the configured environments (the config's, or "
            "Codex's environments.toml with --codex-environments): their live status, the "
            "primary, the connection events, and a step every step_interval seconds.",
            options=Group(DASHBOARD, CODEX_ENVIRONMENTS, METRICS),
            build=_watch,
        ),
        DashboardSource(
            "replay",
            description="The dashboard on a recorded JSONL event stream (from --record or "
            "`envtui events`), paced by the events' own times; with --follow, what is "
            "written to it next, as it is written.",
            options=Group(
                Arg("file", metavar="FILE", help="a JSONL event stream envtui recorded"),
                Arg(
                    "--speed",
                    type=number(float, low=0, meaning="0 replays as fast as possible"),
                    default=1.0,
                    help="replay speed: 2 is twice as fast, 0 as fast as possible",
                ),
                switch("--follow", "then keep reading what is appended (`envtui events --out`)"),
                Arg("--title", help=argparse.SUPPRESS),  # what `envtui serve` serves
                Arg("--answers", help=argparse.SUPPRESS),  # where a served tab's answers go
                DASHBOARD,
            ),
            build=_replay,
            past=lambda args: True,
            title=lambda args: args.title or "replay",
            headless="the file itself (it is the JSONL event stream)",
        ),
        DashboardSource(
            "codex",
            description="The dashboard attached to a real Codex. By default it attaches to the "
            "app-server daemon of CODEX_HOME, as `codex` does (--remote ADDR: another server): "
            "every thread with its live status, what a waiting thread asks (answered through "
            "the daemon), and one thread's steps (--thread ID, else the first waiting or "
            "loaded one). envtui never starts a daemon: when none runs it says so (`codex "
            "app-server daemon start` starts one). --no-daemon (implied by --codex PATH, "
            "--cwd, --prompt, --enable and --ssh) starts an app-server of envtui's own "
            "instead, here or on an SSH host: its thread's environments, their connection "
            "events, and the steps of its rollout. The option names follow Codex's own "
            "(--remote, --no-daemon, --remote-auth-token-env).",
            options=Group(CODEX_BINARY, CODEX, DASHBOARD, METRICS),
            build=_codex,
            title=_codex_title,
            headless="`envtui events --codex`",
        ),
        DashboardSource(
            "rollout",
            description="The dashboard on a Codex rollout file: each step's context, tools "
            "and findings; with --follow, new steps as the file grows.",
            options=Group(
                Arg(
                    "file",
                    metavar="FILE",
                    help="a Codex rollout (CODEX_HOME/sessions/…/rollout-*.jsonl)",
                ),
                switch("--follow", "keep reading as the file grows"),
                DASHBOARD,
            ),
            build=_rollout,
            past=lambda args: not args.follow,
            title=lambda args: f"rollout {Path(args.file).name}",
            headless="`envtui check`",
        ),
    )
}
"""Each dashboard command, by the ``mode`` its parser sets, in ``envtui --help``'s order."""


def add_dashboard_parsers(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    handler: Callable[[argparse.Namespace], int] | None = None,
) -> None:
    """A parser per row of :data:`SOURCES`; ``envtui serve`` adds them (with no handler) to
    check the command it serves."""
    for source in SOURCES.values():
        source.add_to(subparsers, handler=handler, mode=source.name)


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

    from envtui.tui.app import EnvTuiApp
    from envtui.vocabulary.thread_choices import thread_choices_of

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
        threads=thread_choices_of(answers),
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


def alert_command(settings: AlertsConfig, report: Callable[[str], None]) -> AlertCommand:
    """The command of ``settings`` (which names one), its problems said to ``report``."""
    from envtui.sources.alerts import AlertCommand

    return AlertCommand(
        settings.command, report, timeout=settings.timeout, coalesce=settings.coalesce
    )


def alert_command_for(settings: AlertsConfig | None) -> AlertCommandFactory | None:
    """How a dashboard builds its alert command, or None when ``settings`` names none."""
    if settings is None or not settings.command:
        return None
    return lambda report: alert_command(settings, report)


class RunProcesses:
    """The processes a dashboard's run started (see :mod:`envtui.environments.processes`):
    those started after :meth:`mark` end as it quits, so a dashboard run in-process (a
    served tab) leaves nothing; :meth:`end_all` is the last resort of a stuck quit."""

    def __init__(self) -> None:
        self._before: frozenset[ProcessTree] = frozenset()

    def mark(self) -> None:
        from envtui.environments.processes import started_trees

        self._before = frozenset(started_trees())

    def end_new(self) -> None:
        from envtui.environments.processes import end_started_since

        end_started_since(self._before)

    def end_all(self) -> None:
        from envtui.environments.processes import end_all_started

        end_all_started()
