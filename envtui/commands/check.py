"""``envtui check``: divergence findings for a Codex rollout, or for the engine's own steps.

Exit codes: 0 without findings, 1 with findings, 2 on bad input.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from envtui.commands.common import (
    add_codex_environments_argument,
    add_config_argument,
    end_leftover_processes,
    engine_for,
    error_line,
    fail,
    non_negative,
    write_output,
)
from envtui.limits import read_text_bounded
from envtui.profiles import Profile
from envtui.safe_text import dumps_json_line
from envtui.stopping import run_bounded, stop_on_signals

if TYPE_CHECKING:
    from envtui.steps.check import CheckReport
    from envtui.steps.tools import ToolSpec

COMMAND = "check"


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        COMMAND,
        help="report divergences between tools, context and snapshot",
        description="Check a Codex rollout (ROLLOUT), or the engine's own steps over the "
        "configured environments (without ROLLOUT), and print one line per finding. "
        "Exit 0 without findings, 1 with findings, 2 on bad input.",
    )
    parser.add_argument(
        "rollout", metavar="ROLLOUT", nargs="?", help="a Codex rollout file (.jsonl)"
    )
    parser.add_argument(
        "--profile", choices=[p.value for p in Profile], help="which Codex to check against"
    )
    parser.add_argument(
        "--events", metavar="FILE", help="a recorded envtui event stream (connection state)"
    )
    parser.add_argument(
        "--tools",
        metavar="FILE",
        help="tool specs (JSON) to check instead of the recorded or planned ones",
    )
    add_config_argument(parser)
    add_codex_environments_argument(parser)
    parser.add_argument(
        "--steps", type=int, default=3, metavar="N", help="engine steps to take (default 3)"
    )
    parser.add_argument(
        "--interval",
        type=non_negative,
        default=1.0,
        metavar="S",
        help="seconds between engine steps",
    )
    parser.add_argument(
        "--json", action="store_true", help='print {"steps", "findings", ...} as JSON'
    )
    parser.set_defaults(handler=run)


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
    report = _check_rollout(args) if args.rollout is not None else _check_engine(args)
    if isinstance(report, int):
        return report
    _print(report, as_json=args.json)
    return 1 if report.findings else 0


def _check_rollout(args: argparse.Namespace) -> CheckReport | int:
    from envtui.events import DecodeError, Event, decode_lines
    from envtui.steps.check import check_rollout
    from envtui.steps.rollout import read_rollout

    try:
        rollout = read_rollout(Path(args.rollout))
    except OSError as exc:
        return fail(COMMAND, f"{args.rollout}: cannot read: {exc.strerror or exc}")
    profile, note = rollout.default_profile()
    if args.profile:
        profile, note = Profile(args.profile), None
    events: list[Event] | None = None
    extra_notes: list[str] = [note] if note else []
    if args.events:
        try:
            text = read_text_bounded(args.events)
        except OSError as exc:
            return fail(COMMAND, f"{args.events}: cannot read: {exc.strerror or exc}")
        except ValueError as exc:  # not UTF-8, or too large
            return fail(COMMAND, f"{args.events}: cannot read: {exc}")
        decoded = list(decode_lines(text.splitlines()))
        events = [e for e in decoded if isinstance(e, Event)]
        extra_notes += [f"{args.events}: {e}" for e in decoded if isinstance(e, DecodeError)]
    tools = _tools(args)
    if isinstance(tools, int):
        return tools
    report = check_rollout(rollout, profile, events=events, tools=tools)
    report.notes = extra_notes + report.notes
    if rollout.bad_lines:
        report.notes.append(
            f"{len(rollout.bad_lines)} broken line(s) skipped: {rollout.bad_lines[:10]}"
        )
    if rollout.unknown_items:
        kinds = sorted({kind for _, kind in rollout.unknown_items})
        report.notes.append(
            f"{len(rollout.unknown_items)} unknown item(s) skipped: {', '.join(kinds)}"
        )
    return report


def _check_engine(args: argparse.Namespace) -> CheckReport | int:
    import asyncio

    from envtui.sources.live import check_engine_steps

    if args.steps < 1:
        return fail(COMMAND, "--steps must be at least 1")
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


def _print(report: CheckReport, *, as_json: bool) -> None:
    if as_json:
        write_output(dumps_json_line(report.as_json()) + "\n")
        return
    lines = []
    for f in report.findings:
        step = f"step {f.step}" if f.step is not None else "thread"
        lines.append(f"{step}: {f.code}: {f.tool or '-'}: {f.environment_id or '-'}: {f.message}")
    write_output("".join(line + "\n" for line in lines))
    steps = len(report.steps)
    summary = f"{len(report.findings)} finding(s) in {steps} step(s)"
    for note in report.notes:
        error_line(f"note: {note}")
    error_line(summary)
