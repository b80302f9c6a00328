"""``envtui check``: divergence findings for a Codex rollout, or for the engine's own steps.

Exit codes: 0 without findings, 1 with findings, 2 on bad input.
"""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path
from typing import TYPE_CHECKING

from envtui.commands.common import end_leftover_processes, engine_for
from envtui.commands.options import ENVIRONMENTS, Arg, Command, Group, number, seconds, switch
from envtui.commands.output import error_line, fail
from envtui.vocabulary.limits import read_text_bounded
from envtui.vocabulary.profiles import Profile

if TYPE_CHECKING:
    from envtui.steps.report import CheckReport
    from envtui.steps.tools import ToolSpec
    from envtui.vocabulary.events import Event

COMMAND = "check"
CHECK = Command(
    COMMAND,
    description="Check a Codex rollout (ROLLOUT), or the engine's own steps over the "
    "configured environments (without ROLLOUT), and print one line per finding. "
    "Exit 0 without findings, 1 with findings, 2 on bad input.",
    options=Group(
        Arg("rollout", metavar="ROLLOUT", nargs="?", help="a Codex rollout file (.jsonl)"),
        Arg("--profile", choices=[p.value for p in Profile], help="which Codex to check against"),
        Arg("--events", metavar="FILE", help="a recorded envtui event stream (connection state)"),
        Arg(
            "--sessions",
            metavar="DIR",
            help="the sessions tree a forked rollout's parent is in (default: the rollout's own)",
        ),
        Arg(
            "--tools",
            metavar="FILE",
            help="tool specs (JSON) to check instead of the recorded or planned ones",
        ),
        ENVIRONMENTS,
        Arg(
            "--steps", type=number(int, low=1), default=3, metavar="N", help="engine steps to take"
        ),
        seconds("--interval", "seconds between engine steps", default=1.0),
        switch("--json", 'print {"steps", "findings", ...} as JSON'),
    ),
)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    CHECK.add_to(subparsers, handler=run)


def _tools(args: argparse.Namespace) -> list[ToolSpec] | int | None:
    """The tool specs of ``--tools``, None without it, or the exit code after an error."""
    if not args.tools:
        return None
    from envtui.steps.tools import read_tool_file

    try:
        return read_tool_file(Path(args.tools))
    except ValueError as exc:
        return fail(COMMAND, f"{args.tools}: {exc}")


def run(args: argparse.Namespace) -> int:
    if args.rollout is not None:
        return _check_rollout(args)
    report = _check_engine(args)
    if isinstance(report, int):
        return report
    from envtui.commands.check_output import ReportWriter

    ReportWriter(as_json=args.json).report(report)
    return 1 if report.findings else 0


def _events(path: str) -> tuple[list[Event], list[str]] | int:
    """The events of ``--events``, and a note per broken line; the exit code on an error."""
    from envtui.vocabulary.events import DecodeError, Event, decode_lines

    try:
        text = read_text_bounded(path)
    except OSError as exc:
        return fail(COMMAND, f"{path}: cannot read: {exc.strerror or exc}")
    except ValueError as exc:  # not UTF-8, or too large
        return fail(COMMAND, f"{path}: cannot read: {exc}")
    decoded = list(decode_lines(text.splitlines()))
    events = [e for e in decoded if isinstance(e, Event)]
    return events, [f"{path}: {e}" for e in decoded if isinstance(e, DecodeError)]


def _given(
    args: argparse.Namespace,
) -> tuple[list[Event] | None, list[str], list[ToolSpec] | None] | int:
    """What ``--events`` and ``--tools`` give (the events, a note per broken event line, the
    tools), or the exit code after an error."""
    events: list[Event] | None = None
    notes: list[str] = []
    if args.events:
        loaded = _events(args.events)
        if isinstance(loaded, int):
            return loaded
        events, notes = loaded
    tools = _tools(args)
    if isinstance(tools, int):
        return tools
    return events, notes, tools


def _check_rollout(args: argparse.Namespace) -> int:
    """Read, check and report the rollout one step at a time; the exit code."""
    from envtui.commands.check_output import ReportWriter
    from envtui.rollout.checked import CheckedSteps
    from envtui.rollout.fork_parent import ParentRollouts
    from envtui.rollout.reader import HEAD_LINES, no_item_reason

    path = Path(args.rollout)
    given = _given(args)
    if isinstance(given, int):
        return given
    events, extra_notes, tools = given
    sessions = Path(args.sessions) if args.sessions else None
    profile = Profile(args.profile) if args.profile else None
    checked = CheckedSteps(
        ParentRollouts(path, sessions),
        profile=profile,
        events=events,
        tools=tools,
        notes=extra_notes,
    )
    try:
        handle = path.open(encoding="utf-8", errors="replace")
    except OSError as exc:
        return fail(COMMAND, f"{args.rollout}: cannot read: {exc.strerror or exc}")
    writer = ReportWriter(as_json=args.json)
    try:
        with handle:
            lines = enumerate(handle, start=1)
            for part in (itertools.islice(lines, HEAD_LINES), lines):
                for number, line in part:
                    for _, report in checked.read_line(number, line):
                        writer.step(report)
                if not checked.info.items:
                    break  # no item in the head: garbage, not read to its end
        if not checked.info.items:
            return fail(COMMAND, f"{args.rollout}: {no_item_reason(checked.info.lines)}")
        for _, report in checked.finish():
            writer.step(report)
    except OSError as exc:
        return fail(COMMAND, f"{args.rollout}: cannot read: {exc.strerror or exc}")
    written = _still_written(path)
    ending = checked.ending(written=written)
    for thread_finding in ending.findings:
        writer.finding(thread_finding)
    writer.finish(ending.notes, checked.info.summary(ending.profile, written=written))
    return 1 if writer.findings else 0


def _still_written(path: Path) -> bool:
    """Whether the rollout was written lately (as ``envtui sessions`` calls a thread live):
    a last turn without an end is then running, not cut off."""
    import time

    from envtui.sources.sessions.sessions_index import LIVE_WINDOW

    try:
        return time.time() - path.stat().st_mtime <= LIVE_WINDOW
    except OSError:
        return False


def _check_engine(args: argparse.Namespace) -> CheckReport | int:
    import asyncio

    from envtui.sources.engine import check_engine_steps
    from envtui.vocabulary.stopping import run_bounded, stop_on_signals

    built = engine_for(COMMAND, args)
    if isinstance(built, int):
        return built
    config, engine = built
    tools = _tools(args)
    if isinstance(tools, int):
        return tools
    profile = Profile(args.profile) if args.profile else config.codex_profile

    async def steps() -> CheckReport | None:
        stop = asyncio.Event()
        with stop_on_signals(stop):
            report = await check_engine_steps(
                engine,
                steps=args.steps,
                interval=args.interval,
                profile=profile,
                tools=tools,
                stop=stop,
            )
        return None if stop.is_set() else report

    try:
        report = run_bounded(steps())
    finally:
        end_leftover_processes()
    if report is None:
        error_line(f"envtui {COMMAND}: interrupted before the last step")
        return 1
    return report
