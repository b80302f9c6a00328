"""The dashboard commands: ``demo`` (also ``envtui`` alone), ``watch``, ``replay``, ``rollout``.

Textual is imported only when one of them runs, so the headless commands stay light.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
from pathlib import Path
from typing import Any

from envtui.commands.common import (
    CONFIG_ERRORS,
    add_codex_environments_argument,
    add_config_argument,
    environments_from,
    fail,
    load,
)


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
        "--speed", type=float, default=1.0, help="replay speed (0: as fast as possible)"
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


def run(args: argparse.Namespace) -> int:
    command = args.mode
    config = load(command, args)
    if isinstance(config, int):
        return config
    source: Any
    if command == "demo":
        from envtui.sources.demo import run_demo

        source = functools.partial(run_demo, step_interval=config.step_interval)
    elif command == "watch":
        environments = environments_from(command, args)
        if isinstance(environments, int):
            return environments
        from envtui.sources.engine import Engine
        from envtui.sources.live import LiveRun

        try:
            Engine(
                config, lambda event: None, environments=environments
            )  # validate before the screen
        except CONFIG_ERRORS as exc:
            return fail(command, str(exc))

        async def source(sink: Any, stop: asyncio.Event) -> None:
            engine = Engine(config, sink, environments=environments)
            await LiveRun(engine, sink, step_interval=config.step_interval).run(stop)
    elif command == "codex":
        from envtui.commands.codex import codex_options
        from envtui.sources.codex import CodexSource

        attach = codex_options(command, args, args.codex)
        if isinstance(attach, int):
            return attach

        async def source(sink: Any, stop: asyncio.Event) -> None:
            await CodexSource(attach, sink).run(stop)
    elif command == "replay":
        if not Path(args.file).is_file():
            return fail(command, f"{args.file}: no such file")
        from envtui.sources.replay import replay

        source = functools.partial(replay, Path(args.file), speed=args.speed)
    else:
        if not Path(args.file).is_file():
            return fail(command, f"{args.file}: no such file")
        from envtui.sources.rollout_source import follow_rollout

        source = functools.partial(follow_rollout, Path(args.file), follow=args.follow)
    if args.record:
        from envtui.sources.recording import recorded

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
    EnvTuiApp(source, options).run()
    return 0
