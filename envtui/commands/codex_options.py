"""``envtui codex``: the dashboard attached to a real ``codex app-server``; here, its
options (:data:`envtui.commands.options.CODEX`) made into the app-server's.

``envtui events --codex`` writes the same stream as JSONL, headless (see ``events``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from envtui.commands.output import fail
from envtui.settings.codex_binary import locate_codex

if TYPE_CHECKING:  # the client (and asyncssh) loads only when the command runs
    from envtui.environments.app_server import CodexOptions


def codex_title(args: argparse.Namespace) -> str:
    """The header's name of the source: which codex runs, and where (a person must be able
    to see that it is the codex they meant, not one a directory brought along)."""
    if args.ssh:
        return f"codex on {args.ssh} ({args.codex or 'codex on its PATH'})"
    found = locate_codex(args.codex)
    return f"codex {found.path}" if found.path is not None else "codex"


def codex_options(command: str, args: argparse.Namespace, codex: str | None) -> CodexOptions | int:
    """The app-server options from the command line, or the exit code after an error."""
    from envtui.environments.app_server import CodexOptions

    ssh = None
    if args.ssh:
        from envtui.environments.ssh import SshSettings

        ssh = SshSettings(host=args.ssh)
        program = codex or "codex"  # a path on the host
    else:
        found = locate_codex(codex)
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
