"""``envtui snapshot``: resolve the configured environments once and report them.

Unavailable environments are information, not failure: the exit code is 0 unless the
config is bad (2), or ``--require-ready`` is given and an environment (any, or any it
names) is not ready (1): a CI step can fail on it.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from envtui.commands.common import end_leftover_processes, engine_for
from envtui.commands.options import ENVIRONMENTS, Arg, Command, Group, seconds, switch
from envtui.commands.output import error_line, write_output
from envtui.vocabulary.safe_text import dumps_json_line

if TYPE_CHECKING:  # the models and the runtime (and asyncssh) load only when the command runs
    from envtui.sources.engine import Engine
    from envtui.steps.selection import SelectionSnapshot, SnapshotEntry

COMMAND = "snapshot"
DEFAULT_TIMEOUT = 15.0
SNAPSHOT = Command(
    COMMAND,
    description="Resolve every configured environment once (blocking, bounded by --timeout) "
    "and print id, status, primary, shell, cwd and error, then the context block.",
    options=Group(
        ENVIRONMENTS,
        seconds(
            "--timeout", "seconds to wait for environments still starting", default=DEFAULT_TIMEOUT
        ),
        switch("--json", 'print {"environments", "context"}'),
        Arg(
            "--require-ready",
            nargs="*",
            metavar="ID",
            help="exit 1 when an environment (any, or any of the IDs named) is not ready; "
            "2 when a named ID is not configured",
        ),
    ),
)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    SNAPSHOT.add_to(subparsers, handler=run)


def entry_json(entry: SnapshotEntry, primary: str | None) -> dict[str, Any]:
    from envtui.steps.selection import LIVE_STATE

    readiness = entry.readiness
    return {
        "id": entry.environment_id,
        "kind": entry.kind,
        "status": LIVE_STATE[entry.state],
        "primary": entry.environment_id == primary,
        "shell": readiness.shell_name if readiness else None,
        "shell_path": readiness.shell_path if readiness else None,
        "cwd": entry.selection.cwd,
        "error": entry.error,
    }


async def take_snapshot(engine: Engine, timeout: float) -> SelectionSnapshot | None:
    """The snapshot once every environment resolved (or ``timeout`` passed); None when a
    signal (Ctrl+C, SIGTERM, SIGHUP) came first. Either way everything is closed, bounded."""
    import asyncio

    from envtui.vocabulary.stopping import CLEANUP_GRACE, stop_on_signals, within

    stop = asyncio.Event()
    try:
        with stop_on_signals(stop):
            engine.start()
            taken = asyncio.ensure_future(engine.snapshot(timeout))
            stopped = asyncio.ensure_future(stop.wait())
            await asyncio.wait({taken, stopped}, return_when=asyncio.FIRST_COMPLETED)
            stopped.cancel()
            if not taken.done():
                taken.cancel()
                return None
            return taken.result()
    finally:
        await within(CLEANUP_GRACE, engine.aclose())


def run(args: argparse.Namespace) -> int:
    from envtui.context.render import render_full
    from envtui.vocabulary.stopping import run_bounded

    built = engine_for(COMMAND, args)
    if isinstance(built, int):
        return built
    _, engine = built
    try:
        snapshot = run_bounded(take_snapshot(engine, args.timeout))
    finally:
        end_leftover_processes()
    if snapshot is None:
        error_line(f"envtui {COMMAND}: interrupted before the environments resolved")
        return 1
    primary_entry = snapshot.primary()
    primary = primary_entry.environment_id if primary_entry else None
    rows = [entry_json(entry, primary) for entry in snapshot.entries]
    section = engine.section(snapshot)
    context = render_full(section) if section is not None else None
    if args.json:
        write_output(dumps_json_line({"environments": rows, "context": context}) + "\n")
    else:
        text = format_table(rows) + ("\n\n" + context if context is not None else "")
        write_output(text + "\n")
    return 0 if args.require_ready is None else readiness_code(rows, args.require_ready)


def readiness_code(rows: list[dict[str, Any]], wanted: list[str]) -> int:
    """``--require-ready``: 0 when every environment wanted (none named: all) is ready, 1
    when one is not (each named on standard error), 2 when a named one is not configured."""
    by_id = {row["id"]: row for row in rows}
    unknown = [i for i in dict.fromkeys(wanted) if i not in by_id]
    if unknown:
        error_line(f"envtui {COMMAND}: --require-ready: not configured: {', '.join(unknown)}")
        return 2
    checked = [by_id[i] for i in dict.fromkeys(wanted)] if wanted else rows
    not_ready = [row for row in checked if row["status"] != "ready"]
    for row in not_ready:
        reason = f": {row['error']}" if row["error"] else ""
        error_line(f"envtui {COMMAND}: not ready: {row['id']} ({row['status']}{reason})")
    return 1 if not_ready else 0


def format_table(rows: list[dict[str, Any]]) -> str:
    headers = ["ID", "STATUS", "PRIMARY", "SHELL", "CWD", "ERROR"]
    table = [
        [
            r["id"],
            r["status"],
            "*" if r["primary"] else "",
            r["shell"] or "-",
            r["cwd"],
            r["error"] or "",
        ]
        for r in rows
    ]
    widths = [max(len(h), *(len(row[i]) for row in table)) for i, h in enumerate(headers)]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in [headers, *table]
    ]
    return "\n".join(lines)
