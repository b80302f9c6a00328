"""``envtui events``: run the configured environments and write their events as JSONL.

It runs until ``--duration`` ends, Ctrl+C (SIGINT), SIGTERM or SIGHUP; either way the
shutdown is clean and bounded: every connection and child process is closed before it
exits. A failed write (a full disk) ends it too, with exit 1 and the reason.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from envtui.commands.common import (
    CLOSE_TIMEOUT,
    end_leftover_processes,
    engine_for,
    event_writer,
    load,
    metrics_for,
)
from envtui.commands.options import CODEX, ENVIRONMENTS, METRICS, Arg, Command, Group, seconds
from envtui.commands.output import error_line, fail
from envtui.sources.line_writer import LineWriter

if TYPE_CHECKING:  # the models and the runtime (and asyncssh) load when the command runs
    import asyncio
    from collections.abc import Awaitable, Callable

    from envtui.sources.engine import Engine
    from envtui.sources.metrics_state import MetricsState
    from envtui.vocabulary.events import Event, EventSink

COMMAND = "events"
EVENTS = Command(
    COMMAND,
    description="Run the configured environments and write every event as one JSON line "
    "(to standard output, or --out, which is truncated) until --duration ends or Ctrl+C.",
    options=Group(
        ENVIRONMENTS,
        seconds("--duration", "stop after S seconds (default: run until Ctrl+C)"),
        Arg("--out", metavar="FILE", help="write to FILE instead of standard output"),
        Arg(
            "--codex",
            nargs="?",
            const="",
            metavar="PATH",
            help="attach to a codex app-server instead (PATH: the binary; "
            "default $ENVTUI_CODEX, then PATH)",
        ),
        CODEX,
        METRICS,
    ),
)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    EVENTS.add_to(subparsers, handler=run)


async def stream_events(engine: Engine, duration: float | None, writer: LineWriter) -> None:
    """Run until ``duration`` ends, a signal, or the output fails; then close, bounded."""
    import asyncio

    from envtui.vocabulary.stopping import CLEANUP_GRACE, stop_on_signals, wait_for_stop, within

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    writer.on_failure = lambda _reason: loop.call_soon_threadsafe(stop.set)
    try:
        with stop_on_signals(stop):
            engine.start()
            if duration is None:
                await stop.wait()
            else:
                await wait_for_stop(stop, duration)
    finally:  # outside the handlers: a second signal while closing ends the process at once
        await within(CLEANUP_GRACE, engine.aclose())


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
            from envtui.commands.codex_options import own_app_server

            if not own_app_server(args):
                return _run_daemon(args, state)
            return _run_codex(args, state)
        return _run_engine(args, built[1], forward, state)
    finally:
        if served is not None:
            served[1].close()


def _run_engine(
    args: argparse.Namespace, engine: Engine, forward: _Forward, state: MetricsState | None
) -> int:
    from envtui.vocabulary.stopping import run_bounded

    writer = _open(args.out)
    if isinstance(writer, int):
        return writer
    forward.target = event_writer(writer, state)
    if state is not None:
        state.source_up("engine", True)
    try:
        run_bounded(stream_events(engine, args.duration, writer))
    finally:
        end_leftover_processes()
        if state is not None:
            state.source_up("engine", False)
    return _finish(writer)


def _open(path: str | None) -> LineWriter | int:
    """The output (``--out`` or standard output), or the exit code after an error (2 for a
    path that cannot be written, 1 for a standard output that is closed, like every other
    command)."""
    try:
        return LineWriter.open(path) if path else LineWriter.stdout()
    except OSError as exc:
        if path:  # a path that cannot be written: bad input
            return fail(COMMAND, f"{path}: cannot write: {exc.strerror or exc}")
        error_line(f"envtui {COMMAND}: error: standard output: cannot write: {exc.strerror}")
        return 1


def _finish(writer: LineWriter, code: int = 0) -> int:
    """Close the output: ``code``, or 1 with the reason when the events could not be written."""
    complete = writer.close(CLOSE_TIMEOUT)
    if writer.failure is not None:
        error_line(f"envtui {COMMAND}: error: {writer.failure}")
        return 1
    if not complete:
        error_line(f"envtui {COMMAND}: error: {writer.name}: the output is blocked; stopped")
        return 1
    return code


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
    from envtui.commands.codex_options import codex_options
    from envtui.sources.codex_attach import CodexError, CodexSource
    from envtui.vocabulary.stopping import run_bounded

    options = codex_options(COMMAND, args, args.codex or None)
    if isinstance(options, int):
        return options
    writer = _open(args.out)
    if isinstance(writer, int):
        return writer
    source = CodexSource(options, event_writer(writer, state))
    if state is not None:
        state.source_up("codex", True)
    try:
        died = run_bounded(_attach(source, args.duration, writer))
    except CodexError as exc:
        error_line(f"envtui {COMMAND}: {exc}")
        return _finish(writer, 1)
    finally:
        end_leftover_processes()
        if state is not None:
            state.source_up("codex", False)
    if died:
        error_line(f"envtui {COMMAND}: {source.death}")
    return _finish(writer, 1 if died else 0)


def _run_daemon(args: argparse.Namespace, state: MetricsState | None) -> int:
    """Every thread of the daemon as JSONL; exit 0 at the end of --duration or on Ctrl+C (a
    daemon that goes away is said in the stream and tried again), 2 on bad input."""

    from envtui.commands.codex_options import daemon_options
    from envtui.sources.daemon.attach import DaemonSource
    from envtui.vocabulary.stopping import run_bounded

    config = load(COMMAND, args)  # its profile: a Codex without a daemon is said so
    if isinstance(config, int):
        return config
    options = daemon_options(COMMAND, args, config.codex_profile)
    if isinstance(options, int):
        return options
    writer = _open(args.out)
    if isinstance(writer, int):
        return writer
    source = DaemonSource(options)
    if state is not None:
        state.source_up("codex", True)
    try:
        run_bounded(
            _watch(
                lambda stop: source.run(event_writer(writer, state), stop), args.duration, writer
            )
        )
    finally:
        if state is not None:
            state.source_up("codex", False)
    return _finish(writer)


async def _watch(
    run: Callable[[asyncio.Event], Awaitable[None]], duration: float | None, writer: LineWriter
) -> None:
    """Run until the duration ends, a signal, or the output fails; then end, bounded."""
    import asyncio

    from envtui.vocabulary.stopping import CLEANUP_GRACE, stop_on_signals

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    writer.on_failure = lambda _reason: loop.call_soon_threadsafe(stop.set)
    with stop_on_signals(stop):
        task = asyncio.ensure_future(run(stop))
        await asyncio.wait({task}, timeout=duration)
        stop.set()
    await asyncio.wait({task}, timeout=CLEANUP_GRACE)


async def _attach(source: object, duration: float | None, writer: LineWriter) -> bool:
    """Run until the duration ends, a signal, or the output fails; True when the app-server
    died on its own."""
    import asyncio

    from envtui.sources.codex_attach import CodexSource
    from envtui.vocabulary.stopping import CLEANUP_GRACE, stop_on_signals

    assert isinstance(source, CodexSource)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    writer.on_failure = lambda _reason: loop.call_soon_threadsafe(stop.set)
    with stop_on_signals(stop):
        task = asyncio.ensure_future(source.run(stop))
        await asyncio.wait({task}, timeout=duration)
        stop.set()
    # outside the handlers: the source closes the app-server, bounded; a second signal now
    # ends the process at once
    done, _ = await asyncio.wait({task}, timeout=CLEANUP_GRACE)
    if task in done:
        task.result()  # a CodexError when the app-server could not start
    return source.died
