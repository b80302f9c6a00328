"""The CPU an idle ``envtui watch`` costs: the demo's six environments, nothing changing.

The demo's in-process SSH hosts (slow to authenticate, ready, never authenticating, a wrong
host key) run in this process, without the demo's scripted faults; ``envtui watch`` on a
config naming them runs in a pseudo-terminal of 120x40 and its CPU time is read from the
system after a warm-up. The engine still takes a step every ``step_interval`` and retries
the hosts that fail: that is what idle means for an operator's screen. With ``--compare
DIR`` the same is measured for the code in DIR (for example an older checkout), side by side.
Run: ``python benchmarks/bench_idle.py [--seconds 60]``.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from terminal import PtyDashboard

from envtui.sources.demo import Demo

BUDGET = 0.02


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_config(demo: Demo, directory: Path) -> Path:
    """The demo's six environments as a config file for ``envtui watch``."""
    config = demo.config(directory)
    lines = []
    for environment in config.environments:
        lines.append("[[environments]]")
        for key, value in environment.model_dump(exclude_defaults=True).items():
            lines.append(f"{key} = {toml_value(value)}")
    path = directory / "config.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def serve_hosts(directory: Path) -> tuple[Demo, threading.Event]:
    """The demo's hosts on a loop of their own, until the returned event is set."""
    demo = Demo(lambda event: None)
    ready, done = threading.Event(), threading.Event()

    async def serve() -> None:
        await demo._start_servers(directory)
        ready.set()
        while not done.is_set():
            await asyncio.sleep(0.2)
        for server in demo.servers.values():
            await server.close()

    threading.Thread(target=lambda: asyncio.run(serve()), daemon=True).start()
    ready.wait(30)
    return demo, done


def measure(
    config: Path, seconds: float, warm_up: float, pythonpath: str | None
) -> tuple[float, int]:
    with PtyDashboard(["watch", "--config", str(config)], pythonpath=pythonpath) as dashboard:
        deadline = time.monotonic() + 30
        while not dashboard.seen("ready") and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(warm_up)  # every host resolved (or given up on) and retried once
        share = dashboard.cpu_share(seconds)
        return share, dashboard.rss()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--warm-up", type=float, default=10.0, help="seconds after the first ready row"
    )
    parser.add_argument("--compare", metavar="DIR", help="also measure the envtui code in DIR")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        demo, done = serve_hosts(directory)
        config = write_config(demo, directory)
        runs = [("this checkout", None)] + ([(args.compare, args.compare)] if args.compare else [])
        print(
            f"idle `envtui watch` of the demo's six environments, 120x40, {args.seconds:.0f} s"
            f" from {args.warm_up:.0f} s after the first ready row"
        )
        for name, pythonpath in runs:
            share, rss = measure(config, args.seconds, args.warm_up, pythonpath)
            verdict = "within" if share <= BUDGET else "over"
            cpu = f"{share * 100:5.2f} % of one core ({verdict} {BUDGET:.0%})"
            print(f"  {name}: {cpu}, RSS {rss >> 20} MB")
        done.set()


if __name__ == "__main__":
    main()
