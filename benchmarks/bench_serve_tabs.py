"""``envtui serve`` with many tabs: the memory of N tabs against one dashboard in a terminal.

Side by side in one run: ``envtui serve -- demo`` with ``--tabs`` websockets open (opened
as a browser opens them, their screens read), and the demo under tmux at the same size.
After ``--settle`` seconds, printed: the RSS and the PSS (each shared page counted once,
split among the processes that share it) of the tabs' dashboards together, of the server
(which runs the one shared source), and of the dashboard in tmux; and the ratio of all the
served processes to the one in the terminal. ``--checkout DIR`` serves another checkout's
envtui (an older commit, for a before), the terminal's stays this one.

Run from the checkout: ``python -m benchmarks.bench_serve_tabs [--tabs N] [--settle S]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
import psutil

ROOT = Path(__file__).resolve().parent.parent


def pss(process: psutil.Process) -> int:
    """Bytes of proportional set size (Linux's smaps_rollup)."""
    text = Path(f"/proc/{process.pid}/smaps_rollup").read_text()
    found = re.search(r"^Pss:\s+(\d+) kB", text, re.MULTILINE)
    return int(found.group(1)) * 1024 if found else 0


def megabytes(processes: list[psutil.Process]) -> tuple[float, float]:
    rss = sum(p.memory_info().rss for p in processes) / 2**20
    return rss, sum(pss(p) for p in processes) / 2**20


async def read_screen(websocket: aiohttp.ClientWebSocketResponse) -> None:
    async for _ in websocket:  # keep reading, as a page draws every frame
        pass


def serve(checkout: Path, tabs: int, settle: float, workdir: Path) -> tuple[float, ...]:
    """(tabs RSS, tabs PSS, server RSS, server PSS) in MB with ``tabs`` open."""
    port = 47671
    log = workdir / "serve.log"
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    with log.open("wb") as output:
        server = subprocess.Popen(
            [sys.executable, "-m", "envtui", "serve", "--port", str(port),
             "--max-sessions", str(tabs), "--", "demo"],
            cwd=workdir, env=env, stdout=output, stderr=output, start_new_session=True,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not (found := re.findall(r" on (http://\S+?), a dashboard", log.read_text())):
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        result: list[float] = []

        async def measure() -> None:
            async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as c:
                async with c.get(found[0]) as page:
                    assert page.status == 200
                origin = f"http://127.0.0.1:{port}"
                sockets = [
                    await c.ws_connect(
                        f"ws://127.0.0.1:{port}/ws?width=160&height=45",
                        headers={"Origin": origin},
                    )
                    for _ in range(tabs)
                ]
                readers = [asyncio.create_task(read_screen(s)) for s in sockets]
                await asyncio.sleep(settle)
                dashboards = psutil.Process(server.pid).children()
                result.extend(megabytes(dashboards))
                result.extend(megabytes([psutil.Process(server.pid)]))
                print(f"  {len(dashboards)} tabs' dashboards running", flush=True)
                for reader in readers:
                    reader.cancel()
                for websocket in sockets:
                    await websocket.close()

        asyncio.run(measure())
        return tuple(result)
    finally:
        os.killpg(server.pid, 2)
        server.wait(timeout=30)


def terminal(settle: float) -> tuple[float, float]:
    """(RSS, PSS) in MB of the demo in tmux at 160x45 after ``settle`` seconds."""
    name = f"bench-serve-tabs-{os.getpid()}"
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", name, "-x", "160", "-y", "45",
         f"exec {sys.executable} -m envtui demo"],
        check=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    try:
        time.sleep(settle)
        pane = subprocess.run(
            ["tmux", "list-panes", "-t", name, "-F", "#{pane_pid}"],
            capture_output=True, text=True, check=True,
        ).stdout.split()[0]  # fmt: skip
        return megabytes([psutil.Process(int(pane))])
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tabs", type=int, default=10)
    parser.add_argument("--settle", type=float, default=20.0)
    parser.add_argument("--checkout", type=Path, default=ROOT)
    args = parser.parse_args()
    assert shutil.which("tmux"), "needs tmux"
    with tempfile.TemporaryDirectory() as workdir:
        one = terminal(args.settle)
        tabs_rss, tabs_pss, server_rss, server_pss = serve(
            args.checkout, args.tabs, args.settle, Path(workdir)
        )
    print(f"one dashboard in tmux:  RSS {one[0]:6.1f} MB  PSS {one[1]:6.1f} MB")
    print(f"{args.tabs} tabs' dashboards:  RSS {tabs_rss:6.1f} MB  PSS {tabs_pss:6.1f} MB")
    print(f"the server:             RSS {server_rss:6.1f} MB  PSS {server_pss:6.1f} MB")
    print(
        f"served / terminal:      RSS {(tabs_rss + server_rss) / one[0]:.2f}x  "
        f"PSS {(tabs_pss + server_pss) / one[1]:.2f}x  (budget 3x)"
    )


if __name__ == "__main__":
    main()
