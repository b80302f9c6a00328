"""``envtui codex``: the dashboard attached to a real ``codex app-server``.

``envtui events --codex`` writes the same stream as JSONL, headless (see ``events``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from envtui.commands.common import number
from envtui.commands.output import fail
from envtui.settings.codex_binary import locate_codex

if TYPE_CHECKING:  # the client (and asyncssh) loads only when the command runs
    from envtui.environments.app_server import CodexOptions


def add_codex_arguments(parser: argparse.ArgumentParser, *, flag_takes_path: bool) -> None:
    if flag_takes_path:
        parser.add_argument(
            "--codex", metavar="PATH", help="the codex binary (default: $ENVTUI_CODEX, then PATH)"
        )
    parser.add_argument(
        "--codex-home", metavar="DIR", help="CODEX_HOME for the app-server (default: ~/.codex)"
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--cwd", metavar="DIR", help="start a thread in DIR (default: here)")
    where.add_argument("--thread", metavar="ID", help="resume the thread ID")
    parser.add_argument(
        "--ssh", metavar="HOST", help="run the app-server on HOST (a host or ~/.ssh/config alias)"
    )
    parser.add_argument(
        "--poll-interval",
        type=number(float, low=0, low_inclusive=False),
        default=1.0,
        metavar="S",
        help="environment/status every S seconds",
    )
    parser.add_argument(
        "--enable", action="append", default=[], metavar="FEATURE", help="a codex feature flag"
    )
    parser.add_argument(
        "--prompt", metavar="TEXT", help="send one user turn once the thread starts"
    )
    parser.add_argument(
        "--read-only",
        action="store_true",
        help="decline every approval and question of Codex at once, and say so in the log "
        "(without it, a request waits for the operator: `o`, `O`, `x`, `r` in the dashboard)",
    )


def codex_options(command: str, args: argparse.Namespace, codex: str | None) -> CodexOptions | int:
    """The app-server options from the command line, or the exit code after an error."""
    from envtui.environments.app_server import CodexOptions

    ssh = None
    if args.ssh:
        from envtui.environments.ssh import SshSettings

        ssh = SshSettings(host=args.ssh)
        program = codex or "codex"  # a path on the host
    else:
        found = locate_codex(codex, search_roots=(Path.cwd(),))
        if found.path is None:
            return fail(command, found.problem or "codex not found")
        program = str(found.path)
    try:
        home = Path(args.codex_home).expanduser() if args.codex_home else None
    except RuntimeError:  # ``~name`` of a user this machine does not have
        return fail(command, f"--codex-home {args.codex_home}: no such user")
    if home is not None and not args.ssh and not home.is_dir():
        return fail(command, f"--codex-home {home}: no such directory")
    return CodexOptions(
        codex=program,
        codex_home=home,
        cwd=str(Path(args.cwd).resolve())
        if args.cwd
        else (None if args.thread else str(Path.cwd())),
        thread=args.thread,
        ssh=ssh,
        poll_interval=args.poll_interval,
        features=tuple(args.enable),
        prompt=args.prompt,
        read_only=args.read_only,
    )
