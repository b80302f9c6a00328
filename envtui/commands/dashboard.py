"""The dashboard commands: ``demo`` (also ``envtui`` alone), ``watch``, ``codex``, ``replay``,
``rollout``.

Each command only builds its source (:data:`SOURCE_BUILDERS`); the rest is shared. The
sources and Textual are imported only when one of them runs, so the headless commands stay
light.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
from collections.abc import Callable
from pathlib import Path

from envtui.commands.common import (
    add_codex_environments_argument,
    add_config_argument,
    end_leftover_processes,
    environments_from,
    fail,
    load,
    non_negative,
)
from envtui.config import Config
from envtui.events import EventSink, Source

SourceBuilder = Callable[[argparse.Namespace, Config], Source | int]
"""A command's source from its arguments and the config, or the exit code after an error."""


def _common(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)
    parser.add_argument("--record", metavar="FILE", help="also write every event to FILE (JSONL)")
    parser.add_argument(
        "--theme", metavar="NAME", help="the theme (default: envtui-dark, or the config's)"
    )
    parser.add_argument(
        "--export-dir", metavar="DIR", help="where `e` writes step exports (default: .)"
    )


def add_parsers(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    demo = subparsers.add_parser("demo", help="the dashboard on the embedded demo (no set-up)")
    _common(demo)
    demo.set_defaults(handler=run, mode="demo")
    watch = subparsers.add_parser("watch", help="the dashboard on the configured environments")
    _common(watch)
    add_codex_environments_argument(watch)
    watch.set_defaults(handler=run, mode="watch")
    replay = subparsers.add_parser("replay", help="the dashboard on a recorded JSONL event stream")
    replay.add_argument("file", metavar="FILE")
    replay.add_argument(
        "--speed", type=non_negative, default=1.0, help="replay speed (0: as fast as possible)"
    )
    _common(replay)
    replay.set_defaults(handler=run, mode="replay")
    codex = subparsers.add_parser("codex", help="the dashboard attached to a real codex app-server")
    from envtui.commands.codex import add_codex_arguments

    add_codex_arguments(codex, flag_takes_path=True)
    _common(codex)
    codex.set_defaults(handler=run, mode="codex")
    rollout = subparsers.add_parser("rollout", help="the dashboard on a Codex rollout file")
    rollout.add_argument("file", metavar="FILE")
    rollout.add_argument("--follow", action="store_true", help="keep reading as the file grows")
    _common(rollout)
    rollout.set_defaults(handler=run, mode="rollout")


def _demo(args: argparse.Namespace, config: Config) -> Source | int:
    from envtui.sources.demo import run_demo

    return functools.partial(run_demo, step_interval=config.step_interval)


def _watch(args: argparse.Namespace, config: Config) -> Source | int:
    environments = environments_from(args.mode, args)
    if isinstance(environments, int):
        return environments
    from envtui.sources.live import watch

    return functools.partial(watch, config, environments=environments)


def _codex(args: argparse.Namespace, config: Config) -> Source | int:
    from envtui.commands.codex import codex_options
    from envtui.sources.codex_attach import CodexSource

    attach = codex_options(args.mode, args, args.codex)
    if isinstance(attach, int):
        return attach

    async def source(sink: EventSink, stop: asyncio.Event) -> None:
        await CodexSource(attach, sink).run(stop)

    return source


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


def run(args: argparse.Namespace) -> int:
    command = args.mode
    config = load(command, args)
    if isinstance(config, int):
        return config
    source = SOURCE_BUILDERS[command](args, config)
    if isinstance(source, int):
        return source
    if args.record:
        from envtui.sources.recording import check_record_path, recorded

        problem = check_record_path(Path(args.record))
        if problem is not None:
            return fail(command, f"--record {problem}")
        source = recorded(source, Path(args.record))
    from envtui.tui.app import DashboardOptions, EnvTuiApp

    options = DashboardOptions(
        source_name=f"rollout {Path(args.file).name}" if command == "rollout" else command,
        theme=args.theme or config.theme,
        keymap=dict(config.keymap),
        max_log_lines=config.event_log_lines,
        max_steps=config.step_history,
        export_dir=Path(args.export_dir) if args.export_dir else None,
    )
    try:
        EnvTuiApp(source, options).run()
    finally:
        end_leftover_processes()
    return 0
