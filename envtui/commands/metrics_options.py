"""``--metrics HOST:PORT``, ``--metrics-retention`` and ``--metrics-max-environments`` for
``events``, ``watch``, ``codex`` and ``sessions``, and the durations (``90s``, ``15m``,
``2h``, ``7d``) they and ``--since`` take.

prometheus-client is imported only when ``--metrics`` is given, so the other commands
start without it.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import TYPE_CHECKING

from envtui.commands.common import number
from envtui.commands.output import fail

if TYPE_CHECKING:
    from envtui.sources.metrics_server import MetricsServer
    from envtui.sources.metrics_state import MetricsState

_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*([smhd]?)")
_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def duration(text: str) -> float:
    """Seconds from ``90``, ``90s``, ``15m``, ``2h`` or ``7d`` (an argparse ``type``)."""
    match = _DURATION.fullmatch(text.strip())
    if match is None:
        raise argparse.ArgumentTypeError(
            f"must be a duration such as 90s, 15m, 2h or 7d; got {text!r}"
        )
    return float(match.group(1)) * _UNITS[match.group(2)]


def address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:9100`` for IPv6) as (host, port); an argparse ``type``."""
    host, colon, port = text.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not colon or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"must be HOST:PORT, such as 127.0.0.1:9464; got {text!r}")
    return host, int(port)


def add_metrics_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--metrics",
        type=address,
        metavar="HOST:PORT",
        help="serve Prometheus metrics at http://HOST:PORT/metrics (listens only there)",
    )
    parser.add_argument(
        "--metrics-retention",
        type=duration,
        default=duration("15m"),
        metavar="DURATION",
        help="how long the series of a thread that ended stay (seconds, or 90s, 15m, 2h)",
    )
    parser.add_argument(
        "--metrics-max-environments",
        type=number(int, low=1),
        default=500,
        metavar="N",
        help="the most environments of one thread that get series; the rest are counted in "
        "envtui_environments_dropped",
    )


def metrics_for(
    command: str, args: argparse.Namespace, *, thread: str = ""
) -> tuple[MetricsState, MetricsServer] | int | None:
    """The state and its started server when ``--metrics`` is given; None without it; the
    exit code when the address cannot be bound. The caller closes the server."""
    if args.metrics is None:
        return None
    from envtui.sources.metrics_server import MetricsServer
    from envtui.sources.metrics_state import MetricsState

    host, port = args.metrics
    state = MetricsState(
        retention=args.metrics_retention,
        thread=thread,
        max_environments=args.metrics_max_environments,
        notice=lambda text: print(f"envtui {command}: {text}", file=sys.stderr),
    )
    try:
        return state, MetricsServer(state, host, port).start()
    except OSError as exc:
        return fail(command, f"--metrics {host}:{port}: cannot listen: {exc.strerror or exc}")
