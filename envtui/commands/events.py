"""``envtui events``: run the configured environments and write their events as JSONL.

It runs until ``--duration`` ends or Ctrl+C (SIGINT) or SIGTERM; either way the shutdown is
clean: every connection and child process is closed before it exits.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from typing import IO, TYPE_CHECKING

from envtui.commands.common import (
    add_codex_environments_argument,
    add_config_argument,
    engine_for,
    fail,
    number,
)
from envtui.commands.metrics_options import add_metrics_arguments, metrics_for
from envtui.events import Event, EventSink, encode_event
from envtui.stopping import stop_on_signals, wait_for_stop

if TYPE_CHECKING:  # the runtime (and asyncssh) loads only when the command runs
    from envtui.sources.engine import Engine
    from envtui.sources.metrics_state import MetricsState

COMMAND = "events"


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        COMMAND,
        help="write the environments' event stream as JSONL",
        description="Run the configured environments and write every event as one JSON line "
        "(to standard output, or --out, which is truncated) until --duration ends or Ctrl+C.",
    )
    add_config_argument(parser)
    add_codex_environments_argument(parser)
    parser.add_argument(
        "--duration",
        type=number(float, low=0),
        metavar="S",
        help="stop after S seconds (default: run until Ctrl+C)",
    )
    parser.add_argument("--out", metavar="FILE", help="write to FILE instead of standard output")
    parser.add_argument(
        "--codex",
        nargs="?",
        const="",
        metavar="PATH",
        help="attach to a codex app-server instead (PATH: the binary; "
        "default $ENVTUI_CODEX, then PATH)",
    )
    from envtui.commands.codex import add_codex_arguments

    add_codex_arguments(parser, flag_takes_path=False)
    add_metrics_arguments(parser)
    parser.set_defaults(handler=run)


class _LineWriter:
    """Writes each event as it comes, so a reader following the stream sees it at once."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream

    def __call__(self, event: Event) -> None:
        self._stream.write((encode_event(event) + "\n").encode("utf-8"))
        self._stream.flush()


async def stream_events(engine: Engine, duration: float | None) -> None:
    stop = asyncio.Event()
    with stop_on_signals(stop):
        engine.start()
        try:
            if duration is None:
                await stop.wait()
            else:
                await wait_for_stop(stop, duration)
        finally:
            await engine.aclose()


def run(args: argparse.Namespace) -> int:
    """Either source, with ``--metrics`` served for as long as it runs."""
    forward = _Forward()
    built = None if args.codex is not None else engine_for(COMMAND, args, forward)
    if isinstance(built, int):
        return built  # a bad config fails before anything listens or is truncated
    served = metrics_for(COMMAND, args)
    if isinstance(served, int):
        return served
    state = served[0] if served is not None else None
    try:
        if built is None:
            return _run_codex(args, state)
        return _run_engine(args, built[1], forward, state)
    finally:
        if served is not None:
            served[1].close()


def _run_engine(
    args: argparse.Namespace, engine: Engine, forward: _Forward, state: MetricsState | None
) -> int:
    try:
        out: IO[bytes] = open(args.out, "wb") if args.out else sys.stdout.buffer  # noqa: SIM115
    except OSError as exc:
        return fail(COMMAND, f"{args.out}: cannot write: {exc.strerror or exc}")
    writer: EventSink = _LineWriter(out)
    forward.target = writer if state is None else _tee(writer, state.event)
    if state is not None:
        state.source_up("engine", True)
    try:
        asyncio.run(stream_events(engine, args.duration))
    finally:
        if state is not None:
            state.source_up("engine", False)
        if out is not sys.stdout.buffer:
            out.close()
    return 0


def _tee(first: EventSink, second: EventSink) -> EventSink:
    def both(event: Event) -> None:
        first(event)
        second(event)

    return both


class _Forward:
    """The engine's sink, pointed at the output once it is open."""

    def __init__(self) -> None:
        self.target: EventSink | None = None

    def __call__(self, event: Event) -> None:
        if self.target is not None:
            self.target(event)


def _run_codex(args: argparse.Namespace, state: MetricsState | None) -> int:
    """Exit 0 at the end of --duration or on Ctrl+C, 1 when the app-server failed, 2 on bad
    input."""
    from envtui.commands.codex import codex_options
    from envtui.sources.codex_attach import CodexError, CodexSource

    options = codex_options(COMMAND, args, args.codex or None)
    if isinstance(options, int):
        return options
    try:
        out: IO[bytes] = open(args.out, "wb") if args.out else sys.stdout.buffer  # noqa: SIM115
    except OSError as exc:
        return fail(COMMAND, f"{args.out}: cannot write: {exc.strerror or exc}")
    writer: EventSink = _LineWriter(out)
    source = CodexSource(options, writer if state is None else _tee(writer, state.event))
    if state is not None:
        state.source_up("codex", True)
    try:
        died = asyncio.run(_attach(source, args.duration))
    except CodexError as exc:
        print(f"envtui {COMMAND}: {exc}", file=sys.stderr)
        return 1
    finally:
        if state is not None:
            state.source_up("codex", False)
        if out is not sys.stdout.buffer:
            out.close()
    return 1 if died else 0


async def _attach(source: object, duration: float | None) -> bool:
    """Run until the duration ends or a signal; True when the app-server died on its own."""
    from envtui.sources.codex_attach import CodexSource

    assert isinstance(source, CodexSource)
    stop = asyncio.Event()
    with stop_on_signals(stop):
        task = asyncio.ensure_future(source.run(stop))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(task), timeout=duration)
        stop.set()
        await task
    return source.died
