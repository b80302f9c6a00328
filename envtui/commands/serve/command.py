"""``envtui serve``: any dashboard command in a browser, through textual-serve's page.

Each browser tab gets a dashboard of its own, driven over a websocket; all of them run in
one tab host process beside the server (:mod:`envtui.commands.serve.tab_process`), and closing
the tab ends its dashboard. This command checks the dashboard's arguments with the
dashboard's own parser first (a typo fails at once, not in every tab), binds loopback
unless told otherwise, makes the token and the rules of who is answered
(:mod:`envtui.commands.serve.web_access`), and leaves the serving and the shutdown to
:mod:`envtui.commands.serve.web_server`, which loads textual-serve (and aiohttp) only when this
command runs.
"""

from __future__ import annotations

import argparse
import ipaddress
import shlex
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from envtui.commands import dashboard_sources
from envtui.commands.options import Arg, Command, Group, switch
from envtui.commands.output import fail
from envtui.commands.serve.web_access import (
    TokenFileError,
    access_for,
    new_token,
    read_token_file,
    url_with_token,
)
from envtui.vocabulary.safe_text import for_terminal

WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})
"""Addresses that listen everywhere: no browser can use them, so a public URL is needed."""
REMOTE_WARNING = (
    "envtui serve: warning: {url} is reachable from other machines, and over plain http "
    "the token and every screen cross the network readable; put an SSH tunnel, or a "
    "reverse proxy with TLS, in front."
)
DEFAULT_MAX_SESSIONS = 8


SERVE = Command(
    "serve",
    description="Serve a dashboard command to web browsers: a dashboard per browser tab, "
    "all in one process; a live command's source (demo, watch, codex) runs once, and every "
    "tab shows its events, a late tab from the state the others show. Dashboard arguments go "
    "after `--` (default: demo), e.g. `envtui serve -- watch --config envtui.toml`.",
    options=Group(
        Arg(
            "--host",
            default="127.0.0.1",
            help="the address to listen on (default: 127.0.0.1; others need --allow-remote)",
        ),
        Arg("--port", type=int, default=8000, help="the port (default: 8000)"),
        Arg(
            "--public-url",
            metavar="URL",
            help="the address browsers use, e.g. behind a reverse proxy (default: http://HOST:PORT)",
        ),
        switch(
            "--allow-remote",
            "allow a --host other than loopback (put a tunnel or a TLS proxy in front)",
        ),
        Arg(
            "--token-file",
            metavar="FILE",
            type=Path,
            help="the token browsers need, read from FILE (default: a new random one "
            "each start, shown in the URL printed)",
        ),
        Arg(
            "--max-sessions",
            metavar="N",
            type=int,
            default=DEFAULT_MAX_SESSIONS,
            help=f"the most dashboards (browser tabs) at once (default: {DEFAULT_MAX_SESSIONS})",
        ),
        Arg(
            "dashboard",
            nargs=argparse.REMAINDER,
            metavar="-- DASHBOARD-ARGS",
            help="the dashboard command and its arguments: demo, watch, codex, replay, rollout",
        ),
    ),
)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    SERVE.add_to(subparsers, handler=run)


def dashboard_arguments(remainder: Sequence[str]) -> list[str]:
    """The served command's arguments: what follows ``--`` (or the rest), ``demo`` if none."""
    arguments = list(remainder[1:] if remainder[:1] == ["--"] else remainder)
    return arguments or ["demo"]


def check_dashboard(arguments: Sequence[str]) -> argparse.Namespace | int:
    """The dashboard command's parsed arguments when it would start, else its exit code
    after the error line.

    A typo ends here with argparse's message and exit code 2 (``SystemExit``), exactly as
    the command itself would; so do a bad config and a missing file.
    """
    parser = argparse.ArgumentParser(prog="envtui serve --")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    dashboard_sources.add_dashboard_parsers(subparsers)
    args = parser.parse_args(arguments)
    if args.record:
        return fail(
            "serve",
            "--record: every browser tab would rewrite the file; record with "
            "`envtui events` or a dashboard in a terminal",
        )
    prepared = dashboard_sources.source_for(args)
    return prepared if isinstance(prepared, int) else args


