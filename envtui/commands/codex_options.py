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
    from envtui.sources.daemon.attach import DaemonOptions
    from envtui.vocabulary.profiles import Profile

OWN_THREAD = ("cwd", "prompt", "enable")
"""Options that start a thread on an app-server of envtui's own: they imply --no-daemon (so
does ``--codex PATH`` here: a binary to start; with ``--ssh`` it is the host's codex, which
runs ``codex app-server proxy`` there)."""


def codex_title(args: argparse.Namespace) -> str:
    """The header's name of the source: which codex runs, and where (a person must be able
    to see that it is the codex they meant, not one a directory brought along)."""
    if args.remote:
        return f"codex daemon {args.remote}"
    if not own_app_server(args):
        return f"codex daemon on {args.ssh}" if args.ssh else "codex daemon"
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


def own_app_server(args: argparse.Namespace) -> bool:
    """Whether envtui starts an app-server of its own (``--no-daemon``, or an option that
    starts a thread) rather than attaching to the daemon."""
    binary = bool(args.codex) and not args.ssh
    return bool(args.no_daemon or binary or any(getattr(args, name) for name in OWN_THREAD))


def codex_home(args: argparse.Namespace) -> Path:
    """``--codex-home``, else ``$CODEX_HOME``, else ``~/.codex`` (as Codex finds it)."""
    import os

    return Path(args.codex_home or os.environ.get("CODEX_HOME") or "~/.codex").expanduser()


def daemon_options(
    command: str, args: argparse.Namespace, profile: Profile | None = None
) -> DaemonOptions | int:
    """Where the daemon is, from the command line, or the exit code after an error (no
    daemon runs, or the config's ``profile`` is a Codex without one: said in one line,
    with what to do)."""
    from envtui.environments.daemon.address import parse_remote, read_token
    from envtui.environments.daemon_socket import START_HINT, daemon_socket
    from envtui.sources.daemon.attach import DaemonOptions

    if profile is not None and not profile.has_daemon:
        return fail(
            command,
            f"the config's profile {profile.value} has no app-server daemon to attach to "
            "(Codex runs one since 0.171); --no-daemon starts an app-server of envtui's own",
        )
    if args.remote and (args.ssh or own_app_server(args)):
        return fail(
            command,
            "--remote attaches to a running app-server: it starts none "
            "(--codex PATH, --cwd, --prompt and --enable are for --no-daemon; --ssh reaches "
            "a host's daemon)",
        )
    try:
        home = codex_home(args)
        token = read_token(args.remote_token_file, args.remote_auth_token_env)
        address = parse_remote(args.remote or "unix://", home, token)
    except (ValueError, RuntimeError) as exc:
        return fail(command, str(exc))
    ssh = None
    if args.ssh:
        from envtui.environments.ssh import SshSettings

        ssh = SshSettings(host=args.ssh)
    elif not args.remote and not daemon_socket(home).exists():
        return fail(
            command,
            f"no codex app-server daemon runs for {home}; {START_HINT} "
            "(or --no-daemon for an app-server of envtui's own)",
        )
    return DaemonOptions(
        address=address,
        ssh=ssh,
        codex=args.codex or "codex",
        codex_home=Path(args.codex_home) if args.ssh and args.codex_home else None,
        thread=args.thread,
        read_only=args.read_only,
        poll_interval=args.poll_interval,
    )
