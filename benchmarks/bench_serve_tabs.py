"""``envtui serve`` with many tabs: the memory of N tabs against one dashboard in a terminal.

Interleaved rounds in one run, each of:

* **terminal**: ``envtui demo`` under tmux at 160x45;
* **served**: ``envtui serve -- demo`` with ``--tabs`` websockets open at 160x45 (opened as a
  browser opens them, their screens read);
* **served before** (with ``--before DIR``): the same, served by another checkout's envtui
  (an older commit), for the before and after side by side.

Each runs the demo for ``--settle`` seconds, then the RSS and the PSS (each shared page
counted once, split among the processes that share it) of every process it is made of are
summed: the dashboard and what it started, or the server and all its descendants (the tab
host or the dashboard processes, and the steps the demo's source runs). Printed: the
median and range over the rounds, and the ratio of served to terminal. For the served
kinds, also after the tabs are closed: at once, and once the tab host has ended (it ends
when no tab has wanted it for a while, and what the tabs held goes with it).

Run from the checkout: ``python -m benchmarks.bench_serve_tabs [--tabs N] [--rounds R]
[--settle S] [--before DIR]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote

import aiohttp
import psutil

from envtui.commands.serve.web_access import PAGE_PROTOCOL, token_protocol

ROOT = Path(__file__).resolve().parent.parent
SIZE = (160, 45)
CLOSED_SETTLE = 3.0
"""Seconds after the tabs close before the memory is read again."""
HOST_GONE = 60.0
"""Seconds the tab host may take to end once idle (it waits some seconds for a new tab)."""


def pss(pid: int) -> int:
    """Bytes of proportional set size (Linux's smaps_rollup); 0 for a process gone."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0
    found = re.search(r"^Pss:\s+(\d+) kB", text, re.MULTILINE)
    return int(found.group(1)) * 1024 if found else 0


def tree_memory(pid: int) -> tuple[float, float, int]:
    """(RSS MB, PSS MB, processes) of ``pid`` and all its descendants."""
    root = psutil.Process(pid)
    rss = pss_total = count = 0
    for process in [root, *root.children(recursive=True)]:
        try:
            rss += process.memory_info().rss
            pss_total += pss(process.pid)
            count += 1
        except psutil.Error:
            pass
    return rss / 2**20, pss_total / 2**20, count


async def read_screen(websocket: aiohttp.ClientWebSocketResponse) -> None:
    async for _ in websocket:  # keep reading, as a page draws every frame
        pass


def printed_url(log: Path) -> str:
    deadline = time.monotonic() + 60
    while not (found := re.findall(r" on (http://\S+?), a dashboard", log.read_text())):
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.1)  # the poll interval of this bounded wait
    return str(found[0])


def served(checkout: Path, tabs: int, settle: float, workdir: Path) -> dict[str, tuple[float, ...]]:
    """The served tree's memory with ``tabs`` open, just after closing them, and once no
    tab host is left (or after :data:`HOST_GONE` seconds)."""
    port = 47671
    log = workdir / f"serve-{os.getpid()}.log"
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    with log.open("wb") as output:
        server = subprocess.Popen(
            [sys.executable, "-m", "envtui", "serve", "--port", str(port),
             "--max-sessions", str(tabs), "--", "demo"],
            cwd=workdir, env=env, stdout=output, stderr=output, start_new_session=True,
        )  # fmt: skip
    try:
        url = printed_url(log)
        return asyncio.run(_with_tabs(server.pid, url, port, tabs, settle))
    finally:
        os.killpg(server.pid, 2)
        server.wait(timeout=30)