def is_loopback(host: str) -> bool:
    """Only this machine reaches it: ``localhost``, 127.0.0.0/8 or ``::1``. Anything else
    needs ``--allow-remote``."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


def public_url(host: str, port: int) -> str:
    """``http://HOST:PORT``, with an IPv6 address in brackets."""
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def check_address(args: argparse.Namespace) -> int:
    """0 when the address may be used, else 2 after the error line."""
    if not 0 < args.port < 65536:
        return fail("serve", f"--port {args.port}: not a port (1-65535)")
    if args.max_sessions < 1:
        return fail("serve", f"--max-sessions {args.max_sessions}: must be 1 or more")
    if is_loopback(args.host):
        return 0
    if not args.allow_remote:
        return fail(
            "serve",
            f"--host {args.host} is reachable from other machines; pass --allow-remote to "
            "serve it anyway (behind an SSH tunnel or a TLS proxy)",
        )
    if args.host in WILDCARD_HOSTS and not args.public_url:
        return fail("serve", f"--host {args.host!r} listens everywhere: pass --public-url URL")
    return 0


def remote_warning(args: argparse.Namespace) -> str | None:
    """What to say, once, before serving to other machines; None on loopback."""
    if is_loopback(args.host):
        return None
    return REMOTE_WARNING.format(url=args.public_url or public_url(args.host, args.port))


def token_for(args: argparse.Namespace) -> str | int:
    """The token: from ``--token-file``, else a new random one; 2 after the error line."""
    if args.token_file is None:
        return new_token()
    try:
        return read_token_file(args.token_file)
    except TokenFileError as exc:
        return fail("serve", f"--token-file {exc}")


def run(args: argparse.Namespace) -> int:
    arguments = dashboard_arguments(args.dashboard)
    code = check_address(args)
    checked = code or check_dashboard(arguments)
    if isinstance(checked, int):
        return checked
    token = token_for(args)
    if isinstance(token, int):
        return token
    url = args.public_url or public_url(args.host, args.port)
    access = access_for(
        host=args.host,
        port=args.port,
        public_url=url,
        token=token,
        loopback=is_loopback(args.host),
        chosen_url=args.public_url is None,
    )
    if warning := remote_warning(args):
        print(for_terminal(warning), file=sys.stderr)
    try:
        from envtui.commands.serve.web_server import serve_dashboards
    except ImportError as exc:
        print(
            for_terminal(
                f"envtui serve: error: textual-serve cannot be loaded ({exc}); "
                "reinstall envtui to bring it back"
            ),
            file=sys.stderr,
        )
        return 1
    from envtui.commands.serve.shared_source import shared_for  # asyncio and the writer: only here

    title = shlex.join(["envtui", *arguments])
    folder = Path(tempfile.mkdtemp(prefix="envtui-serve-"))  # 0700: this user's alone
    shared = shared_for(checked, folder)
    return serve_dashboards(
        shared.tab_arguments() if shared else arguments,
        folder=folder,
        shared=shared,
        title=title,
        host=args.host,
        port=args.port,
        public_url=url,
        access=access,
        max_sessions=args.max_sessions,
        address_line=address_lines(title, url_with_token(url, token), args.max_sessions, shared),
    )


def address_lines(title: str, url: str, max_sessions: int, shared: object) -> str:
    """What serve says once it listens: what it serves, then the address alone on its line,
    so a double click, a terminal's link detection or a script takes it whole (no comma or
    word glued to the token)."""
    source = " on one shared source" if shared else ""
    return (
        f"envtui serve: {title}, a dashboard per tab, at most {max_sessions}{source} "
        f"(Ctrl+C stops them all); open:\n{url}"
    )
