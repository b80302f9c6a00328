"""The CPU an idle ``envtui sessions`` costs on a large tree, side by side with ``top``.

A tree of ``--threads`` rollouts (``tests/support/data/session_trees.py``, as
``bench_sessions.py`` builds it) is written, then one private tmux server runs, each in
a window of ``--size``: ``top -d 1.5`` (the floor: a terminal program that redraws every
1.5 s), ``envtui sessions TREE`` and, with ``--before ENVTUI``, another installation's
``envtui sessions TREE``. Once every envtui shows all its threads, and after
``--warmup`` seconds, the CPU time of each window's process (and its children) is read
from the system over ``--seconds`` seconds, in % of one core, all at the same time;
nothing is written to the tree meanwhile. ``--runs`` repeats the measurement on the same
windows. Budget (issue 22): <= 2 % of a core at 1,000 and at 10,000 threads.

Run: ``python benchmarks/bench_sessions_idle.py [--threads 1000,10000] [--seconds 60]
[--before PATH/TO/envtui]``. The tree is removed at the end, and the tmux server ended.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.data.session_trees import grown_tree  # noqa: E402


class Tmux:
    """A tmux server of our own (its own socket), ended on leaving the ``with`` block."""

    def __init__(self, size: tuple[int, int]) -> None:
        self.socket = f"envtui-bench-idle-{os.getpid()}"
        self.size = size

    def run(self, *args: str) -> str:
        command = ["tmux", "-L", self.socket, "-f", "/dev/null", *args]
        return subprocess.run(command, capture_output=True, text=True, check=True).stdout

    def __enter__(self) -> Tmux:
        columns, rows = self.size
        self.run(
            "new-session",
            "-d",
            "-s",
            "bench",
            "-n",
            "top",
            "-x",
            str(columns),
            "-y",
            str(rows),
            "exec top -d 1.5",
        )
        return self

    def window(self, name: str, command: list[str]) -> None:
        env = "TERM=xterm-256color"
        self.run(
            "new-window", "-d", "-t", "bench", "-n", name, f"exec env {env} {shlex.join(command)}"
        )

    def pid(self, name: str) -> int:
        return int(self.run("display-message", "-p", "-t", f"bench:{name}", "#{pane_pid}"))

    def screen(self, name: str) -> str:
        return self.run("capture-pane", "-p", "-t", f"bench:{name}")

    def __exit__(self, *exc: object) -> None:
        """End the server and every process its windows started: a program that ignores
        the hangup (an older envtui may) is terminated, then killed."""
        started: list[psutil.Process] = []
        for line in self.run("list-panes", "-a", "-F", "#{pane_pid}").split():
            try:
                process = psutil.Process(int(line))
                started += [process, *process.children(recursive=True)]
            except psutil.Error:
                continue
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, check=False)
        for process in started:
            try:
                process.terminate()
            except psutil.Error:
                continue
        _, alive = psutil.wait_procs(started, timeout=10)
        for process in alive:
            try:
                process.kill()
            except psutil.Error:
                continue


def cpu_seconds(pid: int) -> float:
    """User and system time of the process and every process below it."""
    process = psutil.Process(pid)
    total = 0.0
    for each in [process, *process.children(recursive=True)]:
        try:
            times = each.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


def cpu_shares(pids: dict[str, int], runs: int, seconds: float) -> dict[str, list[float]]:
    """Each process's CPU over ``seconds``, in % of one core, ``runs`` times, all measured
    over the same stretches of time."""
    shares: dict[str, list[float]] = {name: [] for name in pids}
    for _ in range(runs):
        wall, before = time.monotonic(), {n: cpu_seconds(p) for n, p in pids.items()}
        time.sleep(seconds)
        wall = time.monotonic() - wall
        for name, pid in pids.items():
            shares[name].append(100 * (cpu_seconds(pid) - before[name]) / wall)
    return shares


def rss_mib(pid: int) -> float:
    return psutil.Process(pid).memory_info().rss / 2**20


def wait_for_rows(tmux: Tmux, names: list[str], threads: int, timeout: float) -> None:
    """Until every envtui window says it shows all the threads (the index is done)."""
    deadline = time.monotonic() + timeout
    waiting = set(names)
    while waiting:
        waiting = {n for n in waiting if f"{threads} threads" not in tmux.screen(n)}
        if waiting and time.monotonic() > deadline:
            raise SystemExit(f"{sorted(waiting)}: the rows did not show within {timeout:.0f} s")
        time.sleep(0.5)  # bounded by the deadline above


def measure(args: argparse.Namespace, scratch: Path, threads: int) -> None:
    tree = scratch / f"tree-{threads}"
    grown_tree(tree, threads, 100 * 1024)
    envtuis = {"envtui": [sys.executable, "-m", "envtui"]}
    if args.before:
        envtuis["before"] = [args.before]
    columns, rows = (int(n) for n in args.size.split("x"))
    with Tmux((columns, rows)) as tmux:
        for name, command in envtuis.items():
            tmux.window(name, [*command, "sessions", str(tree)])
        started = time.monotonic()
        wait_for_rows(tmux, list(envtuis), threads, args.timeout)
        shown_after = time.monotonic() - started
        print(f"\n{threads} threads: every window showed its rows after {shown_after:.0f} s")
        time.sleep(args.warmup)
        names = ["top", *envtuis]
        pids = {name: tmux.pid(name) for name in names}
        shares = cpu_shares(pids, args.runs, args.seconds)
        for name in names:
            runs = " / ".join(f"{s:.2f}" for s in shares[name])
            ratio = statistics.median(shares[name]) / max(statistics.median(shares["top"]), 1e-9)
            print(
                f"  {name:7} {runs} % of a core over {args.seconds:g} s (runs), "
                f"{ratio:.1f}x top, RSS {rss_mib(pids[name]):.0f} MiB"
            )
        print("  budget: <= 2 % of a core")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", default="1000,10000", help="tree sizes, comma-separated")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--warmup", type=float, default=15.0)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--size", default="120x40", help="each window's COLUMNSxROWS")
    parser.add_argument("--timeout", type=float, default=900.0, help="for the rows to show")
    parser.add_argument("--before", metavar="ENVTUI", help="another envtui to measure beside")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for threads in (int(n) for n in args.threads.split(",")):
            measure(args, Path(folder), threads)


if __name__ == "__main__":
    main()