async def _with_tabs(
    server: int, url: str, port: int, tabs: int, settle: float
) -> dict[str, tuple[float, ...]]:
    result: dict[str, tuple[float, ...]] = {}
    token = unquote(url.split("#token=", 1)[1])  # the page's script offers it with each tab
    async with aiohttp.ClientSession() as client:
        async with client.get(url.split("#", 1)[0]) as page:
            assert page.status == 200
        sockets = [
            await client.ws_connect(
                f"ws://127.0.0.1:{port}/ws?width={SIZE[0]}&height={SIZE[1]}",
                headers={"Origin": f"http://127.0.0.1:{port}"},
                protocols=(PAGE_PROTOCOL, token_protocol(token)),
            )
            for _ in range(tabs)
        ]
        readers = [asyncio.create_task(read_screen(s)) for s in sockets]
        await asyncio.sleep(settle)
        result["open"] = tree_memory(server)
        for websocket in sockets:
            await websocket.close()
        for reader in readers:
            reader.cancel()
        await asyncio.sleep(CLOSED_SETTLE)
        result["closed"] = tree_memory(server)
        deadline = time.monotonic() + HOST_GONE
        while _has_children_running_envtui(server) and time.monotonic() < deadline:
            await asyncio.sleep(0.5)  # the poll interval of this bounded wait
        result["idle"] = tree_memory(server)
    return result


def _has_children_running_envtui(server: int) -> bool:
    for child in psutil.Process(server).children():
        try:
            if "envtui" in " ".join(child.cmdline()):
                return True
        except psutil.Error:
            pass
    return False


def terminal(settle: float) -> tuple[float, float, int]:
    """The demo in tmux at :data:`SIZE` after ``settle`` seconds: its memory."""
    name = f"bench-serve-tabs-{os.getpid()}"
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", name, "-x", str(SIZE[0]), "-y", str(SIZE[1]),
         f"exec {sys.executable} -m envtui demo"],
        check=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    try:
        time.sleep(settle)
        pane = subprocess.run(
            ["tmux", "list-panes", "-t", name, "-F", "#{pane_pid}"],
            capture_output=True, text=True, check=True,
        ).stdout.split()[0]  # fmt: skip
        return tree_memory(int(pane))
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], check=False)


def _row(label: str, values: list[float], unit: str = "MB") -> str:
    low, high = min(values), max(values)
    return f"{label:<34} {statistics.median(values):7.2f} {unit} ({low:.2f}-{high:.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tabs", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--settle", type=float, default=20.0)
    parser.add_argument("--before", type=Path, help="another checkout, served side by side")
    args = parser.parse_args()
    assert shutil.which("tmux"), "needs tmux"
    kinds: dict[str, Callable[[Path], object]] = {
        "terminal": lambda _: terminal(args.settle),
        "served": lambda work: served(ROOT, args.tabs, args.settle, work),
    }
    if args.before is not None:
        kinds["served before"] = lambda work: served(args.before, args.tabs, args.settle, work)
    seen: dict[str, list[object]] = {kind: [] for kind in kinds}
    with tempfile.TemporaryDirectory() as workdir:
        for round_ in range(args.rounds):
            order = list(kinds)[round_ % len(kinds) :] + list(kinds)[: round_ % len(kinds)]
            for kind in order:  # a different kind first in each round
                seen[kind].append(kinds[kind](Path(workdir)))
    report(args, seen)


def report(args: argparse.Namespace, seen: dict[str, list[object]]) -> None:
    terminals = [m for m in seen["terminal"] if isinstance(m, tuple)]
    print(f"{args.rounds} rounds, the demo at {SIZE[0]}x{SIZE[1]} for {args.settle:.0f} s; "
          "median (range)")  # fmt: skip
    print(_row("one dashboard in tmux: RSS", [m[0] for m in terminals]))
    print(_row("                       PSS", [m[1] for m in terminals]))
    for kind in ("served", "served before"):
        runs = [m for m in seen.get(kind, []) if isinstance(m, dict)]
        if not runs:
            continue
        print(f"{kind}, {args.tabs} tabs (all {runs[0]['open'][2]} processes):")
        for when in ("open", "closed", "idle"):
            print(_row(f"  {when}: RSS", [run[when][0] for run in runs]))
            print(_row(f"  {when}: PSS", [run[when][1] for run in runs]))
        ratios_rss = [r["open"][0] / t[0] for r, t in zip(runs, terminals, strict=False)]
        ratios_pss = [r["open"][1] / t[1] for r, t in zip(runs, terminals, strict=False)]
        print(_row("  served / terminal RSS", ratios_rss, "x") + "  (budget 3x)")
        print(_row("  served / terminal PSS", ratios_pss, "x"))


if __name__ == "__main__":
    main()
