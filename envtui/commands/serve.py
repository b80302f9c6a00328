"""``envtui serve``: any dashboard command in a browser, through textual-serve.

textual-serve answers each browser tab with a dashboard process of its own, started from a
command line and driven over a websocket; closing the tab ends that process. This command
checks the dashboard's arguments with the dashboard's own parser first (a typo fails at
once, not in every tab), builds the command line, binds loopback unless told otherwise,
and leaves the serving and the shutdown to :mod:`envtui.commands.web_server`, which loads
textual-serve (and aiohttp) only when this command runs.
"""

from __future__ import annotations

import argparse
import ipaddress
import shlex
import sys
from collections.abc import Sequence

from envtui.commands import dashboard
from envtui.commands.options import Arg, Command, Group, switch
from envtui.commands.output import fail
from envtui.vocabulary.safe_text import for_terminal

WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})
"""Addresses that listen everywhere: no browser can use them, so a public URL is needed."""
NO_AUTHENTICATION = (
    "envtui serve: warning: textual-serve has no authentication: whoever reaches {url} "
    "gets a dashboard. Put an SSH tunnel, or a reverse proxy with authentication, in front."
)


SERVE = Command(
    "serve",
    summary="a dashboard command in the browser (textual-serve)",
    description="Serve a dashboard command to web browsers: one dashboard process per "
    "browser tab. Dashboard arguments go after `--` (default: demo), e.g. "
    "`envtui serve -- watch --config envtui.toml`.",
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
            "allow a --host other than loopback (textual-serve has no authentication)",
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


def check_dashboard(arguments: Sequence[str]) -> int:
    """0 when the dashboard command would start, else its exit code after the error line.

    A typo ends here with argparse's message and exit code 2 (``SystemExit``), exactly as
    the command itself would; so do a bad config and a missing file.
    """
    parser = argparse.ArgumentParser(prog="envtui serve --")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    dashboard.add_parsers(subparsers)
    args = parser.parse_args(arguments)
    if args.record:
        return fail(
            "serve",
            "--record: every browser tab would rewrite the file; record with "
            "`envtui events` or a dashboard in a terminal",
        )
    prepared = dashboard.source_for(args)
    return prepared if isinstance(prepared, int) else 0


def served_command(arguments: Sequence[str]) -> str:
    """The shell command line textual-serve runs per tab: this Python's ``envtui``.

    ``exec`` makes the dashboard the shell's own process, so the server's children are the
    dashboards themselves; ``shlex`` quotes every argument.
    """
    return "exec " + shlex.join([sys.executable, "-m", "envtui", *arguments])


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
    if is_loopback(args.host):
        return 0
    if not args.allow_remote:
        return fail(
            "serve",
            f"--host {args.host} is reachable from other machines and textual-serve has no "
            "authentication; pass --allow-remote to serve it anyway",
        )
    if args.host in WILDCARD_HOSTS and not args.public_url:
        return fail("serve", f"--host {args.host!r} listens everywhere: pass --public-url URL")
    return 0


def remote_warning(args: argparse.Namespace) -> str | None:
    """What to say, once, before serving to other machines; None on loopback."""
    if is_loopback(args.host):
        return None
    return NO_AUTHENTICATION.format(url=args.public_url or public_url(args.host, args.port))


def run(args: argparse.Namespace) -> int:
    arguments = dashboard_arguments(args.dashboard)
    code = check_address(args) or check_dashboard(arguments)
    if code:
        return code
    if warning := remote_warning(args):
        print(for_terminal(warning), file=sys.stderr)
    try:
        from envtui.commands.web_server import serve_dashboards
    except ImportError as exc:
        print(
            for_terminal(
                f"envtui serve: error: textual-serve cannot be loaded ({exc}); "
                "reinstall envtui to bring it back"
            ),
            file=sys.stderr,
        )
        return 1
    return serve_dashboards(
        served_command(arguments),
        title=shlex.join(["envtui", *arguments]),
        host=args.host,
        port=args.port,
        public_url=args.public_url or public_url(args.host, args.port),
    )
